// Fused end of a sublayer: the branch RMSNorms, the mixer's weighted sum, the DeepNorm residual
// and the post-LayerNorm, in one pass over the rows (sublayer.h has the formulas):
//
//   ms_b  = mean(y_b^2)                                  per row, per branch
//   m     = sum_b w_b * g_b * y_b / sqrt(ms_b + rms_eps)   (gains: RMSNorm; mix: softplus weights)
//   out   = LayerNorm(alpha * x + m; ln_weight, ln_bias, ln_eps)
//
// Without gains the branches enter unnormalised (a sublayer with one branch); without mix the
// weights are 1. Branch outputs may be bf16 (the branches' GEMM dtype); x, the gains, mix and
// the LayerNorm parameters share the master dtype (fp32 or fp64), which is also the dtype of
// out: the statistics, the residual and the LayerNorm run in fp32 on purpose. Backward keeps
// the branch outputs, x, and three numbers per row and branch; it recomputes the rest.
// The reference (namespace ref) is the unfused ATen composition; CUDA tensors and other dtype
// combinations run it.
#pragma once

#include <vector>

#include <ATen/ATen.h>

namespace pha::kernels {

constexpr int kMaxMixBranches = 3;

struct MixNormInputs {
  std::vector<at::Tensor> ys;     // 1..kMaxMixBranches branch outputs (..., d), one shape and dtype
  std::vector<at::Tensor> gains;  // one RMSNorm gain (d) per branch, or empty: no branch norm
  at::Tensor mix;                 // (n) mixer weights, or undefined: all 1
  at::Tensor x;                   // (..., d) the sublayer input (residual)
  double alpha = 1.0;             // DeepNorm residual scale
  at::Tensor ln_weight, ln_bias;  // (d) post-LayerNorm
  double rms_eps = 1e-6, ln_eps = 1e-5;
};

struct MixNormOut {
  at::Tensor out;  // (..., d) in x's dtype
  at::Tensor ms;   // (n, rows) mean square of each branch row (the branch-RMS statistic), no gradient
};

// Differentiable w.r.t. ys, gains, mix, x, ln_weight and ln_bias.
MixNormOut mix_residual_norm(const MixNormInputs& in);

namespace ref {
MixNormOut mix_residual_norm(const MixNormInputs& in);
}  // namespace ref
}  // namespace pha::kernels
