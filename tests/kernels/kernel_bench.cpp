#include "kernel_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/types.h>

#include <torch/optim/adamw.h>

#include "adamw/adamw.h"
#include "attention/attention.h"
#include "gss_conv/gss_conv.h"
#include "mix_norm/mix_norm.h"
#include "rope_cosine/rope_cosine.h"

namespace pha::kernels::testing {
namespace {

double median_ms(const std::function<void()>& fn, int reps) {
  fn();  // warm-up
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void bench_attention(int64_t B, int64_t T, int64_t Hq, int64_t G, int64_t hd, bool with_ref, int reps) {
  const at::Tensor q = at::randn({B, T, Hq, hd}).requires_grad_(true);
  const at::Tensor k = at::randn({B, T, G, hd}).requires_grad_(true);
  const at::Tensor v = at::randn({B, T, G, hd}).requires_grad_(true);
  const at::Tensor s = at::full({Hq}, 2.3).requires_grad_(true);
  // 0: the dispatcher's choice (the CPU kernel for CPU fp32), 1: the query-blocked ATen path,
  // 2: the full-matrix reference
  auto run = [&](int which) {
    const at::Tensor o = which == 2   ? ref::cosine_attention(q, k, v, s, 4.6)
                         : which == 1 ? cosine_attention(q, k, v, s, 4.6, 0, AttentionBackward::Recompute)
                                      : cosine_attention(q, k, v, s, 4.6);
    o.sum().backward();
  };
  const double fast = median_ms([&] { run(0); }, reps);
  const double blocked = median_ms([&] { run(1); }, reps);
  const double slow = with_ref ? median_ms([&] { run(2); }, reps) : 0.0;
  std::printf("attention fwd+bwd B=%ld T=%ld Hq=%ld G=%ld hd=%ld  cpu kernel %.2f ms  blocked ATen %.2f ms  reference %s\n",
              (long)B, (long)T, (long)Hq, (long)G, (long)hd, fast, blocked,
              with_ref ? (std::to_string(slow) + " ms").c_str() : "(skipped: T*T too large)");
}

void bench_gss(int64_t B, int64_t T, int64_t H, int64_t N, int reps) {
  const at::Tensor lre = at::randn({N}).requires_grad_(true), lim = at::randn({N}).requires_grad_(true);
  const at::Tensor cre = at::randn({H, N}).requires_grad_(true), cim = at::randn({H, N}).requires_grad_(true);
  const at::Tensor D = at::randn({H}).requires_grad_(true);
  const at::Tensor z = at::randn({B, T, H}).requires_grad_(true);
  const double kern = median_ms([&] { dss_kernel(lre, lim, cre, cim, T).sum().backward(); }, reps);
  const double kern_ref = median_ms([&] { ref::dss_kernel(lre, lim, cre, cim, T).sum().backward(); }, reps);
  const at::Tensor K = dss_kernel(lre, lim, cre, cim, T).detach().requires_grad_(true);
  const double conv = median_ms([&] { gss_causal_conv(z, K, D).sum().backward(); }, reps);
  const double conv_ref = T <= 1024 ? median_ms([&] { ref::gss_causal_conv(z, K, D).sum().backward(); }, 1) : 0.0;
  std::printf("gss B=%ld T=%ld H=%ld N=%ld  kernel %.2f ms (ref %.2f)  fft conv fwd+bwd %.2f ms (direct ref %s)\n",
              (long)B, (long)T, (long)H, (long)N, kern, kern_ref, conv,
              T <= 1024 ? (std::to_string(conv_ref) + " ms").c_str() : "skipped");
}

// RoPE + cosine front end, fwd + bwd: fused kernel vs the unfused reference.
void bench_rope_cosine(int64_t B, int64_t T, int64_t Hq, int64_t G, int64_t hd, at::ScalarType dt, int reps) {
  const at::Tensor qkv = at::randn({B, T, Hq + 2 * G, hd}).to(dt).requires_grad_(true);
  const at::Tensor s = at::full({Hq}, 2.3).requires_grad_(true);
  const RopeTables tables = rope_tables(0, T, hd, 10000.0, at::TensorOptions());
  auto run = [&](bool fused) {
    const at::Tensor qk = qkv.narrow(2, 0, Hq + G);
    const RopeCosine r = fused ? rope_cosine(qk, Hq, tables, s, 4.6) : ref::rope_cosine(qk, Hq, tables, s, 4.6);
    (r.q.sum() + r.k.sum()).backward();
  };
  const double fused = median_ms([&] { run(true); }, reps), unfused = median_ms([&] { run(false); }, reps);
  std::printf("rope_cosine fwd+bwd %s B=%ld T=%ld Hq=%ld G=%ld hd=%ld  fused %.2f ms  reference %.2f ms  (x%.1f)\n",
              dt == at::kBFloat16 ? "bf16" : "fp32", (long)B, (long)T, (long)Hq, (long)G, (long)hd, fused, unfused,
              unfused / fused);
}

// Branch norms + mixer + residual + LayerNorm of a three-branch sublayer, fwd + bwd.
void bench_mix_norm(int64_t B, int64_t T, int64_t d, at::ScalarType ydt, int reps) {
  MixNormInputs in;
  for (int b = 0; b < 3; ++b) {
    in.ys.push_back(at::randn({B, T, d}).to(ydt).requires_grad_(true));
    in.gains.push_back(at::ones({d}).requires_grad_(true));
  }
  in.mix = at::full({3}, 1.0 / 3).requires_grad_(true);
  in.x = at::randn({B, T, d}).requires_grad_(true);
  in.alpha = 1.68;
  in.ln_weight = at::ones({d}).requires_grad_(true);
  in.ln_bias = at::zeros({d}).requires_grad_(true);
  auto run = [&](bool fused) { (fused ? mix_residual_norm(in) : ref::mix_residual_norm(in)).out.sum().backward(); };
  const double fused = median_ms([&] { run(true); }, reps), unfused = median_ms([&] { run(false); }, reps);
  std::printf("mix_norm fwd+bwd 3 branches %s B=%ld T=%ld d=%ld  fused %.2f ms  reference %.2f ms  (x%.1f)\n",
              ydt == at::kBFloat16 ? "bf16" : "fp32", (long)B, (long)T, (long)d, fused, unfused, unfused / fused);
}

// One AdamW step over `sizes` parameters: multi-tensor kernel, the per-tensor ATen reference,
// and torch::optim::AdamW.
void bench_adamw(const std::vector<int64_t>& sizes, const char* label, int reps) {
  std::vector<at::Tensor> ps, gs, ms, vs, tp;
  int64_t total = 0;
  for (int64_t n : sizes) {
    ps.push_back(at::randn({n}));
    gs.push_back(at::randn({n}));
    ms.push_back(at::zeros({n}));
    vs.push_back(at::zeros({n}));
    tp.push_back(ps.back().clone().requires_grad_(true));
    tp.back().mutable_grad() = gs.back().clone();
    total += n;
  }
  AdamWHyper h;
  h.weight_decay = 0.1;
  std::vector<AdamWTensors> ts;
  for (size_t i = 0; i < ps.size(); ++i) ts.push_back({ps[i], gs[i], ms[i], vs[i], 1});
  torch::optim::AdamW opt(tp, torch::optim::AdamWOptions(1e-3).weight_decay(0.1));
  const double fused = median_ms([&] { adamw_step(ts, h); }, reps);
  const double unfused = median_ms([&] { ref::adamw_step(ts, h); }, reps);
  const double torch_ms = median_ms([&] { opt.step(); }, reps);
  std::printf("adamw step %s (%zu tensors, %.2fM params)  multi-tensor %.2f ms  reference %.2f ms  torch::optim %.2f ms\n",
              label, sizes.size(), total / 1e6, fused, unfused, torch_ms);
}

// The parameter tensors of a preset-like model: L layers of (qkv, o, uv, g, o, up, down) plus
// small vectors, and the embedding.
std::vector<int64_t> model_sizes(int64_t d, int64_t L, int64_t V) {
  std::vector<int64_t> s = {V * d};
  for (int64_t l = 0; l < L; ++l) {
    for (int64_t n : {2 * d * d, d * d, d * (2 * d + d / 2), d / 2 * 2 * d, 2 * d * d, d * 5 * d, 5 * d * d}) s.push_back(n);
    for (int64_t n : {d, d, d, d, d, d, 3L, 64L, 64L}) s.push_back(n);
  }
  return s;
}

}  // namespace

int run_benchmarks(bool quick) {
  std::printf("threads: %d\n", at::get_num_threads());
  const int reps = quick ? 2 : 5;
  bench_attention(8, 512, 4, 2, 32, true, reps);
  bench_attention(4, 512, 8, 4, 64, true, reps);
  if (!quick) {
    bench_attention(1, 2048, 4, 2, 32, true, 3);
    bench_attention(1, 8192, 4, 2, 32, false, 1);
  }
  bench_gss(8, 512, 64, 64, reps);
  bench_gss(4, 512, 256, 64, reps);
  if (!quick) bench_gss(1, 8192, 64, 64, 3);
  for (auto dt : {at::kFloat, at::kBFloat16}) {
    bench_rope_cosine(8, 512, 4, 2, 32, dt, reps);
    bench_rope_cosine(8, 512, 8, 4, 64, dt, reps);
    bench_mix_norm(8, 512, 128, dt, reps);
    bench_mix_norm(8, 512, 512, dt, reps);
  }
  bench_adamw(model_sizes(128, 4, 256), "pha-tiny-like", reps);
  bench_adamw(model_sizes(512, 4, 256), "pha-d512-like", reps);
  return 0;
}

}  // namespace pha::kernels::testing
