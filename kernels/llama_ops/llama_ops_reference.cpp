// The unfused ATen forms of llama_ops.h (what the model ran before the fused kernels).
#include "llama_ops/llama_ops.h"

namespace pha::kernels::ref {

at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& w, double eps) {
  return x * at::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + eps) * w.to(x.scalar_type());  // (..., d)
}

RopeQK rope_qk(const at::Tensor& qk, int64_t Hq, const RopeTables& tables, double q_scale) {
  const int64_t G = qk.size(2) - Hq;
  const at::Tensor q = apply_rope(qk.narrow(2, 0, Hq), tables) * q_scale;  // (B, T, Hq, hd)
  const at::Tensor k = apply_rope(qk.narrow(2, Hq, G), tables);            // (B, T, G, hd)
  return {q, k.contiguous()};
}

at::Tensor swiglu(const at::Tensor& gv) {
  const auto halves = gv.chunk(2, -1);
  return at::silu(halves[0]) * halves[1];  // (..., W)
}

}  // namespace pha::kernels::ref
