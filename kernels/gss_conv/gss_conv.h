// GSS convolution ops: the DSS-EXP kernel K[h, t] and the causal convolution
// y = causal_conv(z, K) + D * z that the GSS branch runs over the sequence.
//
// DSS-EXP (step 1): Lambda_n = -exp(Lre_n) + i exp(Lim_n), shared by the H channels;
//   C'_{h,n} = (Cre + i Cim)_{h,n} * (exp(Lambda_n) - 1) / Lambda_n
//   K[h, t]  = Re sum_n C'_{h,n} exp(Lambda_n t),   t = 0 .. T-1
// The dispatching functions are differentiable (autograd) and check shapes and dtypes on entry;
// the reference functions (namespace ref) are the literal complex-arithmetic / O(T^2) forms the
// tests compare against.
#pragma once

#include <ATen/ATen.h>

namespace pha::kernels {

// The discretised state factor exp(Lambda) and the scaled output matrix C', both split into
// real and imaginary parts (the recurrent decoder runs on these).
struct DssTerms {
  at::Tensor decay_re, decay_im;  // (N)    Re / Im exp(Lambda)
  at::Tensor c_re, c_im;          // (H, N) Re / Im C'
};

// exp(Lambda) and C' from the raw parameters. lre, lim: (N); cre, cim: (H, N); one float dtype.
DssTerms dss_terms(const at::Tensor& lre, const at::Tensor& lim, const at::Tensor& cre,
                   const at::Tensor& cim);

// The powers exp(Lambda * t) for t = 0 .. T-1 as a real basis (2N, T): rows 0..N-1 the real
// parts, rows N..2N-1 the imaginary parts. Angles and decays are evaluated in fp64 (t * Im
// Lambda reaches 1e5 rad at long T) and cast to the dtype of lre. No gradient (decoding uses it
// to fill the recurrent state from a prompt).
at::Tensor dss_power_basis(const at::Tensor& lre, const at::Tensor& lim, int64_t T);

// K (H, T) in the dtype of the parameters: [C're, -C'im] (H, 2N) x basis (2N, T), as GEMMs over
// chunks of T so that no (2N, T) basis exists; backward recomputes the chunks.
at::Tensor dss_kernel(const at::Tensor& lre, const at::Tensor& lim, const at::Tensor& cre,
                      const at::Tensor& cim, int64_t T);

// y (B, T, H) = causal_conv(z, K) + D * z, with z (B, T, H), K (H, T), D (H).
// FFT with n = 2T (no wrap-around): irfft(rfft(z) * rfft(K))[..., :T]. Backward keeps z, K, D
// and recomputes the spectra.
at::Tensor gss_causal_conv(const at::Tensor& z, const at::Tensor& K, const at::Tensor& D);

namespace ref {

// K via complex tensors, exactly as written in the spec (complex128 when the inputs are fp64).
at::Tensor dss_kernel(const at::Tensor& lre, const at::Tensor& lim, const at::Tensor& cre,
                      const at::Tensor& cim, int64_t T);

// The O(T^2) direct convolution y[b,t,h] = sum_{s<=t} K[h,t-s] z[b,s,h] + D[h] z[b,t,h].
at::Tensor gss_causal_conv(const at::Tensor& z, const at::Tensor& K, const at::Tensor& D);

}  // namespace ref
}  // namespace pha::kernels
