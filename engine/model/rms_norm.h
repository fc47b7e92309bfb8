// RMSNorm: x / sqrt(mean(x^2) + eps) * g over the last dimension (the per-branch norm of the
// PHA mixer). Gain g initialised to 1.
#pragma once

#include <ATen/ATen.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace pha::model {

class RMSNormImpl : public torch::nn::Module {
 public:
  RMSNormImpl(int64_t dim, double eps);

  at::Tensor forward(const at::Tensor& x);  // (..., dim) -> (..., dim)

  // x * rsqrt(ms + eps) * weight * extra_gain, with ms = mean(x^2) (..., 1) given by the caller
  // (the mixer reuses ms for its RMS statistics). extra_gain: scalar tensor or undefined.
  at::Tensor normalize(const at::Tensor& x, const at::Tensor& ms, const at::Tensor& extra_gain);

  at::Tensor weight;  // (dim)

 private:
  int64_t dim_;
  double eps_;
};
TORCH_MODULE(RMSNorm);

}  // namespace pha::model
