// The "sandwich" readout of a mixer matrix: for each layer, which of GSS and attention has
// the larger weight, and a one-line summary of where each dominates by depth (the paper: GSS
// highest in the first and last layers, attention in the middle). Pure, tested on its own.
#pragma once

#include <string>
#include <vector>

namespace pha::widgets {

struct SandwichReadout {
  std::vector<int> gssLayers;   // layers where w_gss > w_attn
  std::vector<int> attnLayers;  // layers where w_attn >= w_gss
  std::vector<int> noMixer;     // layers without a mixer (NaN rows) or without both branches
  bool isSandwich = false;      // GSS dominates at both ends, attention somewhere in between
  std::string summary;          // e.g. "GSS dominates layers 0, 3; attention layers 1-2: sandwich"
};

// weights: layer-major layers x branches with branch 0 = GSS and 1 = attention.
SandwichReadout readSandwich(int layers, int branches, const std::vector<float>& weights);

// How far a mixer matrix has moved from uniform mixing (1/k in a layer that mixes k branches):
// the movement a fixed 0..1 colour scale shows only faintly early in training. Layers without
// a mixer (NaN) and removed branches (weight 0) are left out.
struct MixerDeviation {
  double maxAbs = 0.0;     // largest |w - 1/k| over the mixed cells
  double signedAt = 0.0;   // w - 1/k at that cell
  int layer = -1;          // where (-1: no mixed layer)
  int branch = -1;
  double maxSpread = 0.0;  // largest (max_b w - min_b w) within one layer
  int spreadLayer = -1;
  std::string summary;     // e.g. "largest departure from uniform: attention +0.12 (layer 2); widest layer: 2 (spread 0.21)"
};

MixerDeviation mixerDeviation(int layers, int branches, const std::vector<float>& weights,
                              const std::vector<std::string>& branchNames = {"GSS", "attention", "FFN"});

}  // namespace pha::widgets
