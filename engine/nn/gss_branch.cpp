#include "nn/internal/gss_branch.h"

#include <c10/util/Exception.h>
#include <torch/nn/init.h>

#include "core/error.h"
#include "gss_conv/gss_conv.h"
#include "nn/internal/cast_linear.h"

namespace pha::nn {

GssBranchImpl::GssBranchImpl(const model::ModelConfig& cfg)
    : E_(cfg.d_model), F_(cfg.gss_expanded()), H_(cfg.gss.reduced), N_(cfg.gss.state) {
  if (F_ < 1) throw core::Error("model.gss.expanded", "must be >= 1 (or 0 for 4 * d_model)");
  if (H_ < 1) throw core::Error("model.gss.reduced", "must be >= 1, got " + std::to_string(H_));
  if (N_ < 1) throw core::Error("model.gss.state", "must be >= 1, got " + std::to_string(N_));
  w_uv = register_module("w_uv", torch::nn::Linear(torch::nn::LinearOptions(E_, F_ + H_).bias(false)));
  w_g = register_module("w_g", torch::nn::Linear(torch::nn::LinearOptions(H_, F_).bias(false)));
  w_o = register_module("w_o", torch::nn::Linear(torch::nn::LinearOptions(F_, E_).bias(true)));
  if (cfg.gss.inner_norm) {
    inner_norm = register_module(
        "inner_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({H_}).eps(1e-5)));
  }
  lre = register_parameter("lre", at::empty({N_}));
  lim = register_parameter("lim", at::empty({N_}));
  cre = register_parameter("cre", at::empty({H_, N_}));
  cim = register_parameter("cim", at::empty({H_, N_}));
  d = register_parameter("d", at::empty({H_}));
  reset_dss_parameters();
  torch::NoGradGuard no_grad;
  w_o->bias.zero_();
}

void GssBranchImpl::reset_dss_parameters() {
  torch::NoGradGuard no_grad;
  for (at::Tensor* p : {&lre, &lim, &cre, &cim, &d}) p->normal_(0.0, 1.0);
}

GssBranchImpl::Projected GssBranchImpl::project(const at::Tensor& x) {
  TORCH_CHECK(x.dim() == 3 && x.size(2) == E_, "GssBranch: x must be (B, T, ", E_, "), got ", x.sizes());
  // split (not two narrows): its backward is one cat instead of two zero-filled full copies
  const auto uv = at::gelu(cast_linear(x, w_uv)).split_with_sizes({F_, H_}, 2);  // (B, T, F), (B, T, H)
  // The DSS part (inner norm, kernel, FFT convolution) runs in the parameters' dtype (fp32) on
  // purpose, whatever the GEMM dtype: bf16 has no FFT on CPU and too few bits for the kernel.
  const at::Tensor v = as_dtype(uv[1], lre.scalar_type());
  return {uv[0], inner_norm ? inner_norm(v) : v.contiguous()};
}

at::Tensor GssBranchImpl::output(const at::Tensor& y, const at::Tensor& u) {
  // back to the GEMM dtype (u's): (B, T, H) -> (B, T, F) -> (B, T, E)
  return cast_linear(cast_linear(as_dtype(y, u.scalar_type()), w_g) * u, w_o);
}

at::Tensor GssBranchImpl::kernel(int64_t T) const {
  return pha::kernels::dss_kernel(lre, lim, cre, cim, T);  // (H, T)
}

at::Tensor GssBranchImpl::forward(const at::Tensor& x) {
  const Projected p = project(x);
  const at::Tensor y = pha::kernels::gss_causal_conv(p.z, kernel(p.z.size(1)), d);  // (B, T, H)
  return output(y, p.u);
}

at::Tensor GssBranchImpl::prefill(const at::Tensor& x, GssState& state) {
  TORCH_CHECK(!state.s_re.defined(), "GssBranch::prefill: the state must be empty");
  const Projected p = project(x);
  const int64_t T = p.z.size(1);
  const at::Tensor y = pha::kernels::gss_causal_conv(p.z, kernel(T), d);  // (B, T, H)
  // s_{T-1}[b,h,n] = sum_t z[b,t,h] exp(Lambda_n (T-1-t)): one GEMM with the reversed powers.
  const at::Tensor basis = pha::kernels::dss_power_basis(lre, lim, T).flip({1});  // (2N, T)
  const at::Tensor s = at::matmul(p.z.transpose(1, 2), basis.t());                // (B, H, 2N)
  state.s_re = s.narrow(2, 0, N_).contiguous();
  state.s_im = s.narrow(2, N_, N_).contiguous();
  return output(y, p.u);
}

at::Tensor GssBranchImpl::step(const at::Tensor& x, GssState& state) {
  TORCH_CHECK(x.dim() == 3 && x.size(1) == 1, "GssBranch::step: x must be (B, 1, E), got ", x.sizes());
  const Projected p = project(x);
  const at::Tensor z = p.z.select(1, 0);  // (B, H)
  const pha::kernels::DssTerms t = pha::kernels::dss_terms(lre, lim, cre, cim);
  if (!state.s_re.defined()) {
    state.s_re = at::zeros({x.size(0), H_, N_}, z.options());
    state.s_im = at::zeros({x.size(0), H_, N_}, z.options());
  }
  const at::Tensor zi = z.unsqueeze(2);  // (B, H, 1)
  at::Tensor s_re = t.decay_re * state.s_re - t.decay_im * state.s_im + zi;  // (B, H, N)
  at::Tensor s_im = t.decay_re * state.s_im + t.decay_im * state.s_re;       // (B, H, N)
  const at::Tensor y = (s_re * t.c_re - s_im * t.c_im).sum(2) + d * z;      // (B, H)
  state.s_re = std::move(s_re);
  state.s_im = std::move(s_im);
  return output(y.unsqueeze(1), p.u);  // (B, 1, E)
}

std::vector<WeightSlice> GssBranchImpl::weight_slices() const {
  return {
      {"w_u", "w_uv.weight", 0, F_, 0, 0, true},
      {"w_v", "w_uv.weight", F_, F_ + H_, 0, 0, true},
      {"w_g", "w_g.weight", 0, F_, 0, 0, true},
      {"w_o", "w_o.weight", 0, E_, 0, 0, true},
  };
}

}  // namespace pha::nn
