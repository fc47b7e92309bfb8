// Dispatching GSS ops: real-arithmetic DSS-EXP kernel (one GEMM) and the FFT causal convolution.
// Every op is built from differentiable ATen calls, so it works on any device; a CUDA tensor
// reaches the PHA_HAVE_CUDA dispatch point, where a fused CUDA op plugs in.
#include "gss_conv/gss_conv.h"

#include <c10/util/Exception.h>

namespace pha::kernels {
namespace {

void check_params(const at::Tensor& lre, const at::Tensor& lim, const at::Tensor& cre,
                  const at::Tensor& cim) {
  TORCH_CHECK(lre.dim() == 1 && lim.dim() == 1 && lre.size(0) == lim.size(0),
              "dss: lre and lim must be (N) of one size, got ", lre.sizes(), " and ", lim.sizes());
  TORCH_CHECK(cre.dim() == 2 && cre.sizes() == cim.sizes() && cre.size(1) == lre.size(0),
              "dss: cre and cim must be (H, N) with N = ", lre.size(0), ", got ", cre.sizes(),
              " and ", cim.sizes());
  TORCH_CHECK(at::isFloatingType(lre.scalar_type()) && lim.scalar_type() == lre.scalar_type() &&
                  cre.scalar_type() == lre.scalar_type() && cim.scalar_type() == lre.scalar_type(),
              "dss: parameters must share one floating dtype, got ", lre.scalar_type(), ", ",
              lim.scalar_type(), ", ", cre.scalar_type(), ", ", cim.scalar_type());
}

}  // namespace

DssTerms dss_terms(const at::Tensor& lre, const at::Tensor& lim, const at::Tensor& cre,
                   const at::Tensor& cim) {
  check_params(lre, lim, cre, cim);
  const at::Tensor a = -at::exp(lre);  // (N) Re Lambda < 0
  const at::Tensor b = at::exp(lim);   // (N) Im Lambda
  const at::Tensor ea = at::exp(a);
  DssTerms out;
  out.decay_re = ea * at::cos(b);  // (N)
  out.decay_im = ea * at::sin(b);  // (N)
  // w = (exp(Lambda) - 1) / Lambda = (x + i y) / (a + i b)
  const at::Tensor x = out.decay_re - 1.0;
  const at::Tensor& y = out.decay_im;
  const at::Tensor inv_den = at::reciprocal(a * a + b * b);
  const at::Tensor w_re = (x * a + y * b) * inv_den;  // (N)
  const at::Tensor w_im = (y * a - x * b) * inv_den;  // (N)
  out.c_re = cre * w_re - cim * w_im;                 // (H, N)
  out.c_im = cre * w_im + cim * w_re;                 // (H, N)
  return out;
}

at::Tensor dss_power_basis(const at::Tensor& lre, const at::Tensor& lim, int64_t T) {
  TORCH_CHECK(T >= 1, "dss_power_basis: T must be >= 1, got ", T);
  TORCH_CHECK(lre.dim() == 1 && lim.sizes() == lre.sizes(), "dss_power_basis: lre, lim must be (N)");
  const auto dtype = lre.scalar_type();
  const at::Tensor t = at::arange(T, lre.options().dtype(at::kDouble));   // (T)
  const at::Tensor a = (-at::exp(lre.to(at::kDouble))).unsqueeze(1);      // (N, 1)
  const at::Tensor b = at::exp(lim.to(at::kDouble)).unsqueeze(1);         // (N, 1)
  const at::Tensor mag = at::exp(a * t);                                  // (N, T)
  const at::Tensor ang = b * t;                                           // (N, T)
  return at::cat({mag * at::cos(ang), mag * at::sin(ang)}, 0).to(dtype);  // (2N, T)
}

at::Tensor dss_kernel(const at::Tensor& lre, const at::Tensor& lim, const at::Tensor& cre,
                      const at::Tensor& cim, int64_t T) {
  const DssTerms terms = dss_terms(lre, lim, cre, cim);
  const at::Tensor basis = dss_power_basis(lre, lim, T);       // (2N, T)
  const at::Tensor coef = at::cat({terms.c_re, -terms.c_im}, 1);  // (H, 2N)
  return at::mm(coef, basis);                                  // (H, T)
}

at::Tensor gss_causal_conv(const at::Tensor& z, const at::Tensor& K, const at::Tensor& D) {
  TORCH_CHECK(z.dim() == 3, "gss_causal_conv: z must be (B, T, H), got ", z.sizes());
  const int64_t T = z.size(1), H = z.size(2);
  TORCH_CHECK(K.dim() == 2 && K.size(0) == H && K.size(1) == T,
              "gss_causal_conv: K must be (H, T) = (", H, ", ", T, "), got ", K.sizes());
  TORCH_CHECK(D.dim() == 1 && D.size(0) == H, "gss_causal_conv: D must be (H) = (", H, "), got ",
              D.sizes());
  TORCH_CHECK(at::isFloatingType(z.scalar_type()) && K.scalar_type() == z.scalar_type() &&
                  D.scalar_type() == z.scalar_type(),
              "gss_causal_conv: z, K, D must share one floating dtype, got ", z.scalar_type(), ", ",
              K.scalar_type(), ", ", D.scalar_type());
  TORCH_CHECK(z.device() == K.device() && z.device() == D.device(),
              "gss_causal_conv: z, K, D must be on one device");
#ifdef PHA_HAVE_CUDA
  // Dispatch point for a fused CUDA convolution; until one exists the ATen path below serves
  // CUDA tensors as well (cuFFT behind at::fft_*).
#endif
  const int64_t n = 2 * T;  // zero padding to 2T: linear, not circular, convolution
  const at::Tensor zf = at::fft_rfft(z, n, /*dim=*/1);            // (B, T+1, H) complex
  const at::Tensor kf = at::fft_rfft(K, n, /*dim=*/1).t();        // (T+1, H) complex
  const at::Tensor y = at::fft_irfft(zf * kf, n, /*dim=*/1);      // (B, 2T, H)
  return at::addcmul(y.narrow(1, 0, T), z, D);                    // (B, T, H)
}

}  // namespace pha::kernels
