#include "model/attention_branch.h"

#include <c10/util/Exception.h>
#include <torch/nn/init.h>

#include "attention/attention.h"
#include "core/error.h"
#include "model/rope.h"

namespace pha::model {

AttentionBranchImpl::AttentionBranchImpl(const ModelConfig& cfg)
    : d_(cfg.d_model),
      Hq_(cfg.attention.heads),
      G_(cfg.attention.kv_heads),
      hd_(cfg.head_dim()),
      rope_theta_(cfg.attention.rope_theta),
      scale_max_(cfg.attention.scale_max) {
  if (Hq_ < 1) throw Error("model.attention.heads", "must be >= 1, got " + std::to_string(Hq_));
  if (G_ < 1 || Hq_ % G_ != 0) {
    throw Error("model.attention.kv_heads", "must divide attention.heads (" + std::to_string(Hq_) +
                                                "), got " + std::to_string(G_));
  }
  if (hd_ < 2 || hd_ % 2 != 0) {
    throw Error("model.attention.head_dim", "must be even and >= 2 (RoPE pairs), got " + std::to_string(hd_));
  }
  w_qkv = register_module(
      "w_qkv", torch::nn::Linear(torch::nn::LinearOptions(d_, (Hq_ + 2 * G_) * hd_).bias(false)));
  w_o = register_module("w_o", torch::nn::Linear(torch::nn::LinearOptions(Hq_ * hd_, d_).bias(false)));
  log_scale = register_parameter("log_scale", at::full({Hq_}, cfg.attention.scale_init));
}

AttentionBranchImpl::Qkv AttentionBranchImpl::project(const at::Tensor& x, int64_t pos0) {
  TORCH_CHECK(x.dim() == 3 && x.size(2) == d_, "AttentionBranch: x must be (B, T, ", d_, "), got ", x.sizes());
  const int64_t B = x.size(0), T = x.size(1);
  const auto qk_v = w_qkv(x).view({B, T, Hq_ + 2 * G_, hd_}).split_with_sizes({Hq_ + G_, G_}, 2);
  const RopeTables tables = rope_tables(pos0, T, hd_, rope_theta_, x.options());
  const auto qk = apply_rope(qk_v[0], tables).split_with_sizes({Hq_, G_}, 2);  // RoPE on q and k at once
  return {qk[0], qk[1], qk_v[1]};  // (B, T, Hq, hd), (B, T, G, hd), (B, T, G, hd)
}

at::Tensor AttentionBranchImpl::output(const at::Tensor& o) {
  return w_o(o.reshape({o.size(0), o.size(1), Hq_ * hd_}));  // (B, T, d)
}

at::Tensor AttentionBranchImpl::forward(const at::Tensor& x) {
  const Qkv p = project(x, 0);
  return output(pha::kernels::cosine_attention(p.q, p.k, p.v, log_scale, scale_max_));
}

at::Tensor AttentionBranchImpl::prefill(const at::Tensor& x, KvCache& cache) {
  TORCH_CHECK(cache.len == 0, "AttentionBranch::prefill: the cache must be empty");
  const Qkv p = project(x, 0);
  const at::Tensor kn = pha::kernels::cosine_keys(p.k);  // (B, T, G, hd)
  cache.append(kn, p.v);
  const at::Tensor qn = pha::kernels::cosine_queries(p.q, log_scale, scale_max_);
  return output(pha::kernels::causal_attention(qn, kn, p.v));
}

at::Tensor AttentionBranchImpl::step(const at::Tensor& x, KvCache& cache) {
  TORCH_CHECK(x.dim() == 3 && x.size(1) == 1, "AttentionBranch::step: x must be (B, 1, d), got ", x.sizes());
  const Qkv p = project(x, cache.len);
  cache.append(pha::kernels::cosine_keys(p.k), p.v);
  const at::Tensor qn = pha::kernels::cosine_queries(p.q, log_scale, scale_max_);  // (B, 1, Hq, hd)
  return output(pha::kernels::causal_attention(qn, cache.keys(), cache.values()));
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

}  // namespace pha::model
