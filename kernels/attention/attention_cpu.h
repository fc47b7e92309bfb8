// Causal attention for CPU tensors (fp32, fp64), one (batch, query head) pair at a time: the
// scores of one query block against the keys it can see live in a small scratch matrix (a few
// MB, cache resident), the causal softmax runs in place on it, and every product is a BLAS GEMM
// on strided views of q, k, v and the output, so nothing is regrouped or copied for GQA and no
// (B, H, T, S) tensor exists. Forward keeps only the per-row log-sum-exp; backward recomputes
// the probabilities block by block (flash attention's scheme).
#pragma once

#include <ATen/ATen.h>

namespace pha::kernels {

// Scratch budget per score matrix (rows x visible keys) of the CPU kernel.
constexpr int64_t kCpuScoreBudgetBytes = int64_t{2} << 20;
constexpr int64_t kCpuMinQueryBlock = 32;
// At most this many query rows per block: blocks beyond the causal diagonal are skipped, so
// smaller blocks skip more of the masked half (4 blocks at T = 512 compute 62.5% of T x T).
constexpr int64_t kCpuMaxQueryBlock = 128;

// The query-block size cpu_causal_attention uses for T queries against S keys.
int64_t cpu_attention_query_block(int64_t T, int64_t S, int64_t elem_size);

// q (B, T, Hq, hd), k/v (B, S, G, hd), CPU, fp32 or fp64 -> (B, T, Hq, hd). Shapes are checked
// by the caller (attention.cpp). block <= 0: cpu_attention_query_block(...).
at::Tensor cpu_causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                int64_t block = 0);

}  // namespace pha::kernels
