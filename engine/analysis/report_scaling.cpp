// Scaling fits of the report (docs/report.md, "Scaling fits"): per series, its final metric
// against parameters and against training compute over its sizes, L = E + A x^-alpha by
// analysis/scaling_fit.h with bootstrap intervals, the fit's identifiability checks and
// leave-one-out predictions (analysis/scaling_identify.h), where two series' fitted curves cross
// (never beyond kMaxCrossoverFactor times the largest size both measured), and on request the
// IsoFLOP view (analysis/isoflop.h). With a "tune" section each size counts at its chosen
// setting only (its confirmation replicas when the protocol has them), never pooled over
// settings.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/report.h"
#include "analysis/internal/report_internal.h"
#include "core/config_reader.h"
#include "store/store.h"

namespace pha::analysis {

namespace {

// Tokens a replica trained on: the last point of its train/loss series.
double trained_tokens(store::Store& store, int64_t run_id) {
  const auto points = store.read_metric_full(run_id, "train/loss");
  return points.empty() ? 0.0 : static_cast<double>(points.back().tokens);
}

const TuningTable* table_of(const Report& report, const GroupReport& g) {
  for (const auto& t : report.tuning)
    if (t.entry == g.entry && t.grid_point == g.grid_point) return &t;
  return nullptr;
}

// The groups a series uses: those of its entries, one per grid point. Tuned: the chosen
// setting's group (its confirmation group once planned); a grid point without a choice yet is
// left out. Untuned grid points are used as they are.
std::vector<const GroupReport*> groups_of(const Study& study, const Report& report, const std::vector<std::string>& entries) {
  std::vector<const GroupReport*> out;
  for (const auto& g : report.groups) {
    if (std::find(entries.begin(), entries.end(), g.entry) == entries.end()) continue;
    if (study.tune.enabled) {
      const TuningTable* t = table_of(report, g);
      if (!t || t->chosen < 0) continue;
      const std::string& chosen = t->settings[static_cast<size_t>(t->chosen)].group;
      const std::string& wanted = t->confirmation_group.empty() ? chosen : t->confirmation_group;
      if (g.group != wanted) continue;
    } else if (g.confirmation) {
      continue;
    }
    out.push_back(&g);
  }
  return out;
}

// The groups a fit of L against size uses: at each parameter count, the longest-trained groups
// (a sizes x lengths grid for the IsoFLOP view trains each size several times; the fit of final
// loss against size reads each size at its longest run). `dropped` counts the others.
std::vector<const GroupReport*> longest_per_size(const std::vector<const GroupReport*>& groups, std::size_t& dropped) {
  std::map<int64_t, double> most;
  for (const GroupReport* g : groups)
    if (std::isfinite(g->tokens)) most[g->n_params] = std::max(most[g->n_params], g->tokens);
  std::vector<const GroupReport*> out;
  dropped = 0;
  for (const GroupReport* g : groups) {
    const auto it = most.find(g->n_params);
    if (it != most.end() && std::isfinite(g->tokens) && g->tokens < it->second * (1.0 - 1e-9)) {
      ++dropped;
      continue;
    }
    out.push_back(g);
  }
  return out;
}

// The x and y of each replica of `groups` on `axis`, by x.
std::map<double, std::vector<double>> points_by_x(const Study& study, store::Store& store, const std::string& axis,
                                                  const std::vector<const GroupReport*>& groups) {
  std::map<double, std::vector<double>> by_x;
  for (const GroupReport* g : groups)
    for (const auto& r : g->replicas) {
      const double y = detail::replica_value(store, r.run_id, study.scaling.metric, false, true);
      const double x = axis == "params" ? static_cast<double>(g->n_params)
                                        : trained_tokens(store, r.run_id) * g->train_flops_per_token;
      if (x > 0 && std::isfinite(y)) by_x[x].push_back(y);
    }
  return by_x;
}

// The 2.5% and 97.5% quantiles of the bootstrap replicas' L(x) (type 7), NaN without two.
Interval replica_interval(const PowerLawFit& fit, double x) {
  std::vector<double> v;
  for (const auto& r : fit.replicas) v.push_back(r.at(x));
  Interval out;
  if (v.size() < 2) return out;
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    const double h = p * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
  };
  out.low = q((1.0 - fit.level) / 2.0), out.high = q((1.0 + fit.level) / 2.0);
  return out;
}

// The frozen fit against the sizes held out of it (ScalingSpec::predict): each predicted and
// measured, and the identification rule they decide (a fit is identified only when every size
// beyond it is predicted within kPredictionTolerance).
void predict_sizes(const Study& study, store::Store& store, const std::string& axis,
                   const std::vector<const GroupReport*>& held_out, ScalingSeries& s) {
  if (!s.fit.ok) return;
  const double largest = s.size_x.back();
  std::size_t beyond = 0, within = 0, unfinished = 0;
  for (const GroupReport* g : held_out) {
    const auto by_x = points_by_x(study, store, axis, {g});
    if (by_x.empty()) {
      ++unfinished;
      continue;
    }
    for (const auto& [x, ys] : by_x) {
      HeldOut h;
      h.x = x;
      h.n_points = ys.size();
      const Stats st = summarize(ys);
      h.measured = st.mean;
      h.measured_sd = st.n >= 2 ? st.std : kNoValue;
      h.predicted = s.fit.at(x);
      h.predicted_ci = replica_interval(s.fit, x);
      h.rel_error = (h.predicted - h.measured) / h.measured;
      h.within = std::fabs(h.rel_error) <= kPredictionTolerance;
      h.ok = true;
      h.message = g->group + (x > largest ? "" : ": inside the fitted range (an interpolation, not a prediction)");
      if (x > largest) ++beyond, within += h.within ? 1 : 0;
      s.predictions.push_back(std::move(h));
    }
  }
  if (!s.check.checked) return;
  if (beyond == 0)
    s.check.flags.push_back(held_out.empty() || unfinished == held_out.size()
                                ? "not tested by prediction: no size beyond the fit has finished runs (scaling.predict "
                                  "names the sizes held out and trained to test it)"
                                : "not tested by prediction: every size held out lies inside the fitted range");
  else if (within < beyond)
    s.check.flags.push_back(std::to_string(beyond - within) + " of " + std::to_string(beyond) +
                            " sizes beyond the fit predicted off by more than " +
                            core::format_number(100.0 * kPredictionTolerance) + "%");
  else if (unfinished > 0)
    s.check.flags.push_back(std::to_string(unfinished) + " size(s) held out for prediction not trained yet");
}

// The fit of one series on one axis, with its checks.
ScalingSeries fit_series(const Study& study, store::Store& store, const std::string& entry, const std::string& axis,
                         const std::vector<const GroupReport*>& groups, double band_to = 0.0) {
  ScalingSeries s;
  s.entry = entry;
  std::map<double, std::vector<double>> by_x;
  std::map<double, std::string> setting;
  for (const GroupReport* g : groups) {
    s.family = g->family;
    for (const auto& r : g->replicas) {
      const double y = detail::replica_value(store, r.run_id, study.scaling.metric, false, true);
      const double x = axis == "params" ? static_cast<double>(g->n_params)
                                        : trained_tokens(store, r.run_id) * g->train_flops_per_token;
      if (!(x > 0) || !std::isfinite(y)) continue;
      s.x.push_back(x);
      s.y.push_back(y);
      by_x[x].push_back(y);
      setting[x] = g->tune_point;
    }
  }
  for (const auto& [x, ys] : by_x) {
    s.size_x.push_back(x);
    s.size_y.push_back(summarize(ys));
    s.size_setting.push_back(setting[x]);
  }
  if (s.size_x.size() < 3) return s;
  std::vector<ScalingPoint> points;
  for (size_t i = 0; i < s.x.size(); ++i) points.push_back({s.x[i], s.y[i]});
  FitOptions o;
  o.n_boot = study.scaling.n_boot;
  o.seed = study.scaling.seed;
  // The band reaches the sizes held out for prediction too: the plot shows the extrapolation.
  o.band_x = log_spaced(s.size_x.front(), std::max(s.size_x.back(), band_to), 40);
  s.fit = fit_power_law(points, o);
  s.check = identify_fit(points, s.fit, o);
  return s;
}

// The crossover of two series' fits, searched on the sizes both measured and up to the capped
// factor beyond the smaller of their largest sizes.
ScalingCross cross(const ScalingSeries& a, const ScalingSeries& b, double factor) {
  ScalingCross c;
  c.a = a.entry;
  c.b = b.entry;
  c.x_lo = std::max(a.size_x.front(), b.size_x.front());
  c.x_hi = std::min(a.size_x.back(), b.size_x.back()) * std::min(factor, kMaxCrossoverFactor);
  if (!a.fit.ok || !b.fit.ok) {
    c.message = "no fit for " + (a.fit.ok ? b.entry : a.entry);
    return c;
  }
  if (!(c.x_lo < c.x_hi)) {
    c.message = "the two series measured no common range of sizes";
    return c;
  }
  const Crossover x = crossover(a.fit, b.fit, c.x_lo, c.x_hi);
  c.found = x.found;
  c.message = x.message;
  c.x = x.x;
  c.low = x.ci.low;
  c.high = x.ci.high;
  c.fraction = x.fraction_crossing;
  std::string who;
  for (const ScalingSeries* s : {&a, &b})
    if (!s->check.identified()) who += (who.empty() ? "" : " and ") + s->entry;
  if (c.found && !who.empty())
    c.caution = who + (who.find(" and ") == std::string::npos ? "'s fit is" : "'s fits are") +
                " not identified (see the checks): the crossing is not established";
  return c;
}

// How the series' training tokens D follow its sizes N: 1 when every size trained on the same
// tokens (within 1%: C = 6 N D is N times a constant), 2 when on about the same tokens per
// parameter (within a factor 1.25: C grows as N^2), 0 otherwise. In the first two cases the
// FLOPs axis is a fixed transform of the parameter axis, not a second measurement.
int flops_tied_to_params(const std::vector<const GroupReport*>& groups) {
  double lo = INFINITY, hi = -INFINITY, lo_per = INFINITY, hi_per = -INFINITY;
  std::set<int64_t> sizes;
  for (const GroupReport* g : groups) {
    if (!(std::isfinite(g->tokens) && g->tokens > 0 && g->n_params > 0)) continue;
    const double per = g->tokens / static_cast<double>(g->n_params);
    lo = std::min(lo, g->tokens), hi = std::max(hi, g->tokens), sizes.insert(g->n_params);
    lo_per = std::min(lo_per, per), hi_per = std::max(hi_per, per);
  }
  if (sizes.size() < 2) return 0;
  if (hi <= lo * 1.01) return 1;
  return hi_per <= lo_per * 1.25 ? 2 : 0;
}

IsoFlopFit isoflop_of(const Study& study, store::Store& store, const std::vector<const GroupReport*>& groups) {
  std::vector<IsoFlopPoint> points;
  for (const GroupReport* g : groups)
    for (const auto& r : g->replicas) {
      const double y = detail::replica_value(store, r.run_id, study.scaling.metric, false, true);
      points.push_back({static_cast<double>(g->n_params), trained_tokens(store, r.run_id) * g->train_flops_per_token, y});
    }
  return isoflop_fit(points);
}

}  // namespace

ScalingReport scaling_report(const Study& study, const Report& report, store::Store& store) {
  ScalingReport out;
  out.metric = study.scaling.metric.text;
  out.isoflop_requested = study.scaling.isoflop;
  std::vector<std::pair<std::string, std::vector<std::string>>> series = study.scaling.series;
  if (series.empty())
    for (const auto& g : report.groups)
      if (std::find_if(series.begin(), series.end(), [&](const auto& s) { return s.first == g.entry; }) == series.end())
        series.push_back({g.entry, {g.entry}});
  std::map<std::string, std::vector<const GroupReport*>> used;  // series -> the groups of its fits
  std::vector<std::string> same, per_param;  // series on one token count / on one tokens-per-parameter
  std::map<std::string, std::vector<const GroupReport*>> held_out;  // series -> the sizes it predicts
  const auto predicted = [&](const GroupReport* g) {
    const auto& p = study.scaling.predict;
    return std::find(p.begin(), p.end(), g->entry) != p.end() ||
           std::find(p.begin(), p.end(), g->entry + (g->grid_point.empty() ? "" : "/" + g->grid_point)) != p.end();
  };
  for (const auto& [entry, members] : series) {
    std::vector<const GroupReport*> all = groups_of(study, report, members);
    // The sizes to predict stay out of every fit (and out of the IsoFLOP view): frozen by design.
    for (const GroupReport* g : all)
      if (predicted(g)) held_out[entry].push_back(g);
    all.erase(std::remove_if(all.begin(), all.end(), predicted), all.end());
    std::size_t dropped = 0;
    used[entry] = longest_per_size(all, dropped);
    if (dropped)
      out.notes.push_back(entry + ": " + std::to_string(dropped) +
                          " shorter runs of a size left out of the fits (each size is fitted at its longest run)");
    const int tied = flops_tied_to_params(used[entry]);
    if (tied == 1) same.push_back(entry);
    if (tied == 2) per_param.push_back(entry);
    if (study.tune.enabled)
      for (const GroupReport* g : used[entry]) {
        const TuningTable* t = table_of(report, *g);
        if (t && !t->note.empty()) out.notes.push_back(entry + ", " + g->group + ": " + t->note);
      }
    if (study.scaling.isoflop) out.isoflop.push_back({entry, isoflop_of(study, store, all)});
  }
  for (const char* axis : {"params", "flops"}) {
    ScalingAxis ax;
    ax.axis = axis;
    ax.x_label = ax.axis == "params" ? "parameters" : "training FLOPs";
    for (const auto& [entry, members] : series) {
      double band_to = 0.0;
      for (const auto& [x, ys] : points_by_x(study, store, ax.axis, held_out[entry])) band_to = std::max(band_to, x);
      ScalingSeries s = fit_series(study, store, entry, ax.axis, used[entry], band_to);
      predict_sizes(study, store, ax.axis, held_out[entry], s);
      if (s.size_x.size() < 3) {
        if (ax.axis == "params")
          out.notes.push_back(entry + ": " + std::to_string(s.size_x.size()) +
                              " sizes with finished runs; a fit needs 3 or more (5 or more over 1.5 decades to be "
                              "identified)");
        continue;
      }
      ax.series.push_back(std::move(s));
    }
    for (size_t i = 0; i < ax.series.size(); ++i)
      for (size_t j = i + 1; j < ax.series.size(); ++j)
        ax.crossovers.push_back(cross(ax.series[i], ax.series[j], study.scaling.extrapolate));
    auto joined = [](const std::vector<std::string>& v) {
      std::string list;
      for (const auto& e : v) list += (list.empty() ? "" : ", ") + e;
      return list;
    };
    const std::string iso = ", not a compute-optimal frontier (the IsoFLOP view, \"isoflop\": true over a grid of "
                            "sizes x training steps, measures one)";
    if (ax.axis == "flops" && !same.empty())
      ax.note = joined(same) + ": every size trained on the same tokens, so this axis is the parameter axis times a "
                               "near-constant" + iso;
    if (ax.axis == "flops" && !per_param.empty())
      ax.note += (ax.note.empty() ? "" : "; ") + joined(per_param) +
                 ": every size trained on about the same tokens per parameter, so training FLOPs grow as N^2 and "
                 "this fit is the parameter fit with alpha about halved" + iso;
    out.axes.push_back(std::move(ax));
  }
  return out;
}

}  // namespace pha::analysis
