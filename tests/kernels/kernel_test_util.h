// Helpers shared by the fused-kernel tests: error measure and gradient capture.
#pragma once

#include <functional>
#include <vector>

#include <ATen/ATen.h>

namespace pha::kernels::testing {

// max |a - b| / max |b| (0 when both are zero)
inline double rel_err(const at::Tensor& a, const at::Tensor& b) {
  const double scale = b.to(at::kDouble).abs().max().item<double>();
  const double diff = (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
  return scale > 0 ? diff / scale : diff;
}

// Runs loss() (a scalar to differentiate), returns the gradients of `inputs` and clears them.
inline std::vector<at::Tensor> grads_of(const std::function<at::Tensor()>& loss, const std::vector<at::Tensor>& inputs) {
  loss().backward();
  std::vector<at::Tensor> out;
  for (const at::Tensor& t : inputs) {
    out.push_back(t.grad().defined() ? t.grad().clone() : at::zeros_like(t));
    const_cast<at::Tensor&>(t).mutable_grad() = at::Tensor();
  }
  return out;
}

}  // namespace pha::kernels::testing
