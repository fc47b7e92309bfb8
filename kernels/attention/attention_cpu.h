// Causal attention for CPU tensors (fp32, fp64), one (batch, query head) pair at a time: the
// scores of one query block against the keys it can see live in a small scratch matrix (a few
// MB, cache resident), the causal softmax runs in place on it, and every product is a BLAS GEMM
// on strided views of q, k, v and the output, so nothing is regrouped or copied for GQA and no
// (B, H, T, S) tensor exists. Forward keeps only the per-row log-sum-exp; backward recomputes
// the probabilities block by block (flash attention's scheme).
//
// Threads: the (batch, kv head) pairs are independent tasks (each owns its outputs), spread
// over the workers, each of which runs its products single-threaded (CBLAS on raw pointers when
// the process has it). This scales the small per-head products, which a BLAS splitting each one
// over its threads does not: on the 2-core reference machine one product of 128 x 32 x 320
// gained 10% from a second BLAS thread. Results do not depend on the worker count.
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
// by the caller (attention.cpp). block <= 0: cpu_attention_query_block(...). workers <= 0: the
// larger of LibTorch's intra-op threads and the BLAS library's threads (so the small-machine
// policy's BLAS cores, docs/environment.md), at most one per (batch, kv head) pair.
at::Tensor cpu_causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                int64_t block = 0, int workers = 0);

}  // namespace pha::kernels
