// Fused front end of the attention branch: RoPE on the q and k heads, cosine normalisation and
// the per-head logit scale, in one pass over the fused projection's q and k heads.
//
//   qk (B, T, Hq + G, hd): heads [0, Hq) are queries, [Hq, Hq + G) keys (a view of the w_qkv
//   output, any float dtype, unit stride along hd)
//   r = RoPE(x)  (half-split pairs: channel i pairs with i + hd/2 and turns by m * theta_i)
//   q_hat = exp(min(s_h, max_log_scale)) * r / |r|      k_hat = r / |r|    (|r| clamped at 1e-12)
// The results are fp32 (fp64 for fp64 input) whatever the input dtype: the attention core and
// its softmax statistics run in fp32 on purpose (docs/model.md, "Precision").
// Backward keeps only the outputs (the attention core holds them anyway) and one inverse norm
// per head row. The reference (namespace ref) is the unfused ATen composition; CUDA tensors and
// other dtypes run it.
#pragma once

#include <ATen/ATen.h>

namespace pha::kernels {

// cos and sin tables (T, hd/2) for positions [pos0, pos0 + T), theta_i = base^(-2i/hd),
// computed in fp64 and cast to opts.
struct RopeTables {
  at::Tensor cos, sin;
};
RopeTables rope_tables(int64_t pos0, int64_t T, int64_t hd, double base, at::TensorOptions opts);

// x (B, T, H, hd) rotated by the tables; a new tensor in the promoted dtype (the literal form).
at::Tensor apply_rope(const at::Tensor& x, const RopeTables& tables);

struct RopeCosine {
  at::Tensor q;  // (B, T, Hq, hd) scaled, unit-norm queries
  at::Tensor k;  // (B, T, G, hd) unit-norm keys
};

// tables: (T, hd/2), in any float dtype (cast to the result dtype); log_scale: (Hq).
// Differentiable w.r.t. qk and log_scale.
RopeCosine rope_cosine(const at::Tensor& qk, int64_t Hq, const RopeTables& tables, const at::Tensor& log_scale,
                       double max_log_scale);

namespace ref {
RopeCosine rope_cosine(const at::Tensor& qk, int64_t Hq, const RopeTables& tables, const at::Tensor& log_scale,
                       double max_log_scale);
}  // namespace ref
}  // namespace pha::kernels
