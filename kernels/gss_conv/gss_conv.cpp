// Dispatching GSS ops: real-arithmetic DSS-EXP kernel (GEMMs over chunks of T) and the FFT
// causal convolution. Both are autograd functions written with device-generic ATen calls, so
// they work on any device; a CUDA tensor reaches the PHA_HAVE_CUDA dispatch point, where a
// fused CUDA op plugs in. Memory: neither keeps an O(T) temporary beyond its inputs for
// backward (the kernel keeps its (H, 2N) coefficients, the convolution z and K; spectra and
// power bases are recomputed), so long sequences train in memory linear in T with a small
// constant.
#include "gss_conv/gss_conv.h"
#include "common/kernel_select.h"

#include <algorithm>

#include <ATen/record_function.h>
#include <c10/util/Exception.h>
#include <torch/csrc/autograd/custom_function.h>

namespace pha::kernels {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Positions per chunk of the power basis: (2N, 1024) fp64 is 1 MB at N = 64.
constexpr int64_t kBasisChunk = 1024;

struct Basis {
  at::Tensor re, im;  // (N, n) fp64: exp(a t) cos(b t), exp(a t) sin(b t)
  at::Tensor t;       // (n) fp64 positions
};

// The power basis for positions [t0, t0 + n), in fp64 (angles reach 1e5 rad at long T).
Basis power_basis(const at::Tensor& lre, const at::Tensor& lim, int64_t t0, int64_t n) {
  const at::Tensor t = at::arange(t0, t0 + n, lre.options().dtype(at::kDouble));  // (n)
  const at::Tensor a = (-at::exp(lre.detach().to(at::kDouble))).unsqueeze(1);      // (N, 1)
  const at::Tensor b = at::exp(lim.detach().to(at::kDouble)).unsqueeze(1);         // (N, 1)
  const at::Tensor mag = at::exp(a * t);                                            // (N, n)
  const at::Tensor ang = b * t;                                                     // (N, n)
  return {mag * at::cos(ang), mag * at::sin(ang), t};
}

// K = coef (H, 2N) x basis(lre, lim) (2N, T), chunk by chunk over T. Backward: dcoef = dK W^T,
// dW = coef^T dK, and d(Re, Im Lambda) from dW: W_re = e^{at} cos(bt), W_im = e^{at} sin(bt),
// so da = sum_t t (dW_re W_re + dW_im W_im), db = sum_t t (dW_im W_re - dW_re W_im).
struct DssBasisProductFn : public torch::autograd::Function<DssBasisProductFn> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& coef, const at::Tensor& lre,
                            const at::Tensor& lim, int64_t T) {
    RECORD_FUNCTION("pha::dss_kernel", std::vector<c10::IValue>());  // named in --trace files
    at::Tensor K = at::empty({coef.size(0), T}, coef.options());  // (H, T)
    for (int64_t t0 = 0; t0 < T; t0 += kBasisChunk) {
      const int64_t n = std::min(kBasisChunk, T - t0);
      const Basis w = power_basis(lre, lim, t0, n);
      K.narrow(1, t0, n).copy_(at::mm(coef, at::cat({w.re, w.im}, 0).to(coef.scalar_type())));
    }
    ctx->save_for_backward({coef, lre, lim});
    ctx->saved_data["T"] = T;
    return K;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto s = ctx->get_saved_variables();
    const at::Tensor &coef = s[0], &lre = s[1], &lim = s[2];
    const int64_t T = ctx->saved_data["T"].toInt(), N = lre.size(0);
    const at::Tensor dK = grads[0];
    at::Tensor dcoef = at::zeros_like(coef);
    at::Tensor da = at::zeros({N}, lre.options().dtype(at::kDouble)), db = at::zeros_like(da);
    for (int64_t t0 = 0; t0 < T; t0 += kBasisChunk) {
      const int64_t n = std::min(kBasisChunk, T - t0);
      const Basis w = power_basis(lre, lim, t0, n);
      const at::Tensor dKc = dK.narrow(1, t0, n);                                // (H, n)
      dcoef.addmm_(dKc, at::cat({w.re, w.im}, 0).to(coef.scalar_type()).t());   // (H, 2N)
      const at::Tensor dW = at::mm(coef.t(), dKc).to(at::kDouble);               // (2N, n)
      const at::Tensor dre = dW.narrow(0, 0, N), dim = dW.narrow(0, N, N);
      da += ((dre * w.re + dim * w.im) * w.t).sum(1);
      db += ((dim * w.re - dre * w.im) * w.t).sum(1);
    }
    // a = -exp(lre), b = exp(lim): da/dlre = a, db/dlim = b
    const at::Tensor dlre = da * (-at::exp(lre.detach().to(at::kDouble)));
    const at::Tensor dlim = db * at::exp(lim.detach().to(at::kDouble));
    return {dcoef, dlre.to(lre.scalar_type()), dlim.to(lim.scalar_type()), at::Tensor()};
  }
};

// y = irfft(rfft(z, 2T) rfft(K, 2T))[:T] + D z. Keeps z, K and D; backward recomputes the
// spectra: dz = corr(dy, K) + D dy, dK = sum_b corr(dy, z), both as irfft(DY conj(X)) (zero
// padding to 2T: no wrap-around), dD = sum dy z.
struct GssConvFn : public torch::autograd::Function<GssConvFn> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& z, const at::Tensor& K, const at::Tensor& D) {
    RECORD_FUNCTION("pha::gss_causal_conv", std::vector<c10::IValue>());
    const int64_t T = z.size(1), n = 2 * T;  // zero padding to 2T: linear, not circular, convolution
    const at::Tensor zf = at::fft_rfft(z, n, /*dim=*/1);                 // (B, T+1, H) complex
    const at::Tensor kf = at::fft_rfft(K, n, /*dim=*/1).t();             // (T+1, H) complex
    const at::Tensor y = at::fft_irfft(zf * kf, n, /*dim=*/1);           // (B, 2T, H)
    ctx->save_for_backward({z, K, D});
    return at::addcmul(y.narrow(1, 0, T), z, D);                         // (B, T, H)
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto s = ctx->get_saved_variables();
    const at::Tensor &z = s[0], &K = s[1], &D = s[2];
    const at::Tensor& dy = grads[0];                                     // (B, T, H)
    const int64_t T = z.size(1), n = 2 * T;
    const at::Tensor dyf = at::fft_rfft(dy, n, /*dim=*/1);               // (B, T+1, H)
    at::Tensor dz, dK, dD;
    if (ctx->needs_input_grad(0)) {
      const at::Tensor kf = at::fft_rfft(K, n, /*dim=*/1).t();           // (T+1, H)
      dz = at::addcmul(at::fft_irfft(dyf * kf.conj(), n, 1).narrow(1, 0, T), dy, D);
    }
    if (ctx->needs_input_grad(1)) {
      const at::Tensor zf = at::fft_rfft(z, n, /*dim=*/1);               // (B, T+1, H)
      dK = at::fft_irfft((dyf * zf.conj()).sum(0), n, 0).narrow(0, 0, T).t().contiguous();  // (H, T)
    }
    if (ctx->needs_input_grad(2)) dD = (dy * z).sum(at::IntArrayRef{0, 1});
    return {dz, dK, dD};
  }
};

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
  const Basis w = power_basis(lre, lim, 0, T);
  return at::cat({w.re, w.im}, 0).to(lre.scalar_type());  // (2N, T), no gradient
}

at::Tensor dss_kernel(const at::Tensor& lre, const at::Tensor& lim, const at::Tensor& cre,
                      const at::Tensor& cim, int64_t T) {
  TORCH_CHECK(T >= 1, "dss_kernel: T must be >= 1, got ", T);
  if (reference_kernel(KernelOp::GssConv)) return ref::dss_kernel(lre, lim, cre, cim, T);  // PHA_KERNELS
  const DssTerms terms = dss_terms(lre, lim, cre, cim);
  const at::Tensor coef = at::cat({terms.c_re, -terms.c_im}, 1);  // (H, 2N)
  return DssBasisProductFn::apply(coef, lre, lim, T);            // (H, T)
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
  if (reference_kernel(KernelOp::GssConv)) return ref::gss_causal_conv(z, K, D);  // PHA_KERNELS
  return GssConvFn::apply(z, K, D);  // (B, T, H)
}

}  // namespace pha::kernels
