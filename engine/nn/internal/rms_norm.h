// RMSNorm: x / sqrt(mean(x^2) + eps) * g over the last dimension (the per-branch norm of the
// PHA mixer). Gain g initialised to 1. Inside a sublayer the norm runs fused with the mixer and
// the residual (kernels/mix_norm); this module holds its gain and is the plain form.
#pragma once

#include <ATen/ATen.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace pha::nn {

class RMSNormImpl : public torch::nn::Module {
 public:
  RMSNormImpl(int64_t dim, double eps);

  at::Tensor forward(const at::Tensor& x);  // (..., dim) -> (..., dim)

  at::Tensor weight;  // (dim)

 private:
  int64_t dim_;
  double eps_;
};
TORCH_MODULE(RMSNorm);

}  // namespace pha::nn
