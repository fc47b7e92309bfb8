// The tuning protocol's choice (rules in docs/report.md, "Tuned comparisons"): for one variants
// entry at one grid point, every tuned setting's selection metric over its replicas, which
// settings may be chosen (every planned replica finished with the metric), the one chosen, where
// it lies on the axes the project extends (tuning_edges), and the seeds it was chosen and is
// confirmed on.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "analysis/report.h"
#include "analysis/internal/report_internal.h"
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

// "0, 1, 2" or "10-14" for consecutive seeds.
std::string seed_words(std::vector<int64_t> seeds) {
  std::sort(seeds.begin(), seeds.end());
  seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
  if (seeds.empty()) return "-";
  const bool consecutive = seeds.size() >= 3 && seeds.back() - seeds.front() + 1 == static_cast<int64_t>(seeds.size());
  if (consecutive) return std::to_string(seeds.front()) + "-" + std::to_string(seeds.back());
  std::string out;
  for (int64_t s : seeds) out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out;
}

// Three significant digits: an extended value reads like the ones written by hand (0.09, not
// 0.09000000000000001).
double round3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return std::strtod(buf, nullptr);
}

// The chosen setting on its confirmation seeds against the seeds that chose it (Welch): how
// optimistic the choice was.
void selection_gap(TuningTable& t) {
  const Stats& sel = t.settings[static_cast<size_t>(t.chosen)].select;
  const Stats& conf = t.confirmation;
  if (conf.n == 0 || sel.n == 0) return;
  t.gap = conf.mean - sel.mean;
  const std::string chosen = t.settings[static_cast<size_t>(t.chosen)].tune_point;
  t.gap_text = "selection vs confirmation: " + (chosen.empty() ? std::string("the choice") : chosen) + " measured " +
               mean_std(sel) + " on the seeds that chose it and " + mean_std(conf) + " on the confirmation seeds: gap " +
               num(t.gap);
  if (conf.n >= 2 && sel.n >= 2) {
    const Difference d = welch_difference(conf, sel);
    t.gap_low = d.low, t.gap_high = d.high;
    t.gap_text += " " + interval(d.low, d.high) + " (Welch 95%)";
  }
}

}  // namespace

namespace detail {
// The value of `key` ("training.lr": label "lr") in a tune point "lr=0.003,weight_decay=0.1";
// NaN when absent or not a number.
double tune_point_value(const std::string& tune_point, const std::string& key) {
  const std::string label = key.substr(key.find('.') + 1) + "=";
  size_t at = 0;
  while (at < tune_point.size()) {
    size_t end = tune_point.find(',', at);
    if (end == std::string::npos) end = tune_point.size();
    if (tune_point.compare(at, label.size(), label) == 0) {
      const std::string text = tune_point.substr(at + label.size(), end - at - label.size());
      char* stop = nullptr;
      const double v = std::strtod(text.c_str(), &stop);
      return stop && *stop == '\0' && !text.empty() ? v : std::nan("");
    }
    at = end + 1;
  }
  return std::nan("");
}

}  // namespace detail

using detail::tune_point_value;

double next_tune_value(std::vector<double> values, int direction, double lo, double hi) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (values.size() < 2 || direction == 0) return std::nan("");
  const bool geometric = values.front() > 0.0;
  double next;
  if (direction > 0) {
    const double a = values[values.size() - 2], b = values.back();
    if (b >= hi) return std::nan("");
    next = round3(geometric ? b * (b / a) : b + (b - a));
    // A whole step or none: a value squeezed against the bound (0.048 then 0.05) tests nothing.
    if (next > hi * (1.0 + 1e-9) || next <= b) return std::nan("");
  } else {
    const double a = values[1], b = values.front();
    if (b <= lo) return std::nan("");
    next = round3(geometric ? b * (b / a) : b - (a - b));
    if (next < lo * (1.0 - 1e-9) || next >= b) return std::nan("");
  }
  return next;
}

std::vector<TuneEdge> tuning_edges(const TuneProtocol& tune, const TuningTable& table) {
  std::vector<TuneEdge> out;
  if (table.chosen < 0) return out;
  const std::string& chosen = table.settings[static_cast<size_t>(table.chosen)].tune_point;
  for (const auto& axis : tune.extend) {
    const double v = tune_point_value(chosen, axis.key);
    if (std::isnan(v)) continue;  // this entry does not tune the axis
    TuneEdge e;
    e.key = axis.key;
    e.value = v;
    for (const auto& s : table.settings) {
      const double x = tune_point_value(s.tune_point, axis.key);
      if (!std::isnan(x)) e.tried.push_back(x);
    }
    const double lo = *std::min_element(e.tried.begin(), e.tried.end());
    const double hi = *std::max_element(e.tried.begin(), e.tried.end());
    e.direction = lo == hi ? 0 : v == hi ? 1 : v == lo ? -1 : 0;
    e.next = next_tune_value(e.tried, e.direction, axis.lo, axis.hi);
    e.bounded = e.direction != 0 && std::isnan(e.next);
    e.bound = e.direction > 0 ? axis.hi : axis.lo;
    out.push_back(std::move(e));
  }
  return out;
}

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
  std::vector<int64_t> selection;
  for (const auto& g : report.groups) {
    if (g.entry != entry || g.grid_point != grid_point || g.confirmation) continue;
    if (t.settings.empty()) selection = g.seeds;
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
  // The mean penalised by one standard error: a setting chosen for one lucky seed would need a
  // small spread too (one replica: no spread is known, the mean alone).
  for (auto& s : t.settings) {
    if (s.status != "ok") continue;
    const double se = s.select.n >= 2 ? s.select.std / std::sqrt(static_cast<double>(s.select.n)) : 0.0;
    s.score = study.tune.maximize ? s.select.mean - se : s.select.mean + se;
  }
  for (size_t i = 0; i < t.settings.size(); ++i) {
    const TuningSetting& s = t.settings[i];
    if (s.status != "ok") continue;
    if (t.chosen < 0 || better_than(s.score, t.settings[static_cast<size_t>(t.chosen)].score, study.tune.maximize))
      t.chosen = static_cast<int>(i);
  }
  if (t.chosen >= 0) t.settings[static_cast<size_t>(t.chosen)].chosen = true;
  // One tuned key: a choice at either end of its tried values says a better one may lie beyond.
  const bool one_axis = study.tune.axes.find(',') == std::string::npos;
  const bool at_edge = t.chosen == 0 || t.chosen + 1 == static_cast<int>(t.settings.size());
  const std::vector<TuneEdge> edges = tuning_edges(study.tune, t);
  std::string edge_note;
  for (const auto& e : edges) {
    const std::string side = e.direction > 0 ? "upper" : "lower";
    if (e.direction == 0) {
      t.edge = t.edge.empty() ? "interior" : t.edge;
    } else if (e.bounded) {
      t.edge = "at the bound";
      edge_note += (edge_note.empty() ? "" : "; ") + std::string("the chosen ") + e.key + " " + sci(e.value) +
                   " is at the project's " + side + " bound (tune.extend): a better one may lie beyond it";
    } else {
      t.edge = side + " edge";
      edge_note += (edge_note.empty() ? "" : "; ") + std::string("the chosen ") + e.key + " " + sci(e.value) +
                   " is at the " + side + " edge of the values tried: " + e.key + " " + sci(e.next) +
                   " is tried next (pha train plans it)";
    }
  }
  if (!t.complete) {
    t.note = "tuning incomplete: " + incomplete + " replicas finished";
  } else if (t.chosen < 0) {
    t.note = "no setting has every replica finished with " + t.metric;
  } else if (!edges.empty()) {
    t.note = edge_note;
  } else if (one_axis && at_edge && t.settings.size() >= 2) {
    t.note = "the chosen " + study.tune.axes + " is at the edge of the values tried: a better one may lie beyond";
  }
  t.seeds = "chosen on seeds " + seed_words(selection) +
            (study.tune.maximize ? " by the highest mean - 1 standard error" : " by the lowest mean + 1 standard error");
  if (selection.size() < kMinSelectionSeeds)
    t.seeds += " (only " + std::to_string(selection.size()) + " selection seed" + (selection.size() == 1 ? "" : "s") +
               ": one lucky seed can pick the setting)";
  if (!study.tune.confirm_seeds.empty()) {
    t.seeds += "; claims read the chosen setting on fresh confirmation seeds " + seed_words(study.tune.confirm_seeds);
    if (t.chosen >= 0) {
      const std::string group = confirmation_group_of(t.settings[static_cast<size_t>(t.chosen)].group);
      for (const auto& g : report.groups)
        if (g.group == group) {
          t.confirmation_group = group;
          t.confirmation = values_of(store, g, study.tune.select, study.tune.maximize);
        }
      selection_gap(t);
    }
  } else if (t.chosen >= 0) {
    t.seeds += ", and claims read the same replicas (no confirmation seeds: their figures are optimistically biased)";
  }
  return t;
}

}  // namespace pha::analysis
