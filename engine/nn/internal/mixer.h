// Softplus static mixer of a parallel sub-layer: w_b = softplus(p_b) / sum_j softplus(p_j).
// Learned: p is a trainable fp32 vector (init 0, so w = 1/n at init; no weight decay).
// Uniform: w = 1/n and no parameter at all (the pha-uniform ablation).
#pragma once

#include <ATen/ATen.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include "model/model_config.h"

namespace pha::nn {

class MixerImpl : public torch::nn::Module {
 public:
  MixerImpl(int64_t n_branches, model::MixerMode mode);

  // (n_branches) positive, sums to 1; computed in fp32, or fp64 when dtype is fp64.
  at::Tensor weights(at::ScalarType dtype = at::kFloat) const;
  int64_t size() const { return n_; }
  model::MixerMode mode() const { return mode_; }

  at::Tensor p;  // (n_branches) fp32; undefined in Uniform mode

 private:
  int64_t n_;
  model::MixerMode mode_;
};
TORCH_MODULE(Mixer);

}  // namespace pha::nn
