// Query-blocked causal attention (CPU path, ATen ops, any device): forward keeps either the
// probabilities of every block or only the per-row log-sum-exp (backward then recomputes them).
#pragma once

#include <ATen/ATen.h>

#include "attention/attention.h"

namespace pha::kernels {

// q (B, T, Hq, hd), k/v (B, S, G, hd) -> (B, T, Hq, hd). Shapes are checked by the caller.
at::Tensor blocked_causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                    int64_t block, AttentionBackward mode);

}  // namespace pha::kernels
