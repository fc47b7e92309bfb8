// WeightSlice: one logical projection inside a (possibly fused) weight matrix, the unit of the
// DeepNorm initialisation. Fused matrices (GSS w_uv, attention w_qkv, FFN up/down) hold several
// logical projections as row blocks; each block is initialised with its own Xavier fan-out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pha::nn {

struct WeightSlice {
  std::string name;        // logical name relative to the branch, e.g. "w_u"
  std::string param;       // parameter name relative to the branch, e.g. "w_uv.weight"
  int64_t row_begin = 0;   // rows [row_begin, row_end) of the parameter (dim 0)
  int64_t row_end = 0;
  int64_t col_begin = 0;   // columns [col_begin, col_end) (dim 1); col_end 0: all columns
  int64_t col_end = 0;
  bool deepnorm_beta = false;  // Xavier-normal gain beta (else gain 1)
};

}  // namespace pha::nn
