#include "nn/internal/attention_branch.h"

#include <cmath>
#include <limits>

#include <c10/util/Exception.h>
#include <torch/nn/init.h>
#include <torch/types.h>

#include "attention/attention.h"
#include "llama_ops/llama_ops.h"
#include "core/error.h"
#include "nn/internal/cast_linear.h"

namespace pha::nn {

AttentionBranchImpl::AttentionBranchImpl(const model::ModelConfig& cfg)
    : d_(cfg.d_model),
      Hq_(cfg.attention.heads),
      G_(cfg.attention.kv_heads),
      hd_(cfg.head_dim()),
      rope_theta_(cfg.attention.rope_theta),
      scale_max_(cfg.attention.scale_max),
      softmax_(cfg.attention.kind == "softmax"),
      rope_(cfg.positions == "rope") {
  if (Hq_ < 1) throw core::Error("model.attention.heads", "must be >= 1, got " + std::to_string(Hq_));
  if (G_ < 1 || Hq_ % G_ != 0) {
    throw core::Error("model.attention.kv_heads", "must divide attention.heads (" + std::to_string(Hq_) +
                                                "), got " + std::to_string(G_));
  }
  if (hd_ < 2 || hd_ % 2 != 0) {
    throw core::Error("model.attention.head_dim", "must be even and >= 2 (RoPE pairs), got " + std::to_string(hd_));
  }
  const bool bias = cfg.attention.bias;
  w_qkv = register_module(
      "w_qkv", torch::nn::Linear(torch::nn::LinearOptions(d_, (Hq_ + 2 * G_) * hd_).bias(bias)));
  w_o = register_module("w_o", torch::nn::Linear(torch::nn::LinearOptions(Hq_ * hd_, d_).bias(bias)));
  if (!softmax_) log_scale = register_parameter("log_scale", at::full({Hq_}, cfg.attention.scale_init));
}

const pha::kernels::RopeTables& AttentionBranchImpl::tables(int64_t pos0, int64_t T, at::TensorOptions opts) {
  if (pos0 != 0) {  // decoding: a few positions at a time, not worth caching
    step_tables_ = pha::kernels::rope_tables(pos0, T, hd_, rope_theta_, opts);
    return step_tables_;
  }
  const at::Tensor& c = tables_.cos;
  if (!c.defined() || c.size(0) != T || c.scalar_type() != opts.dtype().toScalarType() || c.device() != opts.device())
    tables_ = pha::kernels::rope_tables(0, T, hd_, rope_theta_, opts);
  return tables_;
}

AttentionBranchImpl::Qkv AttentionBranchImpl::project(const at::Tensor& x, int64_t pos0) {
  TORCH_CHECK(x.dim() == 3 && x.size(2) == d_, "AttentionBranch: x must be (B, T, ", d_, "), got ", x.sizes());
  const int64_t B = x.size(0), T = x.size(1);
  const auto qk_v = cast_linear(x, w_qkv).view({B, T, Hq_ + 2 * G_, hd_}).split_with_sizes({Hq_ + G_, G_}, 2);
  // RoPE, cosine normalisation and the logit scale in one pass; q and k leave in fp32, and v is
  // cast up to join them: the attention core runs in fp32 on purpose (docs/model.md, "Precision").
  if (softmax_) {
    // Standard attention: RoPE (or none, with learned positions) and q / sqrt(hd), in fp32 (the
    // master dtype, the weights' own) like the cosine path.
    const at::ScalarType core = w_qkv->weight.scalar_type();
    const double q_scale = 1.0 / std::sqrt(static_cast<double>(hd_));
    if (rope_) {  // kernels/llama_ops: q and k in one pass, the query scale folded in
      const auto r = pha::kernels::rope_qk(as_dtype(qk_v[0], core), Hq_, tables(pos0, T, x.options().dtype(core)),
                                           q_scale);
      return {r.q, r.k, as_dtype(qk_v[1], core)};
    }
    const at::Tensor q = as_dtype(qk_v[0].narrow(2, 0, Hq_), core) * q_scale;
    const at::Tensor k = as_dtype(qk_v[0].narrow(2, Hq_, G_), core);
    return {q, k.contiguous(), as_dtype(qk_v[1], core)};
  }
  const at::ScalarType core = log_scale.scalar_type();
  const auto qk = pha::kernels::rope_cosine(qk_v[0], Hq_, tables(pos0, T, x.options().dtype(core)), log_scale,
                                            scale_max_);
  return {qk.q, qk.k, as_dtype(qk_v[1], qk.q.scalar_type())};  // (B, T, Hq, hd), (B, T, G, hd) x 2
}

at::Tensor AttentionBranchImpl::output(const at::Tensor& o, at::ScalarType dtype) {
  return cast_linear(as_dtype(o, dtype).reshape({o.size(0), o.size(1), Hq_ * hd_}), w_o);  // (B, T, d)
}

at::Tensor AttentionBranchImpl::forward(const at::Tensor& x) {
  const Qkv p = project(x, 0);
  if (capture_head_ >= 0) {
    TORCH_CHECK(capture_head_ < Hq_, "AttentionBranch: head ", capture_head_, " of ", Hq_);
    torch::NoGradGuard no_grad;
    const int64_t T = p.q.size(1);
    const at::Tensor q = p.q.select(2, capture_head_).to(at::kFloat);                 // (B, T, hd)
    const at::Tensor k = p.k.select(2, capture_head_ / (Hq_ / G_)).to(at::kFloat);    // (B, T, hd)
    const at::Tensor mask = at::ones({T, T}, q.options().dtype(at::kBool)).triu(1);
    captured_ = at::matmul(q, k.transpose(1, 2)).masked_fill(mask, -std::numeric_limits<float>::infinity()).softmax(-1);
  }
  return output(pha::kernels::causal_attention(p.q, p.k, p.v), x.scalar_type());
}

at::Tensor AttentionBranchImpl::prefill(const at::Tensor& x, KvCache& cache) {
  TORCH_CHECK(cache.len == 0, "AttentionBranch::prefill: the cache must be empty");
  const Qkv p = project(x, 0);
  cache.append(p.k, p.v);
  return output(pha::kernels::causal_attention(p.q, p.k, p.v), x.scalar_type());
}

at::Tensor AttentionBranchImpl::step(const at::Tensor& x, KvCache& cache) {
  TORCH_CHECK(x.dim() == 3 && x.size(1) == 1, "AttentionBranch::step: x must be (B, 1, d), got ", x.sizes());
  const Qkv p = project(x, cache.len);
  cache.append(p.k, p.v);
  return output(pha::kernels::causal_attention(p.q, cache.keys(), cache.values()), x.scalar_type());
}

std::vector<WeightSlice> AttentionBranchImpl::weight_slices() const {
  const int64_t q = Hq_ * hd_, kv = G_ * hd_;
  return {
      {"w_q", "w_qkv.weight", 0, q, 0, 0, false},
      {"w_k", "w_qkv.weight", q, q + kv, 0, 0, false},
      {"w_v", "w_qkv.weight", q + kv, q + 2 * kv, 0, 0, true},
      {"w_o", "w_o.weight", 0, d_, 0, 0, true},
  };
}

}  // namespace pha::nn
