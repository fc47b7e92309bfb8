// The "sandwich" readout of a mixer matrix: for each layer, which of GSS and attention has
// the larger weight, and a one-line summary of where each dominates by depth (the paper: GSS
// highest in the first and last layers, attention in the middle). A branch "dominates" a layer
// only when its weight exceeds the other's by more than a stated margin (kDominanceMargin,
// 0.05 on the 0..1 weight scale); inside the margin the layer is "near uniform", so that the
// readout makes no claim at step 20 when every cell reads 0.33 / 0.34. Pure, tested on its own.
#pragma once

#include <string>
#include <vector>

namespace pha::widgets {

// How far one branch's weight must exceed the other's before the readout says it dominates.
inline constexpr double kDominanceMargin = 0.05;

struct SandwichReadout {
  std::vector<int> gssLayers;   // layers where w_gss > w_attn + margin
  std::vector<int> attnLayers;  // layers where w_attn > w_gss + margin
  std::vector<int> nearUniform; // layers that mix both, within the margin of each other
  std::vector<int> noMixer;     // layers without a mixer (NaN rows) or without both branches
  bool isSandwich = false;      // GSS dominates at both ends, attention somewhere in between
  double margin = kDominanceMargin;
  std::string summary;          // e.g. "GSS dominates layers 0, 3; attention dominates layers 1-2 - a ... sandwich"
};

// weights: layer-major layers x branches with branch 0 = GSS and 1 = attention.
SandwichReadout readSandwich(int layers, int branches, const std::vector<float>& weights,
                             double margin = kDominanceMargin);

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
  // e.g. "largest departure from uniform: attention +0.120 (layer 2); widest layer: 2 (max - min weight 0.210)";
  // prefixed "all weights within 0.05 of uniform: " when maxAbs is inside the margin.
  std::string summary;
};

MixerDeviation mixerDeviation(int layers, int branches, const std::vector<float>& weights,
                              const std::vector<std::string>& branchNames = {"GSS", "attention", "FFN"},
                              double margin = kDominanceMargin);

}  // namespace pha::widgets
