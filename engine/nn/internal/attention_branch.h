// Attention branch: grouped-query attention with RoPE and scaled cosine attention (Swin v2).
//   w_qkv: d -> (Hq + 2G) * hd, no bias (one GEMM; rows: Hq*hd of Q, G*hd of K, G*hd of V)
//   RoPE on q and k, then logits = normalize(q) . normalize(k) * exp(min(s_h, scale_max)),
//   s_h = log_scale[h] (init ln 10), causal softmax, query head h reads KV head h / (Hq/G)
//   w_o: Hq * hd -> d, no bias
// attention.kind "softmax" (Transformer++, GPT-2): RoPE (positions "rope") or none (learned
// positions), logits q.k / sqrt(hd), no log-scale; attention.bias adds biases to w_qkv and w_o.
// Generation keeps a KV cache of the G heads (keys stored rotated and normalised).
// Precision: w_qkv and w_o run in x's dtype (bf16 under mixed precision); RoPE + normalisation
// (one fused op, kernels/rope_cosine) and the attention core in fp32; the output in x's dtype.
#pragma once

#include <vector>

#include <ATen/ATen.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "nn/decode_state.h"
#include "rope_cosine/rope_cosine.h"
#include "model/model_config.h"
#include "nn/internal/weight_slice.h"

namespace pha::nn {

class AttentionBranchImpl : public torch::nn::Module {
 public:
  explicit AttentionBranchImpl(const model::ModelConfig& cfg);

  at::Tensor forward(const at::Tensor& x);                    // (B, T, d) -> (B, T, d)
  at::Tensor prefill(const at::Tensor& x, KvCache& cache);    // forward + cache filled
  at::Tensor step(const at::Tensor& x, KvCache& cache);       // (B, 1, d) at position cache.len

  std::vector<WeightSlice> weight_slices() const;
  int64_t heads() const { return Hq_; }
  int64_t kv_heads() const { return G_; }
  int64_t head_dim() const { return hd_; }
  double scale_max() const { return scale_max_; }

  torch::nn::Linear w_qkv{nullptr};
  torch::nn::Linear w_o{nullptr};
  at::Tensor log_scale;  // (Hq) learnable log-scale s_h (cosine attention only; undefined for softmax)
  bool softmax() const { return softmax_; }

  // The hybrid lens (docs/lens.md): with a head set (>= 0), forward() also keeps that query
  // head's attention weights softmax(q k^T + causal mask), (B, T, T) fp32, the branch's own
  // logits (cosine: normalised q and k times the head's scale; softmax: q.k / sqrt(hd)).
  void set_capture_head(int64_t head) { capture_head_ = head; captured_ = at::Tensor(); }
  const at::Tensor& captured() const { return captured_; }

 private:
  struct Qkv {
    at::Tensor q;  // (B, T, Hq, hd) rotated, normalised and scaled (fp32)
    at::Tensor k;  // (B, T, G, hd) rotated and normalised (fp32)
    at::Tensor v;  // (B, T, G, hd) (fp32)
  };
  Qkv project(const at::Tensor& x, int64_t pos0);
  at::Tensor output(const at::Tensor& o, at::ScalarType dtype);  // (B, T, Hq, hd) -> (B, T, d) in dtype
  // RoPE tables for positions [pos0, pos0 + T); those from position 0 are kept between calls
  // (training reuses one T), recomputed when T, dtype or device change.
  const pha::kernels::RopeTables& tables(int64_t pos0, int64_t T, at::TensorOptions opts);

  int64_t d_, Hq_, G_, hd_;
  double rope_theta_, scale_max_;
  bool softmax_;  // attention.kind "softmax": q.k / sqrt(hd), no log_scale
  bool rope_;     // positions "rope" (else the model adds learned positions)
  pha::kernels::RopeTables tables_, step_tables_;
  int64_t capture_head_ = -1;
  at::Tensor captured_;
};
TORCH_MODULE(AttentionBranch);

}  // namespace pha::nn
