// Derived ModelConfig quantities and names. Built only while model_config.cpp (the JSON
// reader/writer, which defines the same functions) does not exist; see CMakeLists.txt.
#include "model/model_config.h"

#include <cmath>

namespace pha::model {

const char* branch_name(Branch b) {
  switch (b) {
    case Branch::Gss: return "gss";
    case Branch::Attention: return "attn";
    case Branch::Ffn: return "ffn";
  }
  return "?";
}

const char* block_kind_name(BlockKind k) {
  switch (k) {
    case BlockKind::Parallel: return "parallel";
    case BlockKind::Sequential: return "sequential";
    case BlockKind::Transformer: return "attn";
    case BlockKind::GssOnly: return "gss";
  }
  return "?";
}

int ModelConfig::d_aux() const { return static_cast<int>(std::lround(ffn.aux_ratio * d_ff())); }

double ModelConfig::deepnorm_alpha() const { return deepnorm ? std::pow(2.0 * n_layers, 0.25) : 1.0; }

double ModelConfig::deepnorm_beta() const { return deepnorm ? std::pow(8.0 * n_layers, -0.25) : 1.0; }

}  // namespace pha::model
