// Helpers shared by the fused CPU kernels: the accumulation type of a storage type, and a
// parallel loop over fixed chunks of rows whose per-chunk partial sums make reductions
// (parameter gradients) deterministic whatever the number of threads.
#pragma once

#include <algorithm>
#include <cstdint>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>

namespace pha::kernels::detail {

// Arithmetic type for a storage type: float for bf16 and fp32, double for fp64.
template <typename T> struct Acc { using type = float; };
template <> struct Acc<double> { using type = double; };
template <typename T> using acc_t = typename Acc<T>::type;

// Rows per chunk: small enough to spread over threads, large enough that the partial sums
// (chunks x width) stay a small fraction of the data.
constexpr int64_t kRowChunk = 64;

inline int64_t row_chunks(int64_t rows) { return std::max<int64_t>(1, (rows + kRowChunk - 1) / kRowChunk); }

// fn(chunk, row_begin, row_end) for every chunk of kRowChunk rows, chunks in parallel.
template <typename F>
void for_row_chunks(int64_t rows, const F& fn) {
  at::parallel_for(0, row_chunks(rows), 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) fn(c, c * kRowChunk, std::min(rows, (c + 1) * kRowChunk));
  });
}

// The dtype the fused kernels compute and return in for an input dtype: fp64 stays fp64,
// everything else (fp32, bf16, fp16) computes in fp32.
inline at::ScalarType opmath_dtype(at::ScalarType t) { return t == at::kDouble ? at::kDouble : at::kFloat; }

}  // namespace pha::kernels::detail
