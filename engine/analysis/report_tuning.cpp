// The tuning protocol's choice (rules in docs/report.md, "Tuned comparisons"): for one variants
// entry at one grid point, every tuned setting's selection metric over its replicas, which
// settings may be chosen (every planned replica finished with the metric), and the one chosen.
#include <algorithm>
#include <cmath>

#include "analysis/report.h"
#include "analysis/report_internal.h"
#include "store/store.h"

namespace pha::analysis {

namespace {

// "val/loss" -> "test/loss"; "" when the metric is not a validation summary key.
std::string test_counterpart(const MetricRef& m) {
  if (m.source != MetricRef::Source::Summary || m.key.rfind("val/", 0) != 0) return "";
  return "test/" + m.key.substr(4);
}

Stats values_of(store::Store& store, const GroupReport& g, const MetricRef& m, bool maximize) {
  std::vector<double> values;
  for (const auto& r : g.replicas) values.push_back(detail::replica_value(store, r.run_id, m, false, !maximize));
  return summarize(values);
}

// Equal means up to rounding: the first listed wins.
bool better_than(double a, double b, bool maximize) {
  if (std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b))) return false;
  return maximize ? a > b : a < b;
}

}  // namespace

TuningTable tuning_table(const Study& study, const Report& report, const std::string& entry,
                         const std::string& grid_point, store::Store& store) {
  TuningTable t;
  t.entry = entry;
  t.grid_point = grid_point;
  t.metric = study.tune.select.text;
  t.test_metric = test_counterpart(study.tune.select);
  MetricRef test;
  test.text = test.key = t.test_metric;
  std::string incomplete;
  for (const auto& g : report.groups) {
    if (g.entry != entry || g.grid_point != grid_point) continue;
    TuningSetting s;
    s.group = g.group;
    s.tune_point = g.tune_point;
    s.planned = static_cast<int>(g.seeds.size());
    s.select = values_of(store, g, study.tune.select, study.tune.maximize);
    if (!t.test_metric.empty()) s.test = values_of(store, g, test, study.tune.maximize);
    const int done = static_cast<int>(g.replicas.size());
    if (g.failed > 0) {
      s.status = "failed: " + std::to_string(g.failed) + " of " + std::to_string(s.planned) +
                 " replicas failed or diverged (never chosen)";
    } else if (g.pending > 0) {
      s.status = "incomplete: " + std::to_string(done) + " of " + std::to_string(s.planned) + " replicas finished";
      t.complete = false;
      incomplete += (incomplete.empty() ? "" : ", ") + (s.tune_point.empty() ? s.group : s.tune_point) + " (" +
                    std::to_string(done) + " of " + std::to_string(s.planned) + ")";
    } else if (s.select.n < static_cast<std::size_t>(done) || done == 0) {
      s.status = "metric missing: " + t.metric + " in " + std::to_string(done - static_cast<int>(s.select.n)) + " of " +
                 std::to_string(done) + " replicas";
    } else {
      s.status = "ok";
    }
    t.settings.push_back(std::move(s));
  }
  for (size_t i = 0; i < t.settings.size(); ++i) {
    const TuningSetting& s = t.settings[i];
    if (s.status != "ok") continue;
    if (t.chosen < 0 || better_than(s.select.mean, t.settings[static_cast<size_t>(t.chosen)].select.mean, study.tune.maximize))
      t.chosen = static_cast<int>(i);
  }
  if (t.chosen >= 0) t.settings[static_cast<size_t>(t.chosen)].chosen = true;
  // One tuned key: a choice at either end of its tried values says a better one may lie beyond.
  const bool one_axis = study.tune.axes.find(',') == std::string::npos;
  const bool at_edge = t.chosen == 0 || t.chosen + 1 == static_cast<int>(t.settings.size());
  if (!t.complete) {
    t.note = "tuning incomplete: " + incomplete + " replicas finished";
  } else if (t.chosen < 0) {
    t.note = "no setting has every replica finished with " + t.metric;
  } else if (one_axis && at_edge && t.settings.size() >= 2) {
    t.note = "the chosen " + study.tune.axes + " is at the edge of the values tried: a better one may lie beyond";
  }
  return t;
}

}  // namespace pha::analysis
