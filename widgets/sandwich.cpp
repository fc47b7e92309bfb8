#include "sandwich.h"

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
}  // namespace

SandwichReadout readSandwich(int layers, int branches, const std::vector<float>& weights) {
  SandwichReadout r;
  if (layers <= 0 || branches < 2 || weights.size() != static_cast<std::size_t>(layers) * branches) {
    r.summary = "no mixer weights";
    return r;
  }
  for (int l = 0; l < layers; ++l) {
    const float g = weights[static_cast<std::size_t>(l) * branches + 0];
    const float a = weights[static_cast<std::size_t>(l) * branches + 1];
    // A removed branch has weight 0 in a mixed layer: no comparison to make there.
    if (!std::isfinite(g) || !std::isfinite(a) || g == 0.0f || a == 0.0f) {
      r.noMixer.push_back(l);
    } else if (g > a) {
      r.gssLayers.push_back(l);
    } else {
      r.attnLayers.push_back(l);
    }
  }
  std::vector<int> mixed;
  for (int l = 0; l < layers; ++l) {
    bool isGss = false, isAttn = false;
    for (int g : r.gssLayers) isGss |= g == l;
    for (int a : r.attnLayers) isAttn |= a == l;
    if (isGss || isAttn) mixed.push_back(isGss ? 1 : 2);
  }
  if (mixed.size() >= 3 && mixed.front() == 1 && mixed.back() == 1) {
    for (std::size_t i = 1; i + 1 < mixed.size(); ++i) r.isSandwich |= mixed[i] == 2;
  }
  std::ostringstream o;
  if (r.gssLayers.empty() && r.attnLayers.empty()) {
    o << "no layer mixes GSS and attention";
  } else {
    if (!r.gssLayers.empty()) o << "GSS dominates layer" << (r.gssLayers.size() > 1 ? "s " : " ") << ranges(r.gssLayers);
    if (!r.gssLayers.empty() && !r.attnLayers.empty()) o << "; ";
    if (!r.attnLayers.empty())
      o << "attention dominates layer" << (r.attnLayers.size() > 1 ? "s " : " ") << ranges(r.attnLayers);
    o << (r.isSandwich ? " - a GSS/attention sandwich" : "");
  }
  r.summary = o.str();
  return r;
}

MixerDeviation mixerDeviation(int layers, int branches, const std::vector<float>& weights,
                              const std::vector<std::string>& branchNames) {
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
    o << std::fixed << std::setprecision(3) << "largest departure from uniform: " << name << " "
      << (d.signedAt >= 0 ? "+" : "") << d.signedAt << " (layer " << d.layer << "); widest layer: " << d.spreadLayer
      << " (max - min weight " << d.maxSpread << ")";
  }
  d.summary = o.str();
  return d;
}

}  // namespace pha::widgets
