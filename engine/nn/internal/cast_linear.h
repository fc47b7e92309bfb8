// Mixed precision inside the model: every weight GEMM runs in the dtype of its input (bf16
// under training.precision bf16, else the parameters' own dtype), with the fp32 master weight
// cast on the way in. The cast is part of the autograd graph, so the weight gradient arrives
// in fp32 on the master parameter. Everything kept in fp32 on purpose casts up explicitly
// where it starts (docs/model.md, "Precision").
#pragma once

#include <ATen/ATen.h>
#include <torch/nn/modules/linear.h>

namespace pha::nn {

// t in dtype dt (t itself when it already is).
inline at::Tensor as_dtype(const at::Tensor& t, at::ScalarType dt) {
  return t.scalar_type() == dt ? t : t.to(dt);
}

// l(x) with l's weight and bias cast to x's dtype: (..., in) -> (..., out) in x's dtype.
inline at::Tensor cast_linear(const at::Tensor& x, const torch::nn::Linear& l) {
  const at::ScalarType dt = x.scalar_type();
  const at::Tensor& b = l->bias;
  return at::linear(x, as_dtype(l->weight, dt), b.defined() ? as_dtype(b, dt) : at::Tensor());
}

}  // namespace pha::nn
