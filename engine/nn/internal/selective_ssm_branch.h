// Selective SSM branch: Mamba's block (Gu & Dao 2023, the S6 layer in its gated block) without
// its residual or norm, the SSM slot's branch when ModelConfig::ssm is "s6":
//   x, z  = split(in_proj(x))                  E -> 2 Di (Di = expand * E), no bias
//   x     = silu(causal_depthwise_conv(x))     kernel `conv`, bias
//   dt, B, C = split(x_proj(x))                Di -> R + 2N, no bias
//   Delta = softplus(dt_proj(dt))              R -> Di, bias
//   y     = selective_scan(x, Delta, A, B, C) + D * x     A = -exp(A_log) (Di, N)
//   out   = out_proj(y * silu(z))              Di -> E, no bias
// Init (Mamba's): A_log[c, n] = log(n + 1) (S4D-real), D = 1, dt_proj.bias = softplus^-1 of a
// log-uniform draw in [dt_min, dt_max] (floor 1e-4), dt_proj.weight ~ U(+-1/sqrt(R)); in_proj,
// x_proj and out_proj take the model's rule (DeepNorm: Xavier, gain beta for in_proj and
// out_proj, 1 for x_proj, which only selects; pre-norm: GPT-2's), conv1d LibTorch's default.
// Precision: in_proj and out_proj run in x's dtype (bf16 under mixed precision); the
// convolution, x_proj, dt_proj, the scan and the gate in the parameters' dtype (fp32).
// Generation: prefill() runs the forward and keeps the convolution window and the state;
// step() advances both by one token, O(Di (N + conv)) whatever the context.
#pragma once

#include <vector>

#include <ATen/ATen.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "model/model_config.h"
#include "nn/decode_state.h"
#include "nn/internal/weight_slice.h"

namespace pha::nn {

class SelectiveSsmBranchImpl : public torch::nn::Module {
 public:
  explicit SelectiveSsmBranchImpl(const model::ModelConfig& cfg);

  at::Tensor forward(const at::Tensor& x);                   // (B, T, E) -> (B, T, E)
  at::Tensor prefill(const at::Tensor& x, S6State& state);   // forward + state after x
  at::Tensor step(const at::Tensor& x, S6State& state);      // (B, 1, E), state advanced

  at::Tensor A() const;  // -exp(A_log) (Di, N)
  std::vector<WeightSlice> weight_slices() const;
  void reset_ssm_parameters();  // A_log, D, dt_proj (Mamba's init, above)

  torch::nn::Linear in_proj{nullptr};   // E -> 2 Di, rows [0, Di) x, [Di, 2 Di) z
  torch::nn::Conv1d conv1d{nullptr};    // depthwise: weight (Di, 1, conv), bias (Di)
  torch::nn::Linear x_proj{nullptr};    // Di -> R + 2N: rows [0, R) dt, [R, R + N) B, [R + N, R + 2N) C
  torch::nn::Linear dt_proj{nullptr};   // R -> Di, bias
  torch::nn::Linear out_proj{nullptr};  // Di -> E
  at::Tensor A_log;  // (Di, N)
  at::Tensor D;      // (Di)

  int64_t inner() const { return Di_; }
  int64_t state_size() const { return N_; }
  int64_t conv_width() const { return K_; }

 private:
  struct Projected {
    at::Tensor x;  // (B, T, Di) before the convolution, parameters' dtype
    at::Tensor z;  // (B, T, Di) gate, parameters' dtype
  };
  struct Selection {
    at::Tensor delta;  // (B, T, Di)
    at::Tensor B, C;   // (B, T, N)
  };
  Projected project(const at::Tensor& x);
  Selection select(const at::Tensor& xs);  // from the convolved, activated x (B, T, Di)
  at::Tensor output(const at::Tensor& y, const at::Tensor& xs, const at::Tensor& z, at::ScalarType out_dtype);
  at::Tensor causal_conv(const at::Tensor& x);  // (B, T, Di) -> (B, T, Di), before the SiLU

  int64_t E_, Di_, N_, K_, R_;
  double dt_min_, dt_max_;
};
TORCH_MODULE(SelectiveSsmBranch);

}  // namespace pha::nn
