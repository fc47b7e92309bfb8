// Sampling and generation on top of PhaModel's incremental decoding.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/Generator.h>

#include "nn/pha_model.h"

namespace pha::nn {

struct SamplingOptions {
  double temperature = 1.0;  // <= 0: greedy (argmax)
  int top_k = 0;             // 0: off; else keep the k most likely tokens
  double top_p = 1.0;        // nucleus: keep the smallest set with probability >= top_p (1: off)
  uint64_t seed = 0;         // seeds the generator of generate()
  std::vector<int64_t> stop_tokens;  // generation ends after emitting one of these
  int64_t vocab_limit = 0;  // > 0: only ids below it are drawn (a tokenizer with fewer ids than the model's V)
};

// A CPU generator seeded with `seed` (reproducible sampling).
at::Generator make_sampling_generator(uint64_t seed);

// Next tokens (B) from logits (B, V) with temperature, top-k and top-p.
at::Tensor sample_next(const at::Tensor& logits, const SamplingOptions& opts, at::Generator& gen);

// Feeds the prompt (prefill), then samples up to max_new tokens one step at a time.
// Returns only the new tokens. Runs without autograd; the model is left in eval mode as found.
std::vector<int64_t> generate(PhaModelImpl& model, const std::vector<int64_t>& prompt_ids,
                              int max_new, const SamplingOptions& opts);

}  // namespace pha::nn
