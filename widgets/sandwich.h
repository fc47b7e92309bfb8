// The "sandwich" readout of a mixer matrix: for each layer, which of GSS and attention has
// the larger weight, and a one-line summary of where each dominates by depth (the paper: GSS
// highest in the first and last layers, attention in the middle). Pure, tested on its own.
#pragma once

#include <string>
#include <vector>

namespace pha::gui {

struct SandwichReadout {
  std::vector<int> gssLayers;   // layers where w_gss > w_attn
  std::vector<int> attnLayers;  // layers where w_attn >= w_gss
  std::vector<int> noMixer;     // layers without a mixer (NaN rows) or without both branches
  bool isSandwich = false;      // GSS dominates at both ends, attention somewhere in between
  std::string summary;          // e.g. "GSS dominates layers 0, 3; attention layers 1-2: sandwich"
};

// weights: layer-major layers x branches with branch 0 = GSS and 1 = attention.
SandwichReadout readSandwich(int layers, int branches, const std::vector<float>& weights);

}  // namespace pha::gui
