// GSS branch (Gated State Space, Mehta et al. 2022) without its residual:
//   u = gelu(W_u x) (E -> F), v = gelu(W_v x) (E -> H)      one fused GEMM: w_uv (F + H, E)
//   z = LayerNorm(v) (gss.inner_norm), y = DSS(z) (B, T, H)  FFT convolution, kernels/gss_conv
//   out = W_o(W_g(y) * u)                                    W_g: H -> F, W_o: F -> E (+ bias)
// DSS-EXP parameters: lre, lim (N), cre, cim (H, N), d (H), all ~ N(0, 1).
// Precision: the GEMMs and GELU run in x's dtype (bf16 under mixed precision); z, the DSS
// kernel and the convolution in the parameters' dtype (fp32); the output is in x's dtype.
// Generation: step() runs the recurrence s_t = exp(Lambda) s_{t-1} + z_t,
// y_t = Re(sum_n C'_{h,n} s_{t,h,n}) + D_h z_t; prefill() fills s from a whole prompt.
#pragma once

#include <vector>

#include <ATen/ATen.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include "nn/decode_state.h"
#include "model/model_config.h"
#include "nn/internal/weight_slice.h"

namespace pha::nn {

class GssBranchImpl : public torch::nn::Module {
 public:
  explicit GssBranchImpl(const model::ModelConfig& cfg);

  at::Tensor forward(const at::Tensor& x);                     // (B, T, E) -> (B, T, E)
  at::Tensor prefill(const at::Tensor& x, GssState& state);    // forward + state after x
  at::Tensor step(const at::Tensor& x, GssState& state);       // (B, 1, E), state advanced

  // DSS kernel K (H, T) for the current parameters.
  at::Tensor kernel(int64_t T) const;
  std::vector<WeightSlice> weight_slices() const;
  void reset_dss_parameters();  // lre, lim, cre, cim, d ~ N(0, 1)

  torch::nn::Linear w_uv{nullptr};  // E -> F + H, no bias (rows [0, F) = W_u, [F, F+H) = W_v)
  torch::nn::Linear w_g{nullptr};   // H -> F, no bias
  torch::nn::Linear w_o{nullptr};   // F -> E, bias
  torch::nn::LayerNorm inner_norm{nullptr};  // over H; absent when gss.inner_norm is off
  at::Tensor lre, lim;  // (N)
  at::Tensor cre, cim;  // (H, N)
  at::Tensor d;         // (H)

 private:
  struct Projected {
    at::Tensor u;  // (B, T, F)
    at::Tensor z;  // (B, T, H) DSS input
  };
  Projected project(const at::Tensor& x);
  at::Tensor output(const at::Tensor& y, const at::Tensor& u);  // W_o(W_g(y) * u)

  int64_t E_, F_, H_, N_;
};
TORCH_MODULE(GssBranch);

}  // namespace pha::nn
