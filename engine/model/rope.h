// Rotary position embedding, half-split pairing: channel i pairs with i + hd/2 (i < hd/2) and
// the pair at position m turns by m * theta_i, theta_i = base^(-2i/hd).
#pragma once

#include <ATen/ATen.h>

namespace pha::model {

// cos and sin tables (T, hd/2) for positions [pos0, pos0 + T), computed in fp64 and cast.
struct RopeTables {
  at::Tensor cos, sin;
};
RopeTables rope_tables(int64_t pos0, int64_t T, int64_t hd, double base, at::TensorOptions opts);

// x (B, T, H, hd) rotated; returns a new tensor (B, T, H, hd).
at::Tensor apply_rope(const at::Tensor& x, const RopeTables& tables);

}  // namespace pha::model
