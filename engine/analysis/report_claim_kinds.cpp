// The rows of the claims that are not comparisons of two groups: mixer_sandwich (one-sample t
// intervals of two per-replica differences, on effective shares when every replica has them:
// report_lens_claims.cpp) and accuracy_at_params (Wilson intervals of the rate
// at which seeds reach the threshold). Each row gets its statistics, a raw p-value and the side
// its statistic lies on; the verdict follows from the report's correction (report_stats.cpp).
// Rules: docs/report.md.
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "analysis/report.h"
#include "analysis/internal/report_internal.h"
#include "core/config_reader.h"
#include "store/store.h"

namespace pha::analysis::detail {

namespace {

// Per replica: GSS weight at the edge layers minus in the middle, attention weight in the middle
// minus at the edges (means over those layers), and whether the strict pattern (each branch's
// largest weight where the claim puts it) holds. The weights are the effective shares (mixer
// weight x gain RMS over the layer's sum, `pha lens weights`) when every replica has them, else
// the final mixer snapshot's raw weights.
struct SandwichStats {
  std::vector<double> gss, attn;
  std::vector<int64_t> seeds;
  size_t strict = 0;
  std::vector<std::vector<float>> weights;  // per replica with a snapshot, layer-major (L, 3)
  std::vector<std::vector<float>> shares;   // per replica with effective shares, layer-major (L, 3)
  bool effective = false;
  std::string basis;  // which weights were judged, in words
  std::string problem;
};

// The two differences and the strict pattern of one replica's (L, 3) weights; false with
// `problem` set when they cannot be read.
bool sandwich_differences(const std::vector<float>& weights, int e, const std::string& group, SandwichStats& out) {
  const int L = static_cast<int>(weights.size() / 3);
  if (L < 2 * e + 1) {
    out.problem = group + " has " + std::to_string(L) + " layers; the claim needs at least 2 x edge_layers + 1 = " +
                  std::to_string(2 * e + 1);
    return false;
  }
  auto w = [&](int l, int b) { return static_cast<double>(weights[static_cast<size_t>(l * 3 + b)]); };
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
    out.problem = group + " has layers without a mixer (their weights are not recorded)";
    return false;
  }
  ge /= 2 * e, ae /= 2 * e, gm /= L - 2 * e, am /= L - 2 * e;
  out.gss.push_back(ge - gm);
  out.attn.push_back(am - ae);
  const bool g_edge = best_g < e || best_g >= L - e, a_edge = best_a < e || best_a >= L - e;
  if (g_edge && !a_edge) ++out.strict;
  return true;
}

SandwichStats sandwich_of(const Claim& c, const GroupReport& g, store::Store& store) {
  SandwichStats out;
  std::vector<std::vector<float>> shares;
  std::string unmeasured;
  for (const auto& r : g.replicas) {
    shares.push_back(effective_shares(store, r.run_id));
    if (shares.back().empty()) unmeasured += (unmeasured.empty() ? "" : ", ") + std::to_string(r.run_id);
    else out.shares.push_back(shares.back());
  }
  out.effective = !g.replicas.empty() && unmeasured.empty();
  out.basis = out.effective ? "judged on effective weights (mixer weight x gain RMS, \"pha lens weights\")"
              : unmeasured.empty()
                  ? "judged on raw mixer weights"
                  : "judged on raw mixer weights: effective weights not measured for run" +
                        std::string(unmeasured.find(',') == std::string::npos ? " " : "s ") + unmeasured +
                        " (\"pha lens weights --run N --record\")";
  for (size_t i = 0; i < g.replicas.size(); ++i) {
    const auto& r = g.replicas[i];
    const auto steps = store.mixer_steps(r.run_id);
    std::optional<store::MixerSnapshot> snap;
    if (!steps.empty()) snap = store.read_mixer(r.run_id, steps.back());
    if (snap && snap->branches == 3) out.weights.push_back(snap->weights);
    if (out.effective) {
      if (sandwich_differences(shares[i], c.edge_layers, g.group, out)) out.seeds.push_back(r.seed);
      continue;
    }
    if (!snap) {
      out.problem = "run " + std::to_string(r.run_id) + " recorded no mixer snapshot";
      continue;
    }
    if (snap->branches != 3) {
      out.problem = g.group + " has " + std::to_string(snap->branches) + " branches per mixer; the claim needs gss, attn, ffn";
      continue;
    }
    if (sandwich_differences(snap->weights, c.edge_layers, g.group, out)) out.seeds.push_back(r.seed);
  }
  return out;
}

// Mean ± std over the replicas of branch k at layer l ((L, 3) each; NaN where a replica has fewer layers).
Stats layer_stats(const std::vector<std::vector<float>>& per_replica, size_t l, size_t k) {
  std::vector<double> v;
  for (const auto& w : per_replica) v.push_back(l * 3 + k < w.size() ? w[l * 3 + k] : kNoValue);
  return summarize(v);
}

void add_layers(const SandwichStats& s, std::vector<MixerLayer>& layers) {
  size_t L = 0;
  for (const auto* set : {&s.weights, &s.shares})
    for (const auto& w : *set) L = std::max(L, w.size() / 3);
  for (size_t l = 0; l < L; ++l)
    layers.push_back({static_cast<int>(l), layer_stats(s.weights, l, 0), layer_stats(s.weights, l, 1),
                      layer_stats(s.weights, l, 2), layer_stats(s.shares, l, 0), layer_stats(s.shares, l, 1),
                      layer_stats(s.shares, l, 2)});
}

// One group's seeds at an accuracy threshold: the rate reaching it and the score test of 1/2.
struct Reach {
  Proportion rate;
  double p = 1.0;
  bool enough = false;  // n >= kMinReplicasForVerdict
};

}  // namespace

std::string too_few(const std::string& who, std::size_t n) {
  return who + " has " + std::to_string(n) + " replica" + (n == 1 ? "" : "s") + " with this metric (a verdict needs " +
         std::to_string(kMinReplicasForVerdict) + " or more)";
}

ClaimRow sandwich_row(const Claim& c, const GroupReport& g, store::Store& store, std::vector<MixerLayer>* layers) {
  const SandwichStats s = sandwich_of(c, g, store);
  ClaimRow row;
  row.label = g.grid_point.empty() ? g.group : g.grid_point;
  const Stats dg = summarize(s.gss), da = summarize(s.attn);
  const std::string what = s.effective ? " effective share, " : " weight, ";
  row.measured = {{"GSS" + what + "first/last minus middle layers", dg, s.gss, s.seeds},
                  {"attention" + what + "middle minus first/last layers", da, s.attn, s.seeds}};
  row.effect = row.effect_low = row.effect_high = kNoValue;
  if (layers) add_layers(s, *layers);
  if (dg.n < kMinReplicasForVerdict) {
    row.verdict = s.problem.empty() ? Verdict::TooFewReplicas : Verdict::Inconclusive;
    row.reason = (!s.problem.empty() ? s.problem : too_few(g.group, dg.n)) + "; " + s.basis;
    return row;
  }
  const double pg = one_sample_p(dg), pa = one_sample_p(da);
  row.p = std::max(pg, pa);  // both differences must be nonzero: the larger p decides
  row.test.text = "one-sample t of each difference, n=" + std::to_string(dg.n) + " (p: the larger of the two, " +
                  num(pg) + " and " + num(pa) + ")";
  row.test.df = static_cast<double>(dg.n - 1);
  row.test.direction = dg.mean > 0 && da.mean > 0 ? 1 : dg.mean < 0 || da.mean < 0 ? -1 : 0;
  row.reason = std::string(row.test.direction > 0 ? "both differences are above 0" : row.test.direction < 0 ? "a difference is below 0" : "a difference is 0") +
               "; the strict pattern (GSS largest at an end, attention largest in the middle) in " +
               std::to_string(s.strict) + " of " + std::to_string(s.gss.size()) + " replicas; " + s.basis;
  return row;
}

std::vector<const GroupReport*> params_groups(const Claim& c, const Report& report, std::string& waiting) {
  const auto in_claim = [&](const GroupReport& g) {
    return g.family == c.family && g.n_params > 0 && g.n_params <= c.max_params;
  };
  const auto find = [&](const std::string& name) -> const GroupReport* {
    for (const auto& g : report.groups)
      if (g.group == name) return &g;
    return nullptr;
  };
  std::set<std::string> tuned, read;
  std::vector<std::string> unfinished;
  for (const auto& t : report.tuning) {
    const GroupReport* any = nullptr;
    for (const auto& s : t.settings) {
      tuned.insert(s.group);
      if (const GroupReport* g = find(s.group); g && g->n_params > 0) any = g;
    }
    if (!t.confirmation_group.empty()) tuned.insert(t.confirmation_group);
    if (!any || !in_claim(*any)) continue;
    const std::string name = t.entry + (t.grid_point.empty() ? "" : " at " + t.grid_point);
    if (!t.complete || t.chosen < 0) {
      unfinished.push_back(name + " (" + t.note + ")");
      continue;
    }
    const std::string& chosen = t.settings[static_cast<size_t>(t.chosen)].group;
    if (t.confirmation_group.empty()) {
      read.insert(chosen);
      continue;
    }
    read.insert(t.confirmation_group);
    const GroupReport* conf = find(t.confirmation_group);
    if (!conf || conf->pending > 0)
      unfinished.push_back(name + " (" + chosen + "'s confirmation " + (conf ? "incomplete" : "not planned yet") + ")");
  }
  waiting.clear();
  for (const auto& u : unfinished) waiting += (waiting.empty() ? "" : "; ") + u;
  std::vector<const GroupReport*> out;
  for (const auto& g : report.groups)
    if (in_claim(g) && (!tuned.count(g.group) || read.count(g.group))) out.push_back(&g);
  return out;
}

// The per-group rates, then the rule of each direction (min / max).
ClaimRow params_row(const Claim& c, const Report& report, store::Store& store) {
  ClaimRow row;
  row.label = c.family + " models with at most " + std::to_string(c.max_params) + " parameters";
  if (!report.tuning.empty()) row.label += ", each tuned model at its chosen setting";
  row.effect = row.effect_low = row.effect_high = kNoValue;
  std::vector<Reach> reach;
  std::string waiting;
  for (const GroupReport* gp : params_groups(c, report, waiting)) {
    const GroupReport& g = *gp;
    Measured m;
    m.label = g.group + " (" + std::to_string(g.n_params) + " parameters)";
    for (const auto& r : g.replicas) {
      m.values.push_back(replica_value(store, r.run_id, c.metric, false, false));
      m.seeds.push_back(r.seed);
    }
    m.stats = summarize(m.values);
    const size_t k = static_cast<size_t>(std::count_if(m.values.begin(), m.values.end(),
                                                       [&](double v) { return std::isfinite(v) && v >= c.threshold; }));
    Reach r{wilson_interval(k, m.stats.n), score_test_p(k, m.stats.n), m.stats.n >= kMinReplicasForVerdict};
    m.successes = static_cast<int>(k);
    m.wilson_low = r.rate.low;
    m.wilson_high = r.rate.high;
    row.measured.push_back(std::move(m));
    reach.push_back(r);
  }
  if (!waiting.empty()) {  // a verdict on part of the family would be read before its choice
    row.verdict = Verdict::Inconclusive;
    row.reason = "the verdict waits for the tuning of " + waiting;
    return row;
  }
  const std::string t = core::format_number(c.threshold);
  if (row.measured.empty()) {
    row.verdict = Verdict::Inconclusive;
    row.reason = "no " + c.family + " model with at most " + std::to_string(c.max_params) + " parameters has a finished run";
    return row;
  }
  // "Some group reaches t in most seeds" (its Wilson lower bound above 1/2) and "every group
  // stays below t in most seeds" (every upper bound below 1/2, every group with enough seeds).
  size_t tested = 0;
  bool some_above = false, all_below = true;
  double p_some = 1.0, p_every = 0.0;  // the score p of each statement: the best group's (times the
                                       // groups tested: a union), the worst group's (an intersection)
  for (const Reach& r : reach) {
    all_below = all_below && r.enough && r.rate.high < 0.5;
    if (!r.enough) {
      p_every = 1.0;
      continue;
    }
    ++tested;
    some_above = some_above || r.rate.low > 0.5;
    const bool up = 2 * r.rate.k > r.rate.n;
    if (up) p_some = std::min(p_some, r.p);
    p_every = std::max(p_every, up || 2 * r.rate.k == r.rate.n ? 1.0 : r.p);
  }
  if (tested == 0) {
    row.verdict = Verdict::TooFewReplicas;
    row.reason = too_few(row.measured.front().label, row.measured.front().stats.n) + " (every model of the family)";
    return row;
  }
  p_some = std::min(1.0, static_cast<double>(tested) * p_some);
  // min_accuracy claims "some group reaches it", max_accuracy "every group stays below it".
  const bool claim_some = c.at_least;
  const double p_claimed = claim_some ? p_some : p_every, p_other = claim_some ? p_every : p_some;
  const bool rule_claimed = claim_some ? some_above : all_below, rule_other = claim_some ? all_below : some_above;
  row.p = std::min(p_claimed, p_other);
  row.test.direction = p_claimed <= p_other ? (rule_claimed ? 1 : 0) : (rule_other ? -1 : 0);
  row.test.text = "Wilson 95% interval of the seeds reaching " + t + "; score test of a rate of 1/2";
  const std::string some = "a model reaches " + t + " in most seeds (its Wilson lower bound is above 1/2)";
  const std::string every = "every model stays below " + t + " in most seeds (every Wilson upper bound is below 1/2)";
  row.reason = some_above ? some : all_below ? every
                                             : "no model's Wilson interval excludes 1/2" +
                                                   std::string(tested < reach.size() ? " (or a model has fewer than 3 replicas)" : "");
  return row;
}

}  // namespace pha::analysis::detail
