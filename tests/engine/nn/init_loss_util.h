// The step-0 loss of a model (tests of sound initialisation: test_init_loss.cpp for the CPU-scale
// presets and every variant, test_init_loss_paper.cpp for the paper-scale presets).
#pragma once

#include <cmath>
#include <cstdint>

#include <torch/types.h>

#include "nn/pha_model.h"

namespace pha::nn::testing {

// The mean next-token cross-entropy of a freshly built `c` (seeded) on a (B, T + 1) batch of
// uniformly random tokens: the loss the trainer computes at step 0. A model with no preference
// scores ln V.
inline double step0_loss(const model::ModelConfig& c, int B, int T, uint64_t seed) {
  torch::NoGradGuard no_grad;
  at::manual_seed(seed);
  nn::PhaModel model(c);
  const at::Tensor data = at::randint(0, c.vocab_size, {B, T + 1}, at::kLong);
  const at::Tensor logits = model(data.narrow(1, 0, T));  // (B, T, V)
  return at::cross_entropy_loss(logits.reshape({-1, c.vocab_size}), data.narrow(1, 1, T).reshape({-1}))
      .item<double>();
}

// |loss - ln V| / ln V
inline double relative_to_ln_v(const model::ModelConfig& c, double loss) {
  const double ln_v = std::log(static_cast<double>(c.vocab_size));
  return std::abs(loss - ln_v) / ln_v;
}

}  // namespace pha::nn::testing
