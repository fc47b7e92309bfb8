// Full-matrix attention reference for the tests: K/V explicitly repeated to the query heads and
// the whole (B, Hq, T, S) score tensor materialised. Plain autograd, no blocking.
#include "attention/attention.h"

#include <limits>

#include <c10/util/Exception.h>

namespace pha::kernels::ref {

at::Tensor causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  TORCH_CHECK(q.dim() == 4 && k.dim() == 4 && v.sizes() == k.sizes(), "ref::causal_attention: shapes");
  const int64_t T = q.size(1), S = k.size(1), Hq = q.size(2), G = k.size(2);
  TORCH_CHECK(Hq % G == 0 && S >= T, "ref::causal_attention: G must divide Hq and S >= T");
  const at::Tensor kr = k.repeat_interleave(Hq / G, /*dim=*/2);  // (B, S, Hq, hd)
  const at::Tensor vr = v.repeat_interleave(Hq / G, /*dim=*/2);  // (B, S, Hq, hd)
  const at::Tensor qh = q.transpose(1, 2);                       // (B, Hq, T, hd)
  at::Tensor s = at::matmul(qh, kr.permute({0, 2, 3, 1}));       // (B, Hq, T, S)
  const auto opts = at::TensorOptions().dtype(at::kLong).device(q.device());
  const at::Tensor mask = at::arange(S, opts).view({1, S}) > (at::arange(T, opts).view({T, 1}) + (S - T));
  s = s.masked_fill(mask, -std::numeric_limits<double>::infinity());
  const at::Tensor p = at::softmax(s, -1);                       // (B, Hq, T, S)
  return at::matmul(p, vr.transpose(1, 2)).transpose(1, 2).contiguous();  // (B, T, Hq, hd)
}

at::Tensor cosine_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            const at::Tensor& log_scale, double max_log_scale) {
  const at::Tensor qn = q / q.norm(2, {-1}, /*keepdim=*/true);
  const at::Tensor kn = k / k.norm(2, {-1}, /*keepdim=*/true);
  const at::Tensor scale = at::exp(at::clamp_max(log_scale, max_log_scale)).view({1, 1, -1, 1});
  return causal_attention(qn * scale, kn, v);
}

}  // namespace pha::kernels::ref
