#include "llama_ops/llama_ops.h"
#include "nn/internal/dual_ffn.h"

#include <c10/util/Exception.h>

#include "core/error.h"
#include "nn/internal/cast_linear.h"

namespace pha::nn {

DualFfnImpl::DualFfnImpl(const model::ModelConfig& cfg)
    : d_(cfg.d_model), d_ff_(cfg.d_ff()), d_aux_(cfg.d_aux()), swiglu_(cfg.ffn.kind == "swiglu") {
  if (d_ff_ < 1) throw core::Error("model.ffn.d_ff", "must be >= 1, got " + std::to_string(d_ff_));
  if (d_aux_ < 0) throw core::Error("model.ffn.aux_ratio", "must be >= 0");
  const int64_t width = d_ff_ + d_aux_;
  const bool bias = cfg.ffn.bias;
  up = register_module("up", torch::nn::Linear(torch::nn::LinearOptions(d_, swiglu_ ? 2 * width : width).bias(bias)));
  down = register_module("down", torch::nn::Linear(torch::nn::LinearOptions(width, d_).bias(bias)));
}

at::Tensor DualFfnImpl::forward(const at::Tensor& x) {
  TORCH_CHECK(x.dim() == 3 && x.size(2) == d_, "DualFfn: x must be (B, T, ", d_, "), got ", x.sizes());
  if (swiglu_) {  // rows [0, W) of up are the gate, [W, 2W) the value: down(silu(gate) * value)
    return cast_linear(pha::kernels::swiglu(cast_linear(x, up)), down);  // kernels/llama_ops
  }
  return cast_linear(at::gelu(cast_linear(x, up)), down);  // (B, T, d_ff + d_aux) -> (B, T, d), x's dtype
}

std::vector<WeightSlice> DualFfnImpl::weight_slices() const {
  std::vector<WeightSlice> s = {
      {"main_up", "up.weight", 0, d_ff_, 0, 0, true},
      {"main_down", "down.weight", 0, d_, 0, d_ff_, true},
  };
  if (d_aux_ > 0) {
    s.push_back({"aux_up", "up.weight", d_ff_, d_ff_ + d_aux_, 0, 0, true});
    s.push_back({"aux_down", "down.weight", 0, d_, d_ff_, d_ff_ + d_aux_, true});
  }
  if (swiglu_) {  // the value half of up: rows W + [0, d_ff) and W + [d_ff, W)
    const int64_t w = d_ff_ + d_aux_;
    s[0].name = "main_gate";
    if (d_aux_ > 0) s[2].name = "aux_gate";
    s.push_back({"main_value", "up.weight", w, w + d_ff_, 0, 0, true});
    if (d_aux_ > 0) s.push_back({"aux_value", "up.weight", w + d_ff_, 2 * w, 0, 0, true});
  }
  return s;
}

}  // namespace pha::nn
