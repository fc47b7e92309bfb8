// Claim verdicts (rules in docs/report.md). A comparison holds when the 95% Welch interval of the
// difference of means lies entirely on the claimed side of 0, does not hold when it lies
// entirely on the other side, and is inconclusive when it contains 0 or a side has fewer than 2
// replicas. The mixer sandwich and accuracy-at-parameters claims apply the same rule to their
// own statistics (docs/report.md).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "analysis/report.h"
#include "analysis/report_internal.h"
#include "analysis/scaling_fit.h"
#include "core/config_reader.h"
#include "store/store.h"

namespace pha::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The groups a claim's run name stands for: the group itself, or every grid point of a variant.
std::vector<size_t> groups_named(const Report& report, const std::string& name) {
  std::vector<size_t> out;
  for (size_t i = 0; i < report.groups.size(); ++i)
    if (report.groups[i].group == name) return {i};
  for (size_t i = 0; i < report.groups.size(); ++i)
    if (report.groups[i].entry == name) out.push_back(i);
  return out;
}

// One side of a comparison at one grid point: the group compared, or why there is none yet (a
// tuned family whose settings are not all trained). `setting` is the chosen tune point.
struct Pick {
  size_t group = 0;
  std::string problem;
};

// The groups a claim's run stands for; with a "tune" section, a variants entry stands for its
// chosen setting at each grid point (a group named in full is compared as it is).
std::vector<Pick> picks(const Study& study, const Report& report, const std::string& name) {
  const std::vector<size_t> idx = groups_named(report, name);
  std::vector<Pick> out;
  const bool exact = idx.size() == 1 && report.groups[idx[0]].group == name;
  if (!study.tune.enabled || exact) {
    for (size_t i : idx) out.push_back({i, ""});
    return out;
  }
  std::set<std::string> seen;
  for (size_t i : idx) {
    const GroupReport& g = report.groups[i];
    if (!seen.insert(g.grid_point).second) continue;
    const TuningTable* t = nullptr;
    for (const auto& tt : report.tuning)
      if (tt.entry == g.entry && tt.grid_point == g.grid_point) t = &tt;
    if (!t) {
      out.push_back({i, ""});
    } else if (!t->complete || t->chosen < 0) {
      out.push_back({i, name + ": " + t->note});
    } else {
      const std::string& chosen = t->settings[static_cast<size_t>(t->chosen)].group;
      for (size_t j : idx)
        if (report.groups[j].group == chosen) out.push_back({j, ""});
    }
  }
  return out;
}

// Pairs to compare: the same grid point on both sides (or a named group on one side with the
// other side's group at its grid point; or the two named groups).
std::vector<std::pair<Pick, Pick>> pairs_of(const Report& report, const std::vector<Pick>& a, const std::vector<Pick>& b) {
  if (a.size() == 1 && b.size() == 1) return {{a[0], b[0]}};
  std::vector<std::pair<Pick, Pick>> out;
  for (const Pick& i : a)
    for (const Pick& j : b)
      if (report.groups[i.group].grid_point == report.groups[j.group].grid_point) out.emplace_back(i, j);
  return out;
}

// x of a metric point on a budget axis; NaN when the axis cannot be computed for the run.
double budget_x(const store::MetricPoint& p, const std::string& axis, double flops_per_token) {
  if (axis == "steps") return static_cast<double>(p.step);
  if (axis == "tokens") return static_cast<double>(p.tokens);
  return flops_per_token > 0 ? static_cast<double>(p.tokens) * flops_per_token : kNaN;
}

// A replica's learning curve of `key` on `axis`: (x, value), x ascending, non-finite values dropped.
std::vector<std::pair<double, double>> curve_of(store::Store& store, int64_t run_id, const std::string& key,
                                                const std::string& axis, double flops_per_token) {
  std::vector<std::pair<double, double>> out;
  for (const auto& p : store.read_metric_full(run_id, key)) {
    const double x = budget_x(p, axis, flops_per_token);
    if (!std::isfinite(x) || !std::isfinite(p.value)) continue;
    if (!out.empty() && x <= out.back().first) {
      out.back().second = p.value;  // a later evaluation at the same x (the final one) replaces it
      continue;
    }
    out.emplace_back(x, p.value);
  }
  return out;
}

// Linear interpolation at x between the curve's points; NaN outside [first x, last x].
double value_at(const std::vector<std::pair<double, double>>& c, double x) {
  if (c.empty() || x < c.front().first || x > c.back().first) return kNaN;
  for (size_t i = 1; i < c.size(); ++i)
    if (x <= c[i].first) {
      const auto& [x0, y0] = c[i - 1];
      const auto& [x1, y1] = c[i];
      return x1 == x0 ? y1 : y0 + (y1 - y0) * (x - x0) / (x1 - x0);
    }
  return c.back().second;
}

// The mean learning curve of a group's replicas: at each x of its first replica's curve, the mean
// of every replica's interpolated value (points where a replica has none are left out).
std::vector<std::pair<double, double>> mean_curve(store::Store& store, const GroupReport& g, const std::string& key,
                                                  const std::string& axis) {
  std::vector<std::vector<std::pair<double, double>>> curves;
  for (const auto& r : g.replicas) curves.push_back(curve_of(store, r.run_id, key, axis, g.train_flops_per_token));
  std::vector<std::pair<double, double>> out;
  if (curves.empty()) return out;
  for (const auto& [x, y0] : curves.front()) {
    double sum = 0;
    bool all = true;
    for (const auto& c : curves) {
      const double v = value_at(c, x);
      all = all && std::isfinite(v);
      sum += v;
    }
    if (all) out.emplace_back(x, sum / static_cast<double>(curves.size()));
  }
  return out;
}

Stats metric_stats(store::Store& store, const GroupReport& g, const MetricRef& m, bool best, bool minimize) {
  std::vector<double> values;
  for (const auto& r : g.replicas) values.push_back(detail::replica_value(store, r.run_id, m, best, minimize));
  return summarize(values);
}

std::string too_few(const std::string& who, const Stats& s) {
  return who + " has " + std::to_string(s.n) + " replica" + (s.n == 1 ? "" : "s") + " with this metric (a verdict needs 2 or more)";
}

// The values of a compare claim's metric over a group's replicas: final (or best), or at a budget.
Stats side_stats(const Claim& c, const GroupReport& g, store::Store& store, double budget) {
  const bool lower = c.kind == ClaimKind::LowerIsBetter;
  if (std::isnan(budget)) return metric_stats(store, g, c.metric, c.best, lower);
  std::vector<double> values;
  for (const auto& r : g.replicas)
    values.push_back(value_at(curve_of(store, r.run_id, c.metric.key, c.budget_axis, g.train_flops_per_token), budget));
  return summarize(values);
}

ClaimRow compare_row(const Claim& c, const GroupReport& a, const GroupReport& b, store::Store& store,
                     double budget = kNaN, bool with_test = false) {
  const bool lower = c.kind == ClaimKind::LowerIsBetter;
  ClaimRow row;
  row.label = a.grid_point.empty() || a.grid_point != b.grid_point ? a.group + " vs " + b.group : a.grid_point;
  if (!std::isnan(budget))
    row.label = format_number(budget) + " " + c.budget_axis + (a.grid_point.empty() ? "" : ", " + a.grid_point);
  const Stats sa = side_stats(c, a, store, budget), sb = side_stats(c, b, store, budget);
  row.measured = {{a.group, sa}, {b.group, sb}};
  if (with_test && c.metric.source == MetricRef::Source::Summary && c.metric.key.rfind("val/", 0) == 0 &&
      std::isnan(budget)) {
    MetricRef t;
    t.text = t.key = "test/" + c.metric.key.substr(4);
    row.measured.push_back({a.group + " " + t.key + " (reported, not judged)", metric_stats(store, a, t, false, lower)});
    row.measured.push_back({b.group + " " + t.key + " (reported, not judged)", metric_stats(store, b, t, false, lower)});
  }
  row.effect_label = a.group + " - " + b.group;
  const Difference d = welch_difference(sa, sb);
  row.effect = sa.n && sb.n ? d.mean : kNaN;
  row.effect_low = d.valid ? d.low : kNaN;
  row.effect_high = d.valid ? d.high : kNaN;
  if (sa.n < 2 || sb.n < 2) {
    row.verdict = Verdict::Inconclusive;
    row.reason = sa.n < 2 ? too_few(a.group, sa) : too_few(b.group, sb);
    if (!std::isnan(budget)) row.reason += " at this budget (a run that ends before it has no value there)";
    return row;
  }
  const bool below = d.high < 0, above = d.low > 0;
  row.verdict = (lower ? below : above) ? Verdict::Holds : (lower ? above : below) ? Verdict::DoesNotHold : Verdict::Inconclusive;
  row.reason = row.verdict == Verdict::Inconclusive ? "the 95% interval of the difference contains 0"
               : std::string("the 95% interval of the difference is ") + (below ? "below" : "above") + " 0";
  return row;
}

// Where the two groups' mean learning curves of the claim's metric cross, on tokens and on FLOPs.
void add_crossings(const Claim& c, const GroupReport& a, const GroupReport& b, store::Store& store, ClaimReport& out) {
  for (const char* axis : {"tokens", "flops"}) {
    const auto ca = mean_curve(store, a, c.metric.key, axis), cb = mean_curve(store, b, c.metric.key, axis);
    CurveCrossing x;
    x.label = a.group + " vs " + b.group;
    x.axis = axis;
    if (ca.size() < 2 || cb.size() < 2) continue;
    x.lo = std::max(ca.front().first, cb.front().first);
    x.hi = std::min(ca.back().first, cb.back().first);
    if (!(x.lo < x.hi)) continue;
    x.at = curve_crossings(ca, cb);
    const double ea = value_at(ca, x.hi), eb = value_at(cb, x.hi);
    const bool a_better = c.kind == ClaimKind::LowerIsBetter ? ea < eb : ea > eb;
    x.better_at_end = ea == eb ? "neither" : a_better ? a.group : b.group;
    out.crossings.push_back(std::move(x));
  }
}

// Per replica: GSS weight at the edge layers minus in the middle, attention weight in the middle
// minus at the edges (means over those layers of the final snapshot), and whether the strict
// pattern (each branch's largest weight where the claim puts it) holds.
struct SandwichStats {
  std::vector<double> gss, attn;
  size_t strict = 0;
  std::vector<std::vector<float>> weights;  // per replica, layer-major L x 3
  std::string problem;
};

SandwichStats sandwich_of(const Claim& c, const GroupReport& g, store::Store& store) {
  SandwichStats out;
  for (const auto& r : g.replicas) {
    const auto steps = store.mixer_steps(r.run_id);
    if (steps.empty()) {
      out.problem = "run " + std::to_string(r.run_id) + " recorded no mixer snapshot";
      continue;
    }
    const auto snap = store.read_mixer(r.run_id, steps.back());
    const int L = snap->layers, e = c.edge_layers;
    if (snap->branches != 3 || L < 2 * e + 1) {
      out.problem = g.group + " has " + std::to_string(L) + " layers; the claim needs at least 2 x edge_layers + 1 = " +
                    std::to_string(2 * e + 1);
      continue;
    }
    auto w = [&](int l, int b) { return static_cast<double>(snap->weights[static_cast<size_t>(l * 3 + b)]); };
    double ge = 0, gm = 0, ae = 0, am = 0;
    int best_g = 0, best_a = 0;
    for (int l = 0; l < L; ++l) {
      const bool edge = l < e || l >= L - e;
      (edge ? ge : gm) += w(l, 0);
      (edge ? ae : am) += w(l, 1);
      if (w(l, 0) > w(best_g, 0)) best_g = l;
      if (w(l, 1) > w(best_a, 1)) best_a = l;
    }
    if (std::isnan(ge + gm + ae + am)) {
      out.problem = g.group + " has layers without a mixer (their weights are not recorded)";
      continue;
    }
    ge /= 2 * e, ae /= 2 * e, gm /= L - 2 * e, am /= L - 2 * e;
    out.gss.push_back(ge - gm);
    out.attn.push_back(am - ae);
    const bool g_edge = best_g < e || best_g >= L - e, a_edge = best_a < e || best_a >= L - e;
    if (g_edge && !a_edge) ++out.strict;
    out.weights.push_back(snap->weights);
  }
  return out;
}

ClaimRow sandwich_row(const Claim& c, const GroupReport& g, store::Store& store, std::vector<MixerLayer>* layers) {
  const SandwichStats s = sandwich_of(c, g, store);
  ClaimRow row;
  row.label = g.grid_point.empty() ? g.group : g.grid_point;
  const Stats dg = summarize(s.gss), da = summarize(s.attn);
  row.measured = {{"GSS weight, first/last minus middle layers", dg}, {"attention weight, middle minus first/last layers", da}};
  row.effect = row.effect_low = row.effect_high = kNaN;
  if (layers && !s.weights.empty()) {
    const size_t L = s.weights.front().size() / 3;
    for (size_t l = 0; l < L; ++l) {
      std::vector<double> b[3];
      for (const auto& w : s.weights)
        for (int k = 0; k < 3; ++k) b[k].push_back(w.size() == L * 3 ? w[l * 3 + static_cast<size_t>(k)] : kNaN);
      layers->push_back({static_cast<int>(l), summarize(b[0]), summarize(b[1]), summarize(b[2])});
    }
  }
  if (dg.n < 2) {
    row.verdict = Verdict::Inconclusive;
    row.reason = !s.problem.empty() ? s.problem : too_few(g.group, dg);
    return row;
  }
  const bool holds = dg.ci_low > 0 && da.ci_low > 0, fails = dg.ci_high < 0 || da.ci_high < 0;
  row.verdict = holds ? Verdict::Holds : fails ? Verdict::DoesNotHold : Verdict::Inconclusive;
  row.reason = std::string(holds   ? "both 95% intervals are above 0"
                           : fails ? "a 95% interval is below 0"
                                   : "a 95% interval contains 0") +
               "; the strict pattern (GSS largest at an end, attention largest in the middle) in " +
               std::to_string(s.strict) + " of " + std::to_string(s.gss.size()) + " replicas";
  return row;
}

ClaimRow params_row(const Claim& c, const Report& report, store::Store& store) {
  ClaimRow row;
  row.label = c.family + " models with at most " + std::to_string(c.max_params) + " parameters";
  row.effect = row.effect_low = row.effect_high = kNaN;
  bool any_reaches = false, all_below = true, all_enough = true;
  for (const auto& g : report.groups) {
    if (g.family != c.family || g.n_params <= 0 || g.n_params > c.max_params) continue;
    const Stats s = metric_stats(store, g, c.metric, false, false);
    row.measured.push_back({g.group + " (" + std::to_string(g.n_params) + " parameters)", s});
    if (s.n < 2) {
      all_enough = false;
      continue;
    }
    any_reaches = any_reaches || s.ci_low >= c.threshold;
    all_below = all_below && s.ci_high < c.threshold;
  }
  const std::string t = format_number(c.threshold);
  if (row.measured.empty()) {
    row.verdict = Verdict::Inconclusive;
    row.reason = "no " + c.family + " model with at most " + std::to_string(c.max_params) + " parameters has a finished run";
  } else if (c.at_least) {
    row.verdict = any_reaches ? Verdict::Holds : all_enough && all_below ? Verdict::DoesNotHold : Verdict::Inconclusive;
    row.reason = any_reaches ? "a model's 95% interval is at or above " + t
                 : row.verdict == Verdict::DoesNotHold ? "every model's 95% interval is below " + t
                                                       : "no interval is entirely at or above " + t +
                                                             (all_enough ? "" : " (or a model has fewer than 2 replicas)");
  } else {
    row.verdict = any_reaches ? Verdict::DoesNotHold : all_enough && all_below ? Verdict::Holds : Verdict::Inconclusive;
    row.reason = any_reaches ? "a model's 95% interval is at or above " + t
                 : row.verdict == Verdict::Holds ? "every model's 95% interval is below " + t
                                                 : "an interval reaches " + t +
                                                       (all_enough ? "" : " (or a model has fewer than 2 replicas)");
  }
  return row;
}

void overall(ClaimReport& out, const std::string& unit) {
  std::map<Verdict, size_t> count;
  for (const auto& r : out.rows) ++count[r.verdict];
  out.verdict = count.size() == 1 ? count.begin()->first : Verdict::Mixed;
  if (out.rows.size() == 1) {
    out.summary = to_string(out.verdict);
    return;
  }
  for (const auto& [v, n] : count)
    out.summary += (out.summary.empty() ? "" : "; ") + std::string(to_string(v)) + " at " + std::to_string(n) + " of " +
                   std::to_string(out.rows.size()) + " " + unit;
}

}  // namespace

ClaimReport evaluate_claim(const Claim& c, const Study& study, const Report& report, store::Store& store) {
  ClaimReport out;
  out.claim = c;
  out.statement = statement(c);
  if (c.kind == ClaimKind::LowerIsBetter || c.kind == ClaimKind::HigherIsBetter) {
    out.tuning = study.tune.enabled
                     ? "tuned: each family at its own best setting of " + study.tune.axes + " on " + study.tune.select.text +
                           " (tuning table below)"
                     : "untuned: every family at the project's one training setting (no \"tune\" section), which may "
                       "favour the family that setting suits";
    for (const auto& [pa, pb] : pairs_of(report, picks(study, report, c.better), picks(study, report, c.than))) {
      const GroupReport& a = report.groups[pa.group];
      const GroupReport& b = report.groups[pb.group];
      if (!pa.problem.empty() || !pb.problem.empty()) {
        ClaimRow row;
        row.label = a.grid_point.empty() ? c.better + " vs " + c.than : a.grid_point;
        row.effect = row.effect_low = row.effect_high = kNaN;
        row.verdict = Verdict::Inconclusive;
        row.reason = (pa.problem.empty() ? pb.problem : pa.problem) + "; the verdict waits for every setting";
        out.rows.push_back(std::move(row));
        continue;
      }
      if (c.budget_axis.empty()) {
        out.rows.push_back(compare_row(c, a, b, store, kNaN, study.tune.enabled));
      } else {
        for (double budget : c.budgets) out.rows.push_back(compare_row(c, a, b, store, budget));
        add_crossings(c, a, b, store, out);
      }
    }
  } else if (c.kind == ClaimKind::MixerSandwich) {
    for (size_t i : groups_named(report, c.run)) {
      const bool first = out.rows.empty();
      if (first) out.mixer_group = report.groups[i].group;
      out.rows.push_back(sandwich_row(c, report.groups[i], store, first ? &out.mixer : nullptr));
    }
  } else {
    out.rows.push_back(params_row(c, report, store));
  }
  if (out.rows.empty()) {
    ClaimRow none;
    none.label = c.better + " vs " + c.than;
    none.effect = none.effect_low = none.effect_high = kNaN;
    none.reason = "no grid point has runs of both";
    out.rows.push_back(none);
  }
  overall(out, c.budget_axis.empty() ? "grid points" : "budgets");
  return out;
}

}  // namespace pha::analysis
