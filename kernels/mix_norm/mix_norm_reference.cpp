// Unfused reference of mix_residual_norm (ATen ops with autograd), the path for CUDA tensors.
#include <c10/util/Exception.h>

#include "mix_norm/mix_norm.h"

namespace pha::kernels::ref {

MixNormOut mix_residual_norm(const MixNormInputs& in) {
  const at::ScalarType dt = in.x.scalar_type();
  const int64_t d = in.x.size(-1);
  at::Tensor m;
  std::vector<at::Tensor> ms;
  for (size_t b = 0; b < in.ys.size(); ++b) {
    const at::Tensor y = in.ys[b].to(dt);
    const at::Tensor msb = y.pow(2).mean(-1, /*keepdim=*/true);  // (..., 1)
    ms.push_back(msb.detach().reshape({-1}));
    at::Tensor term = in.gains.empty() ? y : y * at::rsqrt(msb + in.rms_eps) * in.gains[b];
    if (in.mix.defined()) term = term * in.mix[static_cast<int64_t>(b)];
    m = m.defined() ? m + term : term;
  }
  const at::Tensor h = at::add(m, in.x, in.alpha);  // alpha * x + m
  return {at::layer_norm(h, {d}, in.ln_weight, in.ln_bias, in.ln_eps), at::stack(ms)};
}

}  // namespace pha::kernels::ref
