// Fused ops of the standard (Llama-style) blocks: the RMSNorm of single-branch sub-layers and of
// the final norm, and RoPE with the query scale of softmax attention (transformerpp, gpt2 with
// rope, sequential and single-branch models). Each is one pass forward and one backward instead
// of ATen's chain of elementwise ops and temporaries (at T 128 the chain, not the GEMMs, was most
// of transformerpp-tiny's non-GEMM time: docs/performance.md, "Where a small step goes").
//
//   rms_norm(x, w, eps) = x * rsqrt(mean(x^2, -1) + eps) * w      x (..., d), w (d)
//   rope_qk(qk, Hq, tables, s) = {RoPE(q) * s, RoPE(k)}            qk (B, T, Hq + G, hd): q heads
//                                 then k heads, a view of the fused projection (unit stride on hd);
//                                 the gradient of qk is written in one piece (no narrow / split
//                                 backward, no zero fill)
//   swiglu(gv) = silu(gv[..., :W]) * gv[..., W:]                   gv (..., 2W), the packed up
//                                 projection; its gradient in one piece too
//
// CPU fp32 / fp64 run the fused kernels; other devices and dtypes run the reference (namespace
// ref: the ATen composition the model used before, PHA_KERNELS=reference:rms_norm,rope,swiglu).
// rope_qk's fused result equals the reference bit for bit (the same float operations per
// element); rms_norm sums its squares in another order and swiglu computes silu as g * sigmoid(g)
// (each within 1e-6 relative in fp32, tested).
#pragma once

#include <ATen/ATen.h>

#include "rope_cosine/rope_cosine.h"  // RopeTables

namespace pha::kernels {

struct RopeQK {
  at::Tensor q;  // (B, T, Hq, hd), contiguous, scaled
  at::Tensor k;  // (B, T, G, hd), contiguous
};

at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& w, double eps);
RopeQK rope_qk(const at::Tensor& qk, int64_t Hq, const RopeTables& tables, double q_scale);
at::Tensor swiglu(const at::Tensor& gv);

namespace ref {
at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& w, double eps);
RopeQK rope_qk(const at::Tensor& qk, int64_t Hq, const RopeTables& tables, double q_scale);
at::Tensor swiglu(const at::Tensor& gv);
}  // namespace ref
}  // namespace pha::kernels
