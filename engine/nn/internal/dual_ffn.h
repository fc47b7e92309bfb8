// Dual-FFN branch: FFN_main (d -> d_ff -> d, GELU) + FFN_aux (d -> d_aux -> d, GELU).
// The two FFNs run as one fused pair of GEMMs: up (d -> d_ff + d_aux) rows [0, d_ff) are the
// main FFN, rows [d_ff, d_ff + d_aux) the aux FFN; down (d_ff + d_aux -> d) columns likewise.
// sum of the two FFNs == down(gelu(up(x))) exactly, with one shared output bias (the two
// output biases of separate FFNs would only ever appear as their sum). d_aux = 0: main only.
// ffn.kind "swiglu": up is d -> 2 (d_ff + d_aux), its first half the gate and its second the
// value, out = down(silu(gate) * value) (Llama's FFN); ffn.bias false drops every bias.
#pragma once

#include <vector>

#include <ATen/ATen.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "model/model_config.h"
#include "nn/internal/weight_slice.h"

namespace pha::nn {

class DualFfnImpl : public torch::nn::Module {
 public:
  explicit DualFfnImpl(const model::ModelConfig& cfg);

  at::Tensor forward(const at::Tensor& x);  // (B, T, d) -> (B, T, d)

  std::vector<WeightSlice> weight_slices() const;
  int64_t d_ff() const { return d_ff_; }
  int64_t d_aux() const { return d_aux_; }

  torch::nn::Linear up{nullptr};    // d -> d_ff + d_aux, bias
  torch::nn::Linear down{nullptr};  // d_ff + d_aux -> d, bias

 private:
  int64_t d_, d_ff_, d_aux_;
  bool swiglu_;
};
TORCH_MODULE(DualFfn);

}  // namespace pha::nn
