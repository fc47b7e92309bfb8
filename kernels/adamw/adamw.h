// Multi-tensor AdamW: one update of many parameters in one call, one pass over each element
// (weight decay, both moments, bias correction and the parameter step together), the tensors
// split into chunks that run in parallel. The arithmetic is torch::optim::AdamW's (LibTorch
// 1.13, amsgrad off): decoupled decay p *= 1 - lr * wd, m = b1 m + (1 - b1) g,
// v = b2 v + (1 - b2) g^2, p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
// The reference (namespace ref) is that sequence of ATen ops per tensor; non-CPU tensors and
// other dtypes run it.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/ATen.h>

namespace pha::kernels {

struct AdamWHyper {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.0;
};

struct AdamWTensors {
  at::Tensor param, grad, exp_avg, exp_avg_sq;  // one shape and dtype; updated in place (not grad)
  int64_t step = 1;                             // the step count including this update
};

// Updates param, exp_avg and exp_avg_sq of every entry in place (no autograd).
void adamw_step(const std::vector<AdamWTensors>& tensors, const AdamWHyper& h);

namespace ref {
void adamw_step(const std::vector<AdamWTensors>& tensors, const AdamWHyper& h);
}  // namespace ref
}  // namespace pha::kernels
