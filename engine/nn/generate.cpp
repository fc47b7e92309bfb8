#include "nn/generate.h"

#include <algorithm>
#include <limits>

#include <ATen/CPUGeneratorImpl.h>
#include <c10/util/Exception.h>
#include <torch/types.h>

#include "core/error.h"

namespace pha::nn {

at::Generator make_sampling_generator(uint64_t seed) {
  return at::make_generator<at::CPUGeneratorImpl>(seed);
}

at::Tensor sample_next(const at::Tensor& logits, const SamplingOptions& opts, at::Generator& gen) {
  TORCH_CHECK(logits.dim() == 2, "sample_next: logits must be (B, V), got ", logits.sizes());
  if (opts.top_p <= 0.0 || opts.top_p > 1.0) throw core::Error("sampling.top_p", "must be in (0, 1]");
  if (opts.top_k < 0) throw core::Error("sampling.top_k", "must be >= 0");
  // The byte presets have V = 260 for a 257-id tokenizer: ids it cannot decode are never drawn.
  const at::Tensor usable = opts.vocab_limit > 0 && opts.vocab_limit < logits.size(1) ? logits.narrow(1, 0, opts.vocab_limit)
                                                                                     : logits;  // (B, V')
  if (opts.temperature <= 0.0) return usable.argmax(-1);  // (B)
  at::Tensor l = usable.to(at::kFloat) / opts.temperature;  // (B, V')
  const int64_t V = l.size(1);
  if (opts.top_k > 0 && opts.top_k < V) {
    const at::Tensor kth = std::get<0>(l.topk(opts.top_k, -1)).narrow(1, opts.top_k - 1, 1);  // (B, 1)
    l = l.masked_fill(l < kth, -std::numeric_limits<float>::infinity());
  }
  if (opts.top_p < 1.0) {
    auto sorted = l.sort(-1, /*descending=*/true);
    const at::Tensor probs = at::softmax(std::get<0>(sorted), -1);  // (B, V)
    // Drop a token when the mass before it already reaches top_p (the first is always kept).
    const at::Tensor drop_sorted = (probs.cumsum(-1) - probs) >= opts.top_p;
    const at::Tensor drop = at::zeros_like(drop_sorted).scatter(1, std::get<1>(sorted), drop_sorted);
    l = l.masked_fill(drop, -std::numeric_limits<float>::infinity());
  }
  return at::multinomial(at::softmax(l, -1), 1, /*replacement=*/false, gen).squeeze(1);  // (B)
}

std::vector<int64_t> generate(PhaModelImpl& model, const std::vector<int64_t>& prompt_ids,
                              int max_new, const SamplingOptions& opts) {
  if (prompt_ids.empty()) throw core::Error("prompt", "needs at least one token");
  if (max_new < 0) throw core::Error("max_new", "must be >= 0");
  const int64_t V = model.config().vocab_size;
  for (int64_t id : prompt_ids) {
    if (id < 0 || id >= V) throw core::Error("prompt", "token id " + std::to_string(id) + " outside [0, " + std::to_string(V) + ")");
  }
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  at::Generator gen = make_sampling_generator(opts.seed);
  const auto device = model.embed->weight.device();
  DecodeState state = model.new_state(1, static_cast<int64_t>(prompt_ids.size()) + max_new);
  const at::Tensor prompt = at::tensor(prompt_ids, at::kLong).to(device).unsqueeze(0);  // (1, T)
  at::Tensor logits = model.prefill(prompt, state, /*last_only=*/true).select(1, 0);     // (1, V)
  std::vector<int64_t> out;
  for (int i = 0; i < max_new; ++i) {
    const at::Tensor next = sample_next(logits.cpu(), opts, gen);  // (1)
    const int64_t id = next.item<int64_t>();
    out.push_back(id);
    if (std::find(opts.stop_tokens.begin(), opts.stop_tokens.end(), id) != opts.stop_tokens.end()) break;
    if (i + 1 < max_new) logits = model.step(next.to(device), state);
  }
  model.train(was_training);
  return out;
}

}  // namespace pha::nn
