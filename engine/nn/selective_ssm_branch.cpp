#include "nn/internal/selective_ssm_branch.h"

#include <cmath>

#include <c10/util/Exception.h>
#include <torch/types.h>

#include "core/error.h"
#include "nn/internal/cast_linear.h"
#include "selective_scan/selective_scan.h"

namespace pha::nn {

SelectiveSsmBranchImpl::SelectiveSsmBranchImpl(const model::ModelConfig& cfg)
    : E_(cfg.d_model),
      Di_(cfg.selective_inner()),
      N_(cfg.selective.state),
      K_(cfg.selective.conv),
      R_(cfg.selective_dt_rank()),
      dt_min_(cfg.selective.dt_min),
      dt_max_(cfg.selective.dt_max) {
  if (Di_ < 1) throw core::Error("model.selective.expand", "must be >= 1, got " + std::to_string(cfg.selective.expand));
  if (N_ < 1) throw core::Error("model.selective.state", "must be >= 1, got " + std::to_string(N_));
  if (K_ < 1) throw core::Error("model.selective.conv", "must be >= 1, got " + std::to_string(K_));
  in_proj = register_module("in_proj", torch::nn::Linear(torch::nn::LinearOptions(E_, 2 * Di_).bias(false)));
  conv1d = register_module(
      "conv1d", torch::nn::Conv1d(torch::nn::Conv1dOptions(Di_, Di_, K_).groups(Di_).bias(true)));
  x_proj = register_module("x_proj", torch::nn::Linear(torch::nn::LinearOptions(Di_, R_ + 2 * N_).bias(false)));
  dt_proj = register_module("dt_proj", torch::nn::Linear(torch::nn::LinearOptions(R_, Di_).bias(true)));
  out_proj = register_module("out_proj", torch::nn::Linear(torch::nn::LinearOptions(Di_, E_).bias(false)));
  A_log = register_parameter("A_log", at::empty({Di_, N_}));
  D = register_parameter("D", at::empty({Di_}));
  reset_ssm_parameters();
}

void SelectiveSsmBranchImpl::reset_ssm_parameters() {
  torch::NoGradGuard no_grad;
  // S4D-real: A[c, n] = -(n + 1) for every channel
  A_log.copy_(at::log(at::arange(1, N_ + 1, A_log.options())).unsqueeze(0).expand({Di_, N_}));
  D.fill_(1.0);
  const double std = 1.0 / std::sqrt(static_cast<double>(R_));
  dt_proj->weight.uniform_(-std, std);
  // softplus(bias) log-uniform in [dt_min, dt_max]: bias = dt + log(1 - exp(-dt)) = softplus^-1(dt)
  const at::Tensor u = at::rand({Di_}, dt_proj->bias.options());
  const at::Tensor dt = at::exp(u * (std::log(dt_max_) - std::log(dt_min_)) + std::log(dt_min_)).clamp_min(1e-4);
  dt_proj->bias.copy_(dt + at::log(-at::expm1(-dt)));
}

at::Tensor SelectiveSsmBranchImpl::A() const { return -at::exp(A_log); }

SelectiveSsmBranchImpl::Projected SelectiveSsmBranchImpl::project(const at::Tensor& x) {
  TORCH_CHECK(x.dim() == 3 && x.size(2) == E_, "SelectiveSsmBranch: x must be (B, T, ", E_, "), got ", x.sizes());
  // the GEMM in x's dtype; the rest of the SSM in the parameters' (fp32 under mixed precision)
  const at::Tensor xz = as_dtype(cast_linear(x, in_proj), A_log.scalar_type());  // (B, T, 2 Di)
  const auto parts = xz.split(Di_, 2);                                             // (B, T, Di) x 2
  return {parts[0], parts[1]};
}

at::Tensor SelectiveSsmBranchImpl::causal_conv(const at::Tensor& x) {
  const int64_t T = x.size(1);
  // (B, Di, T + K - 1) with K - 1 zeros on the left: output t sees inputs t - K + 1 .. t
  const at::Tensor y = at::conv1d(x.transpose(1, 2), conv1d->weight, conv1d->bias, /*stride=*/{1},
                                  /*padding=*/{K_ - 1}, /*dilation=*/{1}, /*groups=*/Di_);
  return y.narrow(2, 0, T).transpose(1, 2);  // (B, T, Di)
}

SelectiveSsmBranchImpl::Selection SelectiveSsmBranchImpl::select(const at::Tensor& xs) {
  const auto dbc = at::linear(xs, x_proj->weight).split_with_sizes({R_, N_, N_}, 2);  // (B, T, R), (B, T, N) x 2
  const at::Tensor delta = at::softplus(at::linear(dbc[0], dt_proj->weight, dt_proj->bias));  // (B, T, Di)
  return {delta, dbc[1], dbc[2]};
}

at::Tensor SelectiveSsmBranchImpl::output(const at::Tensor& y, const at::Tensor& xs, const at::Tensor& z,
                                          at::ScalarType out_dtype) {
  const at::Tensor gated = (y + xs * D) * at::silu(z);  // (B, T, Di)
  return cast_linear(as_dtype(gated, out_dtype), out_proj);  // (B, T, E) in x's dtype
}

at::Tensor SelectiveSsmBranchImpl::forward(const at::Tensor& x) {
  const Projected p = project(x);
  const at::Tensor xs = at::silu(causal_conv(p.x));  // (B, T, Di)
  const Selection s = select(xs);
  const at::Tensor y = pha::kernels::selective_scan(xs, s.delta, A(), s.B, s.C);  // (B, T, Di)
  return output(y, xs, p.z, x.scalar_type());
}

at::Tensor SelectiveSsmBranchImpl::prefill(const at::Tensor& x, S6State& state) {
  TORCH_CHECK(!state.h.defined(), "SelectiveSsmBranch::prefill: the state must be empty");
  const Projected p = project(x);
  const int64_t T = p.x.size(1);
  const at::Tensor xs = at::silu(causal_conv(p.x));  // (B, T, Di)
  const Selection s = select(xs);
  pha::kernels::SelectiveScanResult r = pha::kernels::selective_scan_with_state(xs, s.delta, A(), s.B, s.C);
  // the last K - 1 inputs of the convolution, zeros where the prompt is shorter
  state.conv = at::constant_pad_nd(p.x.transpose(1, 2), {K_ - 1, 0}).narrow(2, T, K_ - 1).contiguous();  // (B, Di, K - 1)
  state.h = r.h_last;                                                                                  // (B, Di, N)
  return output(as_dtype(r.y, xs.scalar_type()), xs, p.z, x.scalar_type());
}

at::Tensor SelectiveSsmBranchImpl::step(const at::Tensor& x, S6State& state) {
  TORCH_CHECK(x.dim() == 3 && x.size(1) == 1, "SelectiveSsmBranch::step: x must be (B, 1, E), got ", x.sizes());
  const Projected p = project(x);
  const int64_t Bn = x.size(0);
  if (!state.h.defined()) {
    state.conv = at::zeros({Bn, Di_, K_ - 1}, p.x.options());
    state.h = at::zeros({Bn, Di_, N_}, p.x.options());
  }
  const at::Tensor window = at::cat({state.conv, p.x.transpose(1, 2)}, 2);  // (B, Di, K), oldest first
  const at::Tensor conv = (window * conv1d->weight.squeeze(1)).sum(2) + conv1d->bias;  // (B, Di)
  state.conv = window.narrow(2, 1, K_ - 1).contiguous();
  const at::Tensor xs = at::silu(conv).unsqueeze(1);  // (B, 1, Di)
  const Selection s = select(xs);
  const at::Tensor y = pha::kernels::selective_scan_step(state.h, xs.select(1, 0), s.delta.select(1, 0), A(),
                                                         s.B.select(1, 0), s.C.select(1, 0));  // (B, Di)
  return output(y.unsqueeze(1), xs, p.z, x.scalar_type());  // (B, 1, E)
}

std::vector<WeightSlice> SelectiveSsmBranchImpl::weight_slices() const {
  // "w_o": the projection into the residual stream (the pre-norm init scales it by depth)
  return {
      {"in_x", "in_proj.weight", 0, Di_, 0, 0, true},
      {"in_z", "in_proj.weight", Di_, 2 * Di_, 0, 0, true},
      {"x_proj", "x_proj.weight", 0, R_ + 2 * N_, 0, 0, false},
      {"w_o", "out_proj.weight", 0, E_, 0, 0, true},
  };
}

}  // namespace pha::nn
