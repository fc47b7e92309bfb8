#include "widgets/sandwich.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace pha::widgets {

namespace {
std::string ranges(const std::vector<int>& v) {
  std::ostringstream o;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (i) o << ", ";
    o << v[i];
    if (j > i) o << "-" << v[j];
    i = j + 1;
  }
  return o.str();
}

// "0.05": the margin as the readout states it.
std::string margin_text(double margin) {
  std::ostringstream o;
  o << std::setprecision(2) << margin;
  return o.str();
}
}  // namespace

SandwichReadout readSandwich(int layers, int branches, const std::vector<float>& weights, double margin) {
  SandwichReadout r;
  r.margin = margin;
  if (layers <= 0 || branches < 2 || weights.size() != static_cast<std::size_t>(layers) * branches) {
    r.summary = "no mixer weights";
    return r;
  }
  std::vector<int> mixed;  // per mixed layer, by depth: 1 GSS, 2 attention, 0 near uniform
  for (int l = 0; l < layers; ++l) {
    const float g = weights[static_cast<std::size_t>(l) * branches + 0];
    const float a = weights[static_cast<std::size_t>(l) * branches + 1];
    // A removed branch has weight 0 in a mixed layer: no comparison to make there.
    if (!std::isfinite(g) || !std::isfinite(a) || g == 0.0f || a == 0.0f) {
      r.noMixer.push_back(l);
      continue;
    }
    const double diff = static_cast<double>(g) - static_cast<double>(a);
    if (diff > margin) {
      r.gssLayers.push_back(l);
      mixed.push_back(1);
    } else if (-diff > margin) {
      r.attnLayers.push_back(l);
      mixed.push_back(2);
    } else {
      r.nearUniform.push_back(l);
      mixed.push_back(0);
    }
  }
  if (mixed.size() >= 3 && mixed.front() == 1 && mixed.back() == 1) {
    for (std::size_t i = 1; i + 1 < mixed.size(); ++i) r.isSandwich |= mixed[i] == 2;
  }
  const auto layers_word = [](const std::vector<int>& v) { return v.size() > 1 ? "layers " : "layer "; };
  std::ostringstream o;
  if (mixed.empty()) {
    o << "no layer mixes GSS and attention";
  } else if (r.gssLayers.empty() && r.attnLayers.empty()) {
    o << "GSS and attention weights still near uniform in every layer (within " << margin_text(margin)
      << " of each other)";
  } else {
    const char* sep = "";
    if (!r.gssLayers.empty()) {
      o << "GSS dominates " << layers_word(r.gssLayers) << ranges(r.gssLayers);
      sep = "; ";
    }
    if (!r.attnLayers.empty()) {
      o << sep << "attention dominates " << layers_word(r.attnLayers) << ranges(r.attnLayers);
      sep = "; ";
    }
    if (!r.nearUniform.empty())
      o << sep << layers_word(r.nearUniform) << ranges(r.nearUniform) << " near uniform (within "
        << margin_text(margin) << ")";
    o << (r.isSandwich ? " - a GSS/attention sandwich" : "");
  }
  r.summary = o.str();
  return r;
}

MixerDeviation mixerDeviation(int layers, int branches, const std::vector<float>& weights,
                              const std::vector<std::string>& branchNames, double margin) {
  MixerDeviation d;
  if (layers <= 0 || branches < 2 || weights.size() != static_cast<std::size_t>(layers) * branches) {
    d.summary = "no mixer weights";
    return d;
  }
  for (int l = 0; l < layers; ++l) {
    const float* row = weights.data() + static_cast<std::size_t>(l) * branches;
    int k = 0;
    float lo = 1.0f, hi = 0.0f;
    for (int b = 0; b < branches; ++b)
      if (std::isfinite(row[b]) && row[b] > 0.0f) {
        ++k;
        lo = std::min(lo, row[b]);
        hi = std::max(hi, row[b]);
      }
    if (k < 2) continue;  // no mixer here, or a single branch left
    if (hi - lo > d.maxSpread || d.spreadLayer < 0) {
      d.maxSpread = hi - lo;
      d.spreadLayer = l;
    }
    for (int b = 0; b < branches; ++b) {
      if (!std::isfinite(row[b]) || row[b] <= 0.0f) continue;
      const double dev = static_cast<double>(row[b]) - 1.0 / k;
      if (std::abs(dev) > d.maxAbs || d.layer < 0) {
        d.maxAbs = std::abs(dev);
        d.signedAt = dev;
        d.layer = l;
        d.branch = b;
      }
    }
  }
  std::ostringstream o;
  if (d.layer < 0) {
    o << "no layer mixes two or more branches";
  } else {
    const std::string name = d.branch < static_cast<int>(branchNames.size()) ? branchNames[static_cast<std::size_t>(d.branch)]
                                                                               : "branch " + std::to_string(d.branch);
    if (d.maxAbs <= margin) o << "all weights within " << margin_text(margin) << " of uniform: ";
    o << std::fixed << std::setprecision(3) << "largest departure from uniform: " << name << " "
      << (d.signedAt >= 0 ? "+" : "") << d.signedAt << " (layer " << d.layer << "); widest layer: " << d.spreadLayer
      << " (max - min weight " << d.maxSpread << ")";
  }
  d.summary = o.str();
  return d;
}

}  // namespace pha::widgets
