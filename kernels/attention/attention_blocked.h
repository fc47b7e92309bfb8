// Query-blocked causal attention (CPU path, ATen ops, any device): forward keeps only the
// per-row log-sum-exp; backward recomputes each block's probabilities from it.
#pragma once

#include <ATen/ATen.h>

namespace pha::kernels {

// q (B, T, Hq, hd), k/v (B, S, G, hd) -> (B, T, Hq, hd). Shapes are checked by the caller.
at::Tensor blocked_causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                    int64_t block);

}  // namespace pha::kernels
