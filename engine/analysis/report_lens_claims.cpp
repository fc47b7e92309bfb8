// The claims read from the hybrid lens's stored measurements (store/lens_store.h, written by
// `pha lens weights --record` and `pha lens knockout --record` on a run's checkpoint): the rows
// of the knockout and specialisation kinds (a one-sample t interval of a per-replica difference
// of two knock-outs), and a run's effective mixer shares for the sandwich claim. Each row gets
// its statistics, raw p and direction; the verdict follows from the report's correction
// (report_stats.cpp). Rules: docs/report.md.
#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/report.h"
#include "analysis/internal/report_internal.h"
#include "store/lens_store.h"
#include "store/store.h"

namespace pha::analysis::detail {

namespace {

// One stored knock-out: the branch removed at a layer (-1: every layer), the loss read on a
// token class ("": every counted token).
struct KnockoutKey {
  int layer = -1;
  std::string branch, cls;

  bool matches(const store::LensRow& r) const {
    return r.kind == "knockout" && r.layer == layer && r.branch == branch && r.cls == cls;
  }
};

// "attn removed at layer 3, query tokens".
std::string key_text(const KnockoutKey& k) {
  return k.branch + " removed " + layer_words(k.layer) + ", " + (k.cls.empty() ? "all" : k.cls) + " tokens";
}

// The two knock-outs a claim compares: knockout, the claim's branch against hurts_more_than on
// one class; specialisation, one branch on class against than.
std::pair<KnockoutKey, KnockoutKey> keys_of(const Claim& c) {
  if (c.kind == ClaimKind::Knockout)
    return {{c.layer, c.branch, c.token_class}, {c.layer, c.other_branch, c.token_class}};
  return {{c.layer, c.branch, c.token_class}, {c.layer, c.branch, c.than_class}};
}

// What a replica's rows lack for the claim ("" when it has both knock-outs).
std::string missing_text(int64_t run_id, const std::vector<store::LensRow>& rows, const KnockoutKey& a,
                         const KnockoutKey& b, bool has_a, bool has_b) {
  const std::string id = std::to_string(run_id);
  const bool any = std::any_of(rows.begin(), rows.end(), [](const store::LensRow& r) { return r.kind == "knockout"; });
  if (!any) return "run " + id + " has no knock-out measurement: run \"pha lens knockout --run " + id + " --record\"";
  if (has_a && has_b) return "";
  return "run " + id + "'s knock-out has no row for " + key_text(has_a ? b : a) + " (measure it again: \"pha lens knockout --run " +
         id + " --record\")";
}

std::string joined(const std::set<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::vector<float> effective_shares(store::Store& store, int64_t run_id) {
  std::vector<store::LensRow> shares;
  int layers = 0;
  for (auto& r : store::read_lens(store, run_id))
    if (r.kind == "effective_share" && r.cls.empty() && r.layer >= 0) {
      layers = std::max(layers, r.layer + 1);
      shares.push_back(std::move(r));
    }
  std::vector<float> out(static_cast<size_t>(layers) * 3, static_cast<float>(kNoValue));  // (L, 3) layer-major
  const auto& names = branch_names();
  for (const auto& r : shares) {
    const auto b = std::find(names.begin(), names.end(), r.branch);
    if (b != names.end()) out[static_cast<size_t>(r.layer) * 3 + static_cast<size_t>(b - names.begin())] = static_cast<float>(r.value);
  }
  return out;
}

ClaimRow knockout_row(const Claim& c, const GroupReport& g, store::Store& store) {
  const auto [ka, kb] = keys_of(c);
  ClaimRow row;
  row.label = g.grid_point.empty() ? g.group : g.grid_point;
  Measured a, b;
  a.label = g.group + " loss rise, " + key_text(ka);
  b.label = g.group + " loss rise, " + key_text(kb);
  std::vector<std::string> problems;
  std::set<std::string> sources;
  for (const auto& r : g.replicas) {
    const auto rows = store::read_lens(store, r.run_id);
    double va = kNoValue, vb = kNoValue;
    for (const auto& x : rows) {
      if (ka.matches(x)) va = x.value, sources.insert(x.source);
      if (kb.matches(x)) vb = x.value, sources.insert(x.source);
    }
    const std::string missing = missing_text(r.run_id, rows, ka, kb, !std::isnan(va), !std::isnan(vb));
    if (!missing.empty()) problems.push_back(missing);
    a.values.push_back(va), b.values.push_back(vb);
    a.seeds.push_back(r.seed), b.seeds.push_back(r.seed);
  }
  a.stats = summarize(a.values), b.stats = summarize(b.values);
  row.measured = {a, b};
  row.effect_label = c.kind == ClaimKind::Knockout ? c.branch + " - " + c.other_branch + " knock-out (nats/token)"
                                                   : c.token_class + " - " + c.than_class + " (nats/token)";
  row.effect = row.effect_low = row.effect_high = kNoValue;
  if (!problems.empty()) {  // judged on every replica or not at all: a subset would be chosen by what was measured
    row.verdict = Verdict::Inconclusive;
    for (const auto& p : problems) row.reason += (row.reason.empty() ? "" : "; ") + p;
    return row;
  }
  const Difference d = paired_difference(a.values, b.values);
  if (d.n < kMinReplicasForVerdict) {
    row.verdict = Verdict::TooFewReplicas;
    row.reason = too_few(g.group, d.n);
    return row;
  }
  row.effect = d.mean;
  row.effect_low = d.low;
  row.effect_high = d.high;
  row.test.compare = true;  // one sample of per-replica differences: its power as a paired test's
  row.test.text = "one-sample t of the per-replica difference, n=" + std::to_string(d.n);
  row.test.spread = {TTest::Paired, d.sd, 0.0, 2};
  row.test.df = d.df;
  row.test.se = d.se;
  row.test.direction = d.mean > 0 ? 1 : d.mean < 0 ? -1 : 0;
  row.p = d.p;
  row.reason = "knock-outs measured on " + joined(sources);
  return row;
}

}  // namespace pha::analysis::detail
