// RoPE tables, the literal RoPE rotation, and the unfused reference of rope_cosine (ATen ops
// with autograd; also the path for CUDA tensors).
#include <c10/util/Exception.h>

#include "attention/attention.h"
#include "common/row_chunks.h"
#include "rope_cosine/rope_cosine.h"

namespace pha::kernels {

RopeTables rope_tables(int64_t pos0, int64_t T, int64_t hd, double base, at::TensorOptions opts) {
  TORCH_CHECK(hd % 2 == 0, "RoPE: head_dim must be even, got ", hd);
  const auto d64 = at::TensorOptions().dtype(at::kDouble);
  const at::Tensor i = at::arange(hd / 2, d64);                        // (hd/2)
  const at::Tensor theta = at::pow(base, i * (-2.0 / static_cast<double>(hd)));
  const at::Tensor pos = at::arange(pos0, pos0 + T, d64);              // (T)
  const at::Tensor ang = at::outer(pos, theta);                        // (T, hd/2)
  return {at::cos(ang).to(opts), at::sin(ang).to(opts)};
}

at::Tensor apply_rope(const at::Tensor& x, const RopeTables& tables) {
  TORCH_CHECK(x.dim() == 4, "apply_rope: x must be (B, T, H, hd), got ", x.sizes());
  const int64_t T = x.size(1), half = x.size(3) / 2;
  TORCH_CHECK(tables.cos.size(0) == T && tables.cos.size(1) == half,
              "apply_rope: tables must be (", T, ", ", half, "), got ", tables.cos.sizes());
  const at::Tensor c = tables.cos.view({1, T, 1, half});
  const at::Tensor s = tables.sin.view({1, T, 1, half});
  const auto halves = x.chunk(2, 3);
  const at::Tensor &x1 = halves[0], &x2 = halves[1];
  return at::cat({x1 * c - x2 * s, x2 * c + x1 * s}, 3);  // (B, T, H, hd)
}

namespace ref {

RopeCosine rope_cosine(const at::Tensor& qk, int64_t Hq, const RopeTables& tables, const at::Tensor& log_scale,
                       double max_log_scale) {
  const at::ScalarType dt = detail::opmath_dtype(qk.scalar_type());
  const RopeTables t{tables.cos.to(dt), tables.sin.to(dt)};
  const at::Tensor r = apply_rope(qk.to(dt), t);  // (B, T, Hq + G, hd)
  const int64_t G = qk.size(2) - Hq;
  return {cosine_queries(r.narrow(2, 0, Hq), log_scale, max_log_scale), cosine_keys(r.narrow(2, Hq, G))};
}

}  // namespace ref
}  // namespace pha::kernels
