#include "gui/lens/spectrum_view.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace pha::gui {

std::vector<int64_t> lagBins(int64_t horizon, int maxBins) {
  std::vector<int64_t> starts{0};
  if (horizon <= 1) return starts;
  const double ratio = std::pow(static_cast<double>(horizon), 1.0 / std::max(1, maxBins - 1));
  double edge = 1.0;
  while (static_cast<int64_t>(std::llround(edge)) < horizon) {
    const int64_t s = std::llround(edge);
    if (s > starts.back()) starts.push_back(s);
    edge = std::max(edge * ratio, static_cast<double>(s + 1));
  }
  return starts;
}

SpectrumView spectrumView(const runtime::KernelSpectrum& s, int layer, int maxBins) {
  SpectrumView v;
  if (!s.none_reason.empty() || s.layers.empty()) {
    v.empty_reason = s.none_reason.empty() ? "No GSS layer." : s.none_reason;
    return v;
  }
  const auto& L = s.layers[static_cast<size_t>(std::clamp(layer, 0, static_cast<int>(s.layers.size()) - 1))];
  const int64_t lags = std::min<int64_t>(s.horizon, L.lags);
  v.bin_first = lagBins(lags, maxBins);
  v.rows = L.channels;
  v.cols = static_cast<int>(v.bin_first.size());
  for (int c = 0; c < v.cols; ++c)
    v.bin_last.push_back(c + 1 < v.cols ? v.bin_first[static_cast<size_t>(c) + 1] - 1 : lags - 1);
  float top = 0.0f;
  for (float x : L.abs_k)
    if (std::isfinite(x)) top = std::max(top, x);
  v.floor = top > 0 ? top * 1e-6f : 1e-12f;
  v.values.assign(static_cast<size_t>(v.rows) * static_cast<size_t>(v.cols), v.floor);
  for (int h = 0; h < v.rows; ++h)
    for (int c = 0; c < v.cols; ++c) {
      float m = 0.0f;
      for (int64_t t = v.bin_first[static_cast<size_t>(c)]; t <= v.bin_last[static_cast<size_t>(c)]; ++t)
        m = std::max(m, L.abs_k[static_cast<size_t>(h) * static_cast<size_t>(L.lags) + static_cast<size_t>(t)]);
      v.values[static_cast<size_t>(h) * static_cast<size_t>(v.cols) + static_cast<size_t>(c)] = std::max(m, v.floor);
    }
  for (int c = 0; c < v.cols; ++c) {
    const int64_t lo = v.bin_first[static_cast<size_t>(c)], hi = v.bin_last[static_cast<size_t>(c)] + 1;
    std::string name;
    for (int64_t d = 1; d <= hi; d *= 10)
      if (d >= lo && d < hi) name = std::to_string(d);
    if (lo == 0) name = "0";
    if (lo == 1 && v.cols > 2) name.clear();  // beside the lag-0 column "0" and "1" would run together
    v.col_names.push_back(name);
  }
  const int every = std::max(1, v.rows / 16);
  for (int h = 0; h < v.rows; ++h) v.row_names.push_back(h % every == 0 ? std::to_string(h) : std::string());

  std::map<int, int> counts;
  for (float hl : L.half_life) {
    if (!std::isfinite(hl)) {
      ++v.beyond;
      continue;
    }
    ++counts[static_cast<int>(std::floor(std::log2(std::max(1.0f, hl))))];
  }
  v.max_bin = static_cast<int>(std::ceil(std::log2(std::max<double>(2, static_cast<double>(s.horizon)))));
  for (const auto& [k, n] : counts) {
    v.half_life_bins.emplace_back(k, n);
    v.max_count = std::max(v.max_count, n);
    v.max_bin = std::max(v.max_bin, k + 1);
  }
  if (s.train_len > 0) v.context_x = std::log2(static_cast<double>(s.train_len));
  v.summary = s.state + ": " + std::to_string(L.channels) + " channels, lags 0-" + std::to_string(s.horizon - 1) + "; " +
              std::to_string(v.beyond) + " half-life(s) beyond the horizon";
  return v;
}

}  // namespace pha::gui
