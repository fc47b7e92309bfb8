// Runtime introspection of a built model as plain data (no torch): what the GUI plots.
// Produced by PhaModelImpl::introspect() (pha_model.h).
//
//   mixer_weights  L x 3, columns gss, attn, ffn: the softplus mixer weights of the layer's
//                  mixed (multi-branch) sublayer; a branch removed from it has weight 0. A layer
//                  without a mixed sublayer (sequential, transformer, gss-only layers) has a
//                  row of NaN: it has no mixer.
//   branch_rms     L x 3: RMS of each branch's raw output (before the per-branch RMSNorm) in the
//                  last forward pass; NaN where the layer has no such branch or before any forward.
//   params         parameter counts from the module tree, per layer and branch.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace pha::model {

struct FloatMatrix {
  int rows = 0;
  int cols = 0;
  std::vector<float> values;  // row-major, rows * cols
  float at(int r, int c) const { return values[static_cast<size_t>(r) * cols + c]; }
};

struct LayerParamCount {
  std::array<int64_t, 3> branch{0, 0, 0};  // gss, attn, ffn (all sublayers of the layer)
  int64_t norms_and_mixer = 0;             // per-branch RMSNorms, mixer p, post LayerNorms
  int64_t total = 0;
};

struct ModelIntrospection {
  std::vector<std::string> branch_names;  // {"gss", "attn", "ffn"}
  FloatMatrix mixer_weights;              // L x 3
  FloatMatrix branch_rms;                 // L x 3
  std::vector<LayerParamCount> layer_params;  // size L
  int64_t embedding_params = 0;
  int64_t head_params = 0;       // 0 when tied to the embedding
  int64_t final_norm_params = 0;
  int64_t total_params = 0;      // every parameter once (a tied head counts once)
};

}  // namespace pha::model
