// Scaling fits of the report (docs/report.md, "Scaling fits"): per variants entry, its final
// metric against parameters and against training compute over its grid points (a width
// ladder), L = E + A x^-alpha by analysis/scaling_fit.h with bootstrap intervals, and where two
// entries' fitted curves cross, searched from the smallest measured x to `extrapolate` times the
// largest. With a "tune" section each grid point counts at its chosen setting.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/report.h"
#include "analysis/report_internal.h"
#include "store/store.h"

namespace pha::analysis {

namespace {

// Tokens a replica trained on: the last point of its train/loss series.
double trained_tokens(store::Store& store, int64_t run_id) {
  const auto points = store.read_metric_full(run_id, "train/loss");
  return points.empty() ? 0.0 : static_cast<double>(points.back().tokens);
}

// The groups a series' fit uses: those of its entries, one per grid point (the chosen setting
// when tuned; a grid point whose tuning has no choice yet is left out).
std::vector<const GroupReport*> sizes_of(const Study& study, const Report& report, const std::vector<std::string>& entries) {
  std::vector<const GroupReport*> out;
  for (const auto& g : report.groups) {
    if (std::find(entries.begin(), entries.end(), g.entry) == entries.end()) continue;
    if (study.tune.enabled) {
      bool chosen = false;
      for (const auto& t : report.tuning)
        if (t.entry == g.entry && t.grid_point == g.grid_point && t.chosen >= 0)
          chosen = t.settings[static_cast<size_t>(t.chosen)].group == g.group;
      if (!chosen) continue;
    }
    out.push_back(&g);
  }
  return out;
}

}  // namespace

ScalingReport scaling_report(const Study& study, const Report& report, store::Store& store) {
  ScalingReport out;
  out.metric = study.scaling.metric.text;
  std::vector<std::pair<std::string, std::vector<std::string>>> series = study.scaling.series;
  if (series.empty())
    for (const auto& g : report.groups)
      if (std::find_if(series.begin(), series.end(), [&](const auto& s) { return s.first == g.entry; }) == series.end())
        series.push_back({g.entry, {g.entry}});
  for (const char* axis : {"params", "flops"}) {
    ScalingAxis ax;
    ax.axis = axis;
    ax.x_label = ax.axis == "params" ? "parameters" : "training FLOPs";
    for (const auto& [entry, members] : series) {
      ScalingSeries s;
      s.entry = entry;
      std::map<double, std::vector<double>> by_x;
      for (const GroupReport* g : sizes_of(study, report, members)) {
        s.family = g->family;
        for (const auto& r : g->replicas) {
          const double y = detail::replica_value(store, r.run_id, study.scaling.metric, false, true);
          const double x = ax.axis == "params" ? static_cast<double>(g->n_params)
                                               : trained_tokens(store, r.run_id) * g->train_flops_per_token;
          if (!(x > 0) || !std::isfinite(y)) continue;
          s.x.push_back(x);
          s.y.push_back(y);
          by_x[x].push_back(y);
        }
      }
      for (const auto& [x, ys] : by_x) {
        s.size_x.push_back(x);
        s.size_y.push_back(summarize(ys));
      }
      if (s.size_x.size() < 3) {
        if (ax.axis == "params")
          out.notes.push_back(entry + ": " + std::to_string(s.size_x.size()) +
                              " sizes with finished runs; a fit needs 3 or more (4 or more to be read with confidence)");
        continue;
      }
      std::vector<ScalingPoint> points;
      for (size_t i = 0; i < s.x.size(); ++i) points.push_back({s.x[i], s.y[i]});
      FitOptions o;
      o.n_boot = study.scaling.n_boot;
      o.seed = study.scaling.seed;
      o.band_x = log_spaced(s.size_x.front(), s.size_x.back(), 40);
      s.fit = fit_power_law(points, o);
      ax.series.push_back(std::move(s));
    }
    for (size_t i = 0; i < ax.series.size(); ++i)
      for (size_t j = i + 1; j < ax.series.size(); ++j) {
        const ScalingSeries& a = ax.series[i];
        const ScalingSeries& b = ax.series[j];
        ScalingCross c;
        c.a = a.entry;
        c.b = b.entry;
        c.x_lo = std::min(a.size_x.front(), b.size_x.front());
        c.x_hi = std::max(a.size_x.back(), b.size_x.back()) * study.scaling.extrapolate;
        if (!a.fit.ok || !b.fit.ok) {
          c.message = "no fit for " + (a.fit.ok ? b.entry : a.entry);
        } else {
          const Crossover x = crossover(a.fit, b.fit, c.x_lo, c.x_hi);
          c.found = x.found;
          c.message = x.message;
          c.x = x.x;
          c.low = x.ci.low;
          c.high = x.ci.high;
          c.fraction = x.fraction_crossing;
        }
        ax.crossovers.push_back(std::move(c));
      }
    out.axes.push_back(std::move(ax));
  }
  return out;
}

}  // namespace pha::analysis
