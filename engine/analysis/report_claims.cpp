// Claim rows (rules in docs/report.md): which groups a claim compares (grid points, tuned
// settings), each comparison's effect and its test (paired by seed when both sides have the
// same seeds, else Welch), its raw p, the evaluation's own noise and the training budget. The
// verdicts follow from the report's correction over every row (report_stats.cpp); the other
// claim kinds' rows are in report_claim_kinds.cpp, report_lens_claims.cpp and
// report_efficiency_claims.cpp, learning curves in report_curves.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "analysis/report.h"
#include "analysis/internal/report_internal.h"
#include "analysis/scaling_fit.h"
#include "core/config_reader.h"
#include "store/store.h"
#include "core/numbers.h"

namespace pha::analysis {

namespace {

using core::kNaN;

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
      out.push_back({i, name + ": " + t->note + "; the verdict waits for every setting"});
    } else if (study.tune.confirm_seeds.empty()) {
      const std::string& chosen = t->settings[static_cast<size_t>(t->chosen)].group;
      for (size_t j : idx)
        if (report.groups[j].group == chosen) out.push_back({j, ""});
    } else {
      // Selection and confirmation: the verdict is read on the chosen setting's fresh seeds.
      const TuningSetting& chosen = t->settings[static_cast<size_t>(t->chosen)];
      const std::string setting = chosen.tune_point.empty() ? chosen.group : chosen.tune_point;
      bool found = false;
      for (size_t j : idx) {
        const GroupReport& c = report.groups[j];
        if (c.group != t->confirmation_group || t->confirmation_group.empty()) continue;
        found = true;
        if (c.pending > 0)
          out.push_back({j, name + ": confirmation incomplete: " + std::to_string(c.replicas.size()) + " of " +
                                std::to_string(c.seeds.size()) + " confirmation replicas of " + setting + " finished"});
        else
          out.push_back({j, ""});
      }
      if (!found)
        out.push_back({i, name + ": " + setting + " is chosen (" + t->seeds +
                              ") but not confirmed yet: pha train plans its confirmation runs"});
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

// A side's values: one per replica (NaN where it has none: a metric it did not record, a budget
// beyond its last evaluation), with the replicas' seeds.
Measured side_of(const Claim& c, const GroupReport& g, const MetricRef& metric, store::Store& store, double budget) {
  const bool lower = c.kind == ClaimKind::LowerIsBetter;
  Measured m;
  m.label = g.group;
  for (const auto& r : g.replicas) {
    m.values.push_back(std::isnan(budget) ? detail::replica_value(store, r.run_id, metric, c.best, lower)
                                          : detail::value_at(detail::curve_of(store, r.run_id, metric.key, c.budget_axis,
                                                                              g.train_flops_per_token),
                                                             budget));
    m.seeds.push_back(r.seed);
  }
  m.stats = summarize(m.values);
  return m;
}

// The values of the seeds both sides have, in seed order; false when the sides' seeds (with a
// finite value) differ.
bool paired_by_seed(const Measured& a, const Measured& b, std::vector<double>& va, std::vector<double>& vb) {
  std::map<int64_t, double> ma, mb;
  for (size_t i = 0; i < a.values.size(); ++i)
    if (std::isfinite(a.values[i])) ma[a.seeds[i]] = a.values[i];
  for (size_t i = 0; i < b.values.size(); ++i)
    if (std::isfinite(b.values[i])) mb[b.seeds[i]] = b.values[i];
  if (ma.size() != mb.size()) return false;
  for (auto ia = ma.begin(), ib = mb.begin(); ia != ma.end(); ++ia, ++ib) {
    if (ia->first != ib->first) return false;
    va.push_back(ia->second);
    vb.push_back(ib->second);
  }
  return true;
}

// The evaluation set and the "<metric>_se" row behind a claim's metric: val/<m> on "valid",
// test/<m> on "test" (loss, ppl -> perplexity, bpb), test/<set>/accuracy, eval/<set>/<m>[@T].
// false: the metric is not an evaluation's (train/loss, val/accuracy).
bool se_source(const MetricRef& m, std::string& set, std::string& name, int64_t& seq_len) {
  seq_len = -1;
  if (m.source == MetricRef::Source::Eval) {
    set = m.set, name = m.metric + "_se", seq_len = m.seq_len;
    return true;
  }
  const std::string& k = m.key;
  const bool val = k.rfind("val/", 0) == 0, test = k.rfind("test/", 0) == 0;
  if (!val && !test) return false;
  const std::string rest = k.substr(val ? 4 : 5);
  const size_t slash = rest.find('/');
  if (test && slash != std::string::npos && rest.substr(slash + 1) == "accuracy") {
    set = rest.substr(0, slash), name = "accuracy_se";
    return true;
  }
  const std::map<std::string, std::string> text = {{"loss", "loss_se"}, {"ppl", "perplexity_se"}, {"bpb", "bpb_se"}};
  if (slash != std::string::npos || !text.count(rest)) return false;
  set = val ? "valid" : "test", name = text.at(rest);
  return true;
}

// The mean over a side's replicas with a value of the SE their last evaluation recorded (NaN: none).
double mean_eval_se(store::Store& store, const GroupReport& g, const Measured& side, const std::string& set,
                    const std::string& name, int64_t seq_len) {
  double sum = 0.0;
  int n = 0;
  for (size_t i = 0; i < g.replicas.size() && i < side.values.size(); ++i) {
    if (!std::isfinite(side.values[i])) continue;
    int64_t step = -1;
    double se = kNaN;
    for (const auto& r : store.evals(g.replicas[i].run_id))
      if (r.task == set && r.metric == name && (seq_len < 0 || r.seq_len == seq_len) && r.step >= step)
        step = r.step, se = r.value;
    if (std::isfinite(se)) sum += se, ++n;
  }
  return n ? sum / n : kNaN;
}

EvalNoise eval_noise(const Claim& c, const GroupReport& a, const GroupReport& b, const Measured& ma,
                     const Measured& mb, double effect, store::Store& store, double budget) {
  EvalNoise e;
  std::string set, name;
  int64_t seq_len = -1;
  // At a budget the value is read mid-training, where no SE was recorded (only the final evaluation has one).
  if (!std::isnan(budget) || !se_source(c.metric, set, name, seq_len)) return e;
  e.applies = true;
  e.se_a = mean_eval_se(store, a, ma, set, name, seq_len);
  e.se_b = mean_eval_se(store, b, mb, set, name, seq_len);
  e.recorded = std::isfinite(e.se_a) && std::isfinite(e.se_b);
  if (!e.recorded) return e;
  e.noise = 1.96 * std::sqrt(e.se_a * e.se_a + e.se_b * e.se_b);
  e.within = std::fabs(effect) < e.noise;
  return e;
}

// The two sides, the reported test split, then the test chosen by seeds.
ClaimRow compare_row(const Claim& c, const GroupReport& a, const GroupReport& b, store::Store& store,
                     double budget = kNaN, bool with_test = false) {
  const bool lower = c.kind == ClaimKind::LowerIsBetter;
  ClaimRow row;
  row.label = a.grid_point.empty() || a.grid_point != b.grid_point ? a.group + " vs " + b.group : a.grid_point;
  if (!std::isnan(budget))
    row.label = core::format_number(budget) + " " + c.budget_axis + (a.grid_point.empty() ? "" : ", " + a.grid_point);
  row.better = a.group;
  row.than = b.group;
  row.at_budget = budget;
  row.test.compare = true;
  row.budget = detail::row_budget(c, {&a, &b}, store, budget);
  const Measured ma = side_of(c, a, c.metric, store, budget), mb = side_of(c, b, c.metric, store, budget);
  const Stats &sa = ma.stats, &sb = mb.stats;
  row.measured = {ma, mb};
  if (with_test && c.metric.source == MetricRef::Source::Summary && c.metric.key.rfind("val/", 0) == 0 &&
      std::isnan(budget)) {
    MetricRef t;
    t.text = t.key = "test/" + c.metric.key.substr(4);
    Claim final_value = c;
    final_value.best = false;
    for (const GroupReport* g : {&a, &b}) {
      row.measured.push_back(side_of(final_value, *g, t, store, kNaN));
      row.measured.back().label = g->group + " " + t.key + " (reported, not judged)";
    }
  }
  row.effect_label = a.group + " - " + b.group;
  row.effect = sa.n && sb.n ? sa.mean - sb.mean : kNaN;
  row.effect_low = row.effect_high = kNaN;
  if (sa.n < kMinReplicasForVerdict || sb.n < kMinReplicasForVerdict) {
    row.verdict = Verdict::TooFewReplicas;
    row.reason = sa.n < kMinReplicasForVerdict ? detail::too_few(a.group, sa.n) : detail::too_few(b.group, sb.n);
    if (!std::isnan(budget)) row.reason += " at this budget (a run that ends before it has no value there)";
    return row;
  }
  std::vector<double> va, vb;
  Difference d;
  if (paired_by_seed(ma, mb, va, vb)) {  // same seeds, same batches: the per-seed differences
    d = paired_difference(va, vb);
    row.test.text = "paired by seed, n=" + std::to_string(d.n);
    row.test.spread = {TTest::Paired, d.sd, 0.0, 2};
  } else {
    d = welch_difference(sa, sb);
    row.test.text = "Welch, unpaired: seeds differ";
    row.test.spread = {TTest::Welch, sa.std, sb.std, 2};
  }
  row.effect = d.mean;
  row.effect_low = d.low;
  row.effect_high = d.high;
  row.test.df = d.df;
  row.test.se = d.se;
  row.p = d.p;
  const int sign = d.mean < 0 ? -1 : d.mean > 0 ? 1 : 0;
  row.test.direction = lower ? -sign : sign;
  row.eval = eval_noise(c, a, b, ma, mb, d.mean, store, budget);
  return row;
}

}  // namespace

ClaimReport evaluate_claim(const Claim& c, const Study& study, const Report& report, store::Store& store) {
  ClaimReport out;
  out.claim = c;
  out.statement = statement(c);
  const std::string tuned_text =
      "tuned: each family at its own best setting of " + study.tune.axes + " on " + study.tune.select.text +
      (study.tune.confirm_seeds.empty() ? std::string() : ", chosen on the selection seeds and read on fresh confirmation seeds");
  if (c.kind == ClaimKind::LowerIsBetter || c.kind == ClaimKind::HigherIsBetter) {
    out.tuning = study.tune.enabled
                     ? tuned_text + " (tuning table below)"
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
        row.reason = pa.problem.empty() ? pb.problem : pa.problem;
        out.rows.push_back(std::move(row));
        continue;
      }
      if (c.budget_axis.empty()) {
        out.rows.push_back(compare_row(c, a, b, store, kNaN, study.tune.enabled));
      } else {
        for (double budget : c.budgets) out.rows.push_back(compare_row(c, a, b, store, budget));
        detail::add_crossings(c, a, b, store, out);
      }
    }
  } else if (c.kind == ClaimKind::MixerSandwich) {
    for (size_t i : groups_named(report, c.run)) {
      const bool first = out.rows.empty();
      if (first) out.mixer_group = report.groups[i].group;
      out.rows.push_back(detail::sandwich_row(c, report.groups[i], store, first ? &out.mixer : nullptr));
      out.rows.back().budget = detail::row_budget(c, {&report.groups[i]}, store, kNaN);
    }
  } else if (c.kind == ClaimKind::Knockout || c.kind == ClaimKind::Specialisation) {
    for (size_t i : groups_named(report, c.run)) {
      out.rows.push_back(detail::knockout_row(c, report.groups[i], store));
      out.rows.back().budget = detail::row_budget(c, {&report.groups[i]}, store, kNaN);
    }
  } else if (c.kind == ClaimKind::Efficiency) {
    const std::vector<size_t> runs = groups_named(report, c.run);
    std::vector<const GroupReport*> baselines;  // every group the baseline covers (any width), once
    for (const std::string& name : c.baseline)
      for (size_t i : groups_named(report, name))
        if (std::find(runs.begin(), runs.end(), i) == runs.end() &&
            std::find(baselines.begin(), baselines.end(), &report.groups[i]) == baselines.end())
          baselines.push_back(&report.groups[i]);
    for (size_t i : runs) {
      out.rows.push_back(detail::efficiency_row(c, report.groups[i], baselines, study, store));
      std::vector<const GroupReport*> groups = baselines;
      groups.insert(groups.begin(), &report.groups[i]);
      out.rows.back().budget = detail::row_budget(c, groups, store, kNaN);
    }
  } else {
    if (study.tune.enabled) out.tuning = tuned_text + " (tuning table below)";
    out.rows.push_back(detail::params_row(c, report, store));
    std::string waiting;
    const std::vector<const GroupReport*> groups = detail::params_groups(c, report, waiting);
    out.rows.back().budget = detail::row_budget(c, groups, store, kNaN);
  }
  if (out.rows.empty()) {
    ClaimRow none;
    none.label = c.run.empty() ? c.better + " vs " + c.than : c.run;
    none.effect = none.effect_low = none.effect_high = kNaN;
    none.reason = c.run.empty() ? "no grid point has runs of both" : "no group of " + c.run + " has runs";
    out.rows.push_back(none);
  }
  return out;
}

}  // namespace pha::analysis
