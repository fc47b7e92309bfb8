// bench_model_step: training-step throughput of the model core (forward, cross-entropy,
// backward, AdamW), the configs of docs/performance-anchors.md. Not a ctest test; run by hand:
//   bench_model_step [variant=pha] [d=128] [B=8] [T=512] [steps=10]
// Prints tokens/s, the FLOP-model MFU against the GEMM rate measured in the same process.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <cstdlib>
#include <functional>

#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/optim/adamw.h>
#include <torch/types.h>

#include "device/system_info.h"
#include "model/pha_model.h"
#include "model/variants.h"

using namespace pha::model;

int main(int argc, char** argv) {
  const std::string variant = argc > 1 ? argv[1] : "pha";
  const int d = argc > 2 ? std::stoi(argv[2]) : 128;
  const int B = argc > 3 ? std::stoi(argv[3]) : (d >= 512 ? 4 : 8);
  const int T = argc > 4 ? std::stoi(argv[4]) : 512;
  const int steps = argc > 5 ? std::stoi(argv[5]) : 10;
  const bool forward_only = argc > 6 && std::string(argv[6]) == "forward";
  const int threads = pha::configure_threads(0);

  ModelConfig cfg = make_variant_config(variant, 256, d, 4);
  cfg.attention.heads = d >= 512 ? 8 : 4;
  cfg.attention.kv_heads = cfg.attention.heads / 2;
  cfg.attention.head_dim = 0;
  cfg.gss.expanded = 2 * d;
  cfg.gss.reduced = d / 2;
  cfg.gss.state = 64;
  cfg.ffn.d_ff = 4 * d;
  PhaModel model(cfg);
  model->set_record_stats(false);
  torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-3).betas({0.9, 0.95}));
  const at::Tensor data = at::randint(0, 256, {B, T + 1}, at::kLong);
  const at::Tensor x = data.narrow(1, 0, T), y = data.narrow(1, 1, T).reshape({-1});

  auto step = [&]() {
    if (forward_only) {
      torch::NoGradGuard no_grad;
      model(x);
      return;
    }
    opt.zero_grad();
    at::cross_entropy_loss(model(x).reshape({-1, 256}), y).backward();
    opt.step();
  };
  for (int i = 0; i < 3; ++i) step();
  if (std::getenv("PHA_BENCH_BRANCHES")) {  // fwd+bwd of each branch of layer 0 alone
    const Sublayer& sub = model->blocks()[0]->sublayers()[0];
    const at::Tensor h = at::randn({B, T, d}).requires_grad_(true);
    auto time_it = [&](const char* name, const std::function<at::Tensor()>& fn) {
      std::vector<double> t;
      for (int i = 0; i < 5; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        fn().sum().backward();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(t.begin(), t.end());
      std::printf("  %-10s fwd+bwd %.1f ms\n", name, t[2]);
    };
    if (sub->gss) time_it("gss", [&] { return sub->gss.ptr()->forward(h); });
    if (sub->attn) time_it("attn", [&] { return sub->attn.ptr()->forward(h); });
    if (sub->ffn) time_it("ffn", [&] { return sub->ffn.ptr()->forward(h); });
    time_it("sublayer", [&] { return sub.ptr()->forward(h); });
    time_it("gemm-only", [&] { return at::matmul(h, at::randn({d, 4 * d})); });
  }
  if (const char* trace = std::getenv("PHA_PROFILE")) {  // chrome trace of one step
    torch::autograd::profiler::RecordProfile guard(trace);
    step();
  }
  std::vector<double> times;
  for (int i = 0; i < steps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  const double sec = times[times.size() / 2];
  const double tok_s = B * T / sec;
  int attn_layers = 0;
  for (const auto& l : cfg.layers) {
    for (const auto& s : l.sublayers) {
      for (Branch b : s.branches) attn_layers += b == Branch::Attention;
    }
  }
  const double non_embed = static_cast<double>(model->num_parameters() - 256LL * d);
  const double mult = forward_only ? 2.0 : 6.0;
  const double flops_tok = mult * non_embed + mult * d * 256.0 +
                           mult * attn_layers * T * cfg.attention.heads * cfg.head_dim();
  const double gemm = pha::measure_gemm_gflops(2048, 5);
  std::printf("%s d=%d B=%d T=%d %s threads=%d params=%.2fM  %.1f ms/step  %.0f tokens/s  "
              "%.1f GFLOP/s  GEMM %.0f GFLOP/s  MFU %.1f%%\n",
              variant.c_str(), d, B, T, forward_only ? "forward" : "train", threads,
              model->num_parameters() / 1e6, sec * 1e3, tok_s, flops_tok * tok_s / 1e9, gemm,
              100.0 * flops_tok * tok_s / 1e9 / gemm);
  return 0;
}
