// Attention ops of the PHA attention branch: scaled cosine attention (Swin v2) with GQA and a
// causal mask. Layout of every tensor: (B, T, heads, head_dim), the layout the fused QKV
// projection produces, so no transpose is needed before or after the op.
//
//   q: (B, T, Hq, hd)   k, v: (B, S, G, hd)   G divides Hq; query head h reads KV head h / (Hq/G)
//   query i sits at absolute position S - T + i and sees keys 0 .. S - T + i (S > T: decoding
//   with a KV cache; S == T: training / prefill).
//
// causal_attention is the core softmax(q k^T + mask) v with no 1/sqrt(hd) (the cosine form
// carries its own scale). bf16 / fp16 inputs are computed in fp32 and the result cast back (on
// purpose: docs/model.md, "Precision"). Two implementations:
//  - CPU tensors in fp32/fp64 with mode Auto: attention_cpu.h (one (batch, head) pair at a
//    time, BLAS GEMMs on strided views, in-place causal softmax, always recompute in backward).
//  - Otherwise (CUDA, other dtypes, or an explicit backward mode): the query-blocked ATen path
//    (attention_blocked.h), which walks query blocks (keys beyond a block's last query are
// never touched: causal blocks cost about half of the full matrix). When all probabilities fit
// in kSaveProbabilitiesBytes they are kept for backward; otherwise backward recomputes them
// block by block from the saved log-sum-exp, so no more than one block of scores
// (B * Hq * block * S) exists at a time: T = 8192 trains without a T x T matrix per head.
#pragma once

#include <ATen/ATen.h>

namespace pha::kernels {

// Scores below this size (bytes) are processed in one block; larger ones are split in query
// blocks of at least kMinQueryBlock rows.
constexpr int64_t kAttentionBlockBudgetBytes = int64_t{8} << 20;
constexpr int64_t kMinQueryBlock = 16;
// Probabilities of all blocks are kept for backward up to this many bytes per call.
constexpr int64_t kSaveProbabilitiesBytes = int64_t{64} << 20;

// What the forward pass keeps for backward. Auto: the CPU kernel for CPU fp32/fp64 tensors,
// else the blocked path keeping probabilities when they fit the budget. SaveProbabilities and
// Recompute force the blocked ATen path with that choice.
enum class AttentionBackward { Auto = 0, SaveProbabilities = 1, Recompute = 2 };

// The query-block size causal_attention uses for these sizes (exposed for tests and benches).
int64_t attention_query_block(int64_t B, int64_t Hq, int64_t T, int64_t S, int64_t elem_size);

// softmax(q k^T + causal mask) v, GQA head mapping. Differentiable w.r.t. q, k, v.
// block <= 0: attention_query_block(...). Returns (B, T, Hq, hd).
at::Tensor causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            int64_t block = 0, AttentionBackward mode = AttentionBackward::Auto);

// Scaled cosine attention: q and k normalised along hd, logits scaled per query head by
// exp(min(log_scale_h, max_log_scale)); then causal_attention. log_scale: (Hq).
at::Tensor cosine_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            const at::Tensor& log_scale, double max_log_scale, int64_t block = 0,
                            AttentionBackward mode = AttentionBackward::Auto);

// q * exp(min(s, max)) / |q| and k / |k| (the inputs of causal_attention in cosine_attention).
at::Tensor cosine_queries(const at::Tensor& q, const at::Tensor& log_scale, double max_log_scale);
at::Tensor cosine_keys(const at::Tensor& k);

namespace ref {

// Full-matrix reference: K and V repeated to Hq heads, (B, Hq, T, S) scores materialised.
at::Tensor causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v);
at::Tensor cosine_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            const at::Tensor& log_scale, double max_log_scale);

}  // namespace ref
}  // namespace pha::kernels
