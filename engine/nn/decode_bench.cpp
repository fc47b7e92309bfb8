#include "nn/decode_bench.h"

#include <algorithm>
#include <chrono>

#include <torch/torch.h>

#include "core/error.h"
#include "nn/checkpoint.h"
#include "nn/pha_model.h"

namespace pha::nn {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string describe_path(const model::ModelConfig& c) {
  bool gss = false, attn = false;
  for (const auto& layer : c.layers)
    for (const auto& sub : layer.sublayers)
      for (model::Branch b : sub.branches) {
        gss = gss || b == model::Branch::Gss;
        attn = attn || b == model::Branch::Attention;
      }
  std::string s;
  if (gss)
    s += "GSS: prefill by FFT convolution with the state from one GEMM over the decay powers; decode by the "
         "recurrence s_t = exp(Lambda) s_(t-1) + z_t (O(H x N) per token, no prefix recomputed)";
  if (attn) {
    if (!s.empty()) s += "; ";
    s += "attention: prefill by the causal attention kernel; decode attends one query to a KV cache reserved for "
         "the prompt plus generation (O(L) per token, no reallocation)";
  }
  return s.empty() ? "FFN only" : s;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

DecodeBenchResult bench_decode(const DecodeBenchSpec& spec) {
  if (spec.prompt < 1) throw core::Error("seq_len", "the prompt needs at least 1 token");
  if (spec.batch < 1) throw core::Error("batch", "must be >= 1");
  if (spec.generate < 1) throw core::Error("generate", "must be >= 1");
  if (spec.decode_timed < 1 || spec.decode_warmup < 0 || spec.decode_warmup + spec.decode_timed > spec.generate - 1)
    throw core::Error("decode_timed", "warm-up (" + std::to_string(spec.decode_warmup) + ") + timed (" +
                                    std::to_string(spec.decode_timed) + ") decode steps must fit in generate - 1 = " +
                                    std::to_string(spec.generate - 1));
  if (spec.model.positions == "learned" && spec.prompt + spec.generate > spec.model.context)
    throw core::Error("seq_len", std::to_string(spec.prompt) + " + " + std::to_string(spec.generate) +
                               " tokens exceed the learned positions of " + spec.model.name + " (context " +
                               std::to_string(spec.model.context) + ")");
  torch::NoGradGuard no_grad;
  torch::manual_seed(static_cast<int64_t>(spec.seed));
  PhaModel model(spec.model);
  if (!spec.checkpoint.empty()) load_module_state(*model, load_checkpoint(spec.checkpoint).model, spec.checkpoint);
  model->eval();
  DecodeBenchResult r;
  r.n_params = model->num_parameters();
  for (const auto& p : model->parameters()) r.weights_bytes += p.numel() * static_cast<int64_t>(p.element_size());
  for (const auto& b : model->buffers()) r.weights_bytes += b.numel() * static_cast<int64_t>(b.element_size());
  r.decode_path = describe_path(spec.model);
  const int64_t V = spec.model.vocab_size;
  const at::Tensor prompt = torch::randint(V, {spec.batch, spec.prompt}, at::kLong);

  // Untimed warm-up on a short prompt: thread pools, allocator and kernel caches are set up
  // before the first timed call, as in a server that has answered a request before.
  {
    const int64_t warm = std::min<int64_t>(spec.prompt, 64);
    DecodeState s = model->new_state(spec.batch, warm + 2);
    at::Tensor next = model->prefill(prompt.narrow(1, 0, warm), s, true).select(1, 0).argmax(-1);
    for (int i = 0; i < 2; ++i) next = model->step(next, s).argmax(-1);
  }

  DecodeState state = model->new_state(spec.batch, spec.prompt + spec.generate);
  auto t0 = std::chrono::steady_clock::now();
  at::Tensor next = model->prefill(prompt, state, /*last_only=*/true).select(1, 0).argmax(-1);  // (B)
  (void)next.data_ptr<int64_t>();
  r.prefill_s = seconds_since(t0);
  r.e2e_s = r.prefill_s;
  for (int i = 1; i < spec.generate; ++i) {
    t0 = std::chrono::steady_clock::now();
    next = model->step(next, state).argmax(-1);
    (void)next.data_ptr<int64_t>();
    const double dt = seconds_since(t0);
    r.step_s.push_back(dt);
    r.e2e_s += dt;
  }
  r.decode_step_s = median(std::vector<double>(r.step_s.begin() + spec.decode_warmup,
                                               r.step_s.begin() + spec.decode_warmup + spec.decode_timed));
  r.kv_bytes = state.kv_cache_bytes();
  r.gss_state_bytes = state.gss_state_bytes();
  return r;
}

}  // namespace pha::nn
