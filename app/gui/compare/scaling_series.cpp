#include "gui/compare/scaling_series.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "analysis/report.h"  // kMaxCrossoverFactor
#include "analysis/stats.h"

namespace pha::gui {

namespace {

std::string sci(double v) {  // as QString::number(v, 'g', 3)
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string withInterval(double v, const analysis::Interval& i) {
  return i.valid() ? sci(v) + " [" + sci(i.low) + ", " + sci(i.high) + "]" : sci(v);
}

struct Grouped {
  std::string name;
  std::size_t first_input = 0;
  // size -> setting -> the final values of its replicas
  std::map<double, std::map<std::string, std::vector<double>>> settings;
  std::map<double, std::vector<double>> byX;  // size -> the chosen setting's replicas
};

// Each size at its best setting (the lowest mean final value: every metric offered is a loss),
// the other settings named in `notes`.
void chooseSettings(Grouped& v, const std::string& metric, std::vector<std::string>& notes) {
  for (const auto& [x, settings] : v.settings) {
    const std::string* best = nullptr;
    double bestMean = INFINITY;
    for (const auto& [name, ys] : settings) {
      const double m = analysis::summarize(ys).mean;
      if (m < bestMean) bestMean = m, best = &name;
    }
    if (!best) continue;
    v.byX[x] = settings.at(*best);
    if (settings.size() > 1) {
      std::string others;
      for (const auto& [name, ys] : settings)
        if (&name != best)
          others += (others.empty() ? "" : ", ") + name + " " + sci(analysis::summarize(ys).mean) + " (n=" +
                    std::to_string(ys.size()) + ")";
      notes.push_back(v.name + " at " + sci(x) + ": " + std::to_string(settings.size()) +
                      " settings; the point is the best on final " + metric + ", " + *best + " " + sci(bestMean) +
                      " (n=" + std::to_string(settings.at(*best).size()) + "); not used: " + others);
    }
  }
}

}  // namespace

ScalingView scalingView(const std::vector<ScalingInput>& inputs, const std::string& metric) {
  std::vector<Grouped> grouped;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const ScalingInput& in = inputs[i];
    auto it = std::find_if(grouped.begin(), grouped.end(), [&](const Grouped& g) { return g.name == in.series; });
    if (it == grouped.end()) {
      grouped.push_back({in.series, i, {}, {}});
      it = grouped.end() - 1;
    }
    it->settings[in.x][in.setting].push_back(in.value);
  }
  std::vector<std::string> choices;
  for (auto& g : grouped) chooseSettings(g, metric, choices);
  ScalingView out;
  double xLo = INFINITY, xHi = -INFINITY;
  for (const Grouped& g : grouped) {
    ScalingSeries s;
    s.name = g.name;
    s.first_input = g.first_input;
    std::vector<analysis::ScalingPoint> points;
    for (const auto& [x, ys] : g.byX) {
      const analysis::Stats st = analysis::summarize(ys);
      s.x.push_back(x);
      s.mean.push_back(st.mean);
      s.err.push_back(st.n >= 2 ? st.std : 0.0);
      for (double y : ys) points.push_back({x, y});
      xLo = std::min(xLo, x), xHi = std::max(xHi, x);
    }
    if (g.byX.size() < 3) {
      out.lines.push_back(g.name + ": " + std::to_string(g.byX.size()) + " size(s); a fit needs 3 or more");
    } else {
      analysis::FitOptions o;
      o.n_boot = 300;
      o.band_x = analysis::log_spaced(g.byX.begin()->first, g.byX.rbegin()->first, 40);
      s.fit = analysis::fit_power_law(points, o);
      if (!s.fit.ok) {
        out.lines.push_back(g.name + ": no fit (" + s.fit.message + ")");
      } else {
        ++out.fitted;
        out.lines.push_back(g.name + ": E = " + withInterval(s.fit.E, s.fit.E_ci) + ", A = " +
                            withInterval(s.fit.A, s.fit.A_ci) + ", alpha = " + withInterval(s.fit.alpha, s.fit.alpha_ci) +
                            "; rmse " + sci(s.fit.rmse) + " over " + std::to_string(s.fit.n) + " runs");
      }
    }
    out.series.push_back(std::move(s));
  }
  for (size_t i = 0; i < out.series.size(); ++i)
    for (size_t j = i + 1; j < out.series.size(); ++j) {
      const ScalingSeries& a = out.series[i];
      const ScalingSeries& b = out.series[j];
      if (!a.fit.ok || !b.fit.ok) continue;
      // As the report (docs/report.md, "Scaling fits"): between the larger of the two smallest
      // sizes and kMaxCrossoverFactor times the smaller of the two largest, never further.
      const double lo = std::max(a.x.front(), b.x.front());
      const double hi = analysis::kMaxCrossoverFactor * std::min(a.x.back(), b.x.back());
      const analysis::Crossover c = analysis::crossover(a.fit, b.fit, lo, hi);
      std::string text = a.name + " vs " + b.name + ": ";
      if (!c.found) {
        text += c.message;
      } else {
        text += "fitted curves cross at " + withInterval(c.x, c.ci);
        text += " (" + sci(100 * c.fraction_crossing) + "% of bootstrap pairs cross in " + sci(lo) + " to " + sci(hi) + ")";
      }
      out.lines.push_back(text);
    }
  if (!choices.empty()) {
    out.lines.push_back(
        "Runs of one size that differ in more than their seed are settings (a learning-rate grid), not replicas: each "
        "size is drawn at its best setting, its seeds as the error bar.");
    out.lines.insert(out.lines.end(), choices.begin(), choices.end());
  }
  out.x_lo = xLo;
  out.x_hi = xHi;
  return out;
}

}  // namespace pha::gui
