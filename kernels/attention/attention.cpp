// Dispatching attention ops: argument checks, the cosine normalisation, and the choice of the
// implementation (query-blocked ATen path; the PHA_HAVE_CUDA point for a fused CUDA op).
#include "attention/attention.h"
#include "common/kernel_select.h"

#include <algorithm>

#include <c10/util/Exception.h>

#include "attention/attention_blocked.h"
#include "attention/attention_cpu.h"

namespace pha::kernels {
namespace {

void check_qkv(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
  TORCH_CHECK(q.dim() == 4, "attention: q must be (B, T, Hq, hd), got ", q.sizes());
  TORCH_CHECK(k.dim() == 4 && k.sizes() == v.sizes(), "attention: k and v must be (B, S, G, hd) "
              "of one shape, got ", k.sizes(), " and ", v.sizes());
  TORCH_CHECK(k.size(0) == q.size(0) && k.size(3) == q.size(3),
              "attention: batch and head_dim of k ", k.sizes(), " must match q ", q.sizes());
  TORCH_CHECK(k.size(2) >= 1 && q.size(2) % k.size(2) == 0, "attention: kv heads (", k.size(2),
              ") must divide query heads (", q.size(2), ")");
  TORCH_CHECK(k.size(1) >= q.size(1), "attention: S (", k.size(1), ") must be >= T (", q.size(1), ")");
  TORCH_CHECK(at::isFloatingType(q.scalar_type()) && k.scalar_type() == q.scalar_type() &&
                  v.scalar_type() == q.scalar_type(),
              "attention: q, k, v must share one floating dtype");
  TORCH_CHECK(q.device() == k.device() && q.device() == v.device(),
              "attention: q, k, v must be on one device");
}

}  // namespace

int64_t attention_query_block(int64_t B, int64_t Hq, int64_t T, int64_t S, int64_t elem_size) {
  const int64_t row_bytes = std::max<int64_t>(1, B * Hq * S * elem_size);
  const int64_t fit = kAttentionBlockBudgetBytes / row_bytes;
  return std::clamp<int64_t>(fit, std::min<int64_t>(kMinQueryBlock, T), std::max<int64_t>(T, 1));
}

at::Tensor causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            int64_t block, AttentionBackward mode) {
  check_qkv(q, k, v);
  if (q.scalar_type() == at::kBFloat16 || q.scalar_type() == at::kHalf) {
    // The core runs in fp32 on purpose, on every device: cosine logits reach |s| = 100 (the
    // clamped scale), where bf16's spacing is 0.5, so bf16 scores would move probabilities by
    // tens of percent; the softmax statistics need fp32 as well (docs/model.md, "Precision").
    return causal_attention(q.to(at::kFloat), k.to(at::kFloat), v.to(at::kFloat), block, mode).to(q.scalar_type());
  }
  if (reference_kernel(KernelOp::Attention)) return ref::causal_attention(q, k, v);  // PHA_KERNELS
  if (mode == AttentionBackward::Auto && q.device().is_cpu() &&
      (q.scalar_type() == at::kFloat || q.scalar_type() == at::kDouble)) {
    return cpu_causal_attention(q, k, v, block);  // per-head GEMMs, in-place softmax, recompute
  }
  if (block <= 0) {
    block = attention_query_block(q.size(0), q.size(2), q.size(1), k.size(1), q.element_size());
  }
#ifdef PHA_HAVE_CUDA
  // Dispatch point for a fused CUDA attention op (q.is_cuda()); until one exists the blocked
  // ATen path serves CUDA tensors too.
#endif
  return blocked_causal_attention(q, k, v, block, mode);
}

at::Tensor cosine_queries(const at::Tensor& q, const at::Tensor& log_scale, double max_log_scale) {
  TORCH_CHECK(q.dim() == 4, "cosine_queries: q must be (B, T, Hq, hd), got ", q.sizes());
  TORCH_CHECK(log_scale.dim() == 1 && log_scale.size(0) == q.size(2),
              "cosine_queries: log_scale must be (Hq) = (", q.size(2), "), got ", log_scale.sizes());
  const at::Tensor scale = at::exp(at::clamp_max(log_scale, max_log_scale)).view({1, 1, -1, 1});
  const at::Tensor inv_norm = at::rsqrt(q.pow(2).sum(-1, /*keepdim=*/true).clamp_min(1e-24));
  return q * (inv_norm * scale.to(q.scalar_type()));  // (B, T, Hq, hd)
}

at::Tensor cosine_keys(const at::Tensor& k) {
  TORCH_CHECK(k.dim() == 4, "cosine_keys: k must be (B, S, G, hd), got ", k.sizes());
  return k * at::rsqrt(k.pow(2).sum(-1, /*keepdim=*/true).clamp_min(1e-24));  // (B, S, G, hd)
}

at::Tensor cosine_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            const at::Tensor& log_scale, double max_log_scale, int64_t block,
                            AttentionBackward mode) {
  check_qkv(q, k, v);
  if (reference_kernel(KernelOp::Attention) && q.scalar_type() != at::kBFloat16 && q.scalar_type() != at::kHalf)
    return ref::cosine_attention(q, k, v, log_scale, max_log_scale);
  return causal_attention(cosine_queries(q, log_scale, max_log_scale), cosine_keys(k), v, block, mode);
}

}  // namespace pha::kernels
