// Reference GSS ops for the tests: DSS-EXP kernel in complex arithmetic as written in the spec,
// and the O(T^2) direct causal convolution. Slow on purpose; never on a training path.
#include "gss_conv/gss_conv.h"

#include <c10/util/Exception.h>

namespace pha::kernels::ref {

at::Tensor dss_kernel(const at::Tensor& lre, const at::Tensor& lim, const at::Tensor& cre,
                      const at::Tensor& cim, int64_t T) {
  TORCH_CHECK(lre.dim() == 1 && lim.sizes() == lre.sizes(), "ref::dss_kernel: lre, lim must be (N)");
  TORCH_CHECK(cre.dim() == 2 && cim.sizes() == cre.sizes() && cre.size(1) == lre.size(0),
              "ref::dss_kernel: cre, cim must be (H, N)");
  const at::Tensor lambda = at::complex(-at::exp(lre), at::exp(lim));           // (N) complex
  const at::Tensor c = at::complex(cre, cim);                                   // (H, N)
  const at::Tensor c_prime = c * (at::exp(lambda) - 1.0) / lambda;              // (H, N)
  const at::Tensor t = at::arange(T, lre.options()).to(lambda.scalar_type());   // (T)
  const at::Tensor powers = at::exp(lambda.unsqueeze(1) * t.unsqueeze(0));      // (N, T)
  return at::real(at::matmul(c_prime, powers)).contiguous();                    // (H, T)
}

at::Tensor gss_causal_conv(const at::Tensor& z, const at::Tensor& K, const at::Tensor& D) {
  TORCH_CHECK(z.dim() == 3, "ref::gss_causal_conv: z must be (B, T, H)");
  const int64_t T = z.size(1), H = z.size(2);
  TORCH_CHECK(K.dim() == 2 && K.size(0) == H && K.size(1) == T, "ref::gss_causal_conv: K must be (H, T)");
  TORCH_CHECK(D.dim() == 1 && D.size(0) == H, "ref::gss_causal_conv: D must be (H)");
  at::Tensor y = z * D;  // (B, T, H)
  for (int64_t lag = 0; lag < T; ++lag) {
    // y[:, t, :] += K[:, lag] * z[:, t - lag, :] for t >= lag
    y.narrow(1, lag, T - lag).add_(z.narrow(1, 0, T - lag) * K.select(1, lag));
  }
  return y;
}

}  // namespace pha::kernels::ref
