// Plain data of the hybrid lens's model pass (no torch): what runtime::Trainer::lens_pass asks
// the model for and gets back (nn/lens_probe.h computes it; runtime/lens.h turns it into the
// lens's views; docs/lens.md).
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/model_introspection.h"

namespace pha::model {

struct LensPassRequest {
  // Branches removed for this pass: (layer, branch) with branch 0 gss, 1 attn, 2 ffn; layer -1
  // removes the branch in every layer. Every sublayer of the layer that has the branch.
  std::vector<std::pair<int, int>> knockouts;
  bool probe = false;          // per-token branch contributions and normed mean squares
  int attention_layer = -1;    // >= 0: keep this layer's attention weights of one head
  int attention_head = 0;
};

struct LensPassResult {
  int B = 0, T = 0, layers = 0;
  std::vector<float> nll;  // (B*T) nats per target; NaN where the target is not counted
  // probe: [layer][branch] (B*T), empty where the layer has no such branch. contribution: L2
  // norm over d of w_b * RMSNorm_b(y_b); normed_ms: mean over d of RMSNorm_b(y_b)^2.
  std::vector<std::array<std::vector<float>, 3>> contribution, normed_ms;
  std::vector<float> attention;  // (B, T, T) row = query, column = key; empty unless asked
};

}  // namespace pha::model
