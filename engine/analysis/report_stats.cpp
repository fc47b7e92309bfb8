// The correction over one report (docs/report.md, Statistics): every row of every claim with a
// p-value is one test of the family; Holm's adjusted p (or none, or Dunnett's against a control
// with Holm for the other rows), the verdict at the adjusted p, the power of each comparison
// (minimum detectable effect, seeds needed), early-training marks and each claim's overall
// verdict.
#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/internal/multiplicity.h"
#include "analysis/report.h"
#include "core/config_reader.h"

namespace pha::analysis {

namespace {

std::string count(std::size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The control of Dunnett's comparisons: the settings' one, or the variants entry whose groups
// appear in the most comparison rows (ties: the first in the report's order).
std::string control_of(const Report& report, const ReportSettings& settings) {
  if (!settings.control.empty()) return settings.control;
  std::map<std::string, std::string> entry;  // group -> entry
  for (const auto& g : report.groups) entry[g.group] = g.entry;
  std::map<std::string, std::size_t> rows;
  for (const auto& c : report.claims)
    for (const auto& r : c.rows)
      for (const std::string* g : {&r.better, &r.than})
        if (entry.count(*g)) ++rows[entry[*g]];
  std::string best;
  for (const auto& g : report.groups)
    if (rows.count(g.entry) && (best.empty() || rows[g.entry] > rows[best])) best = g.entry;
  return best;
}

struct FamilyRow {
  ClaimRow* row;
  const ClaimReport* claim;
};

// Dunnett's comparisons against the control: the rows of one metric (at one budget) whose one
// side is the control's group form a set sharing a pooled variance; each row gets the pooled t,
// its raw p and Dunnett's adjusted p. Returns the rows left for Holm.
std::vector<ClaimRow*> dunnett_rows(std::vector<FamilyRow>& family, const Report& report, const std::string& control,
                                    std::size_t& against) {
  std::map<std::string, std::string> entry;
  for (const auto& g : report.groups) entry[g.group] = g.entry;
  auto is_control = [&](const std::string& g) { return !g.empty() && (g == control || entry[g] == control); };
  struct Set {
    std::string control_group;
    std::vector<double> control_values;
    std::vector<std::string> treatments;
    std::vector<std::vector<double>> values;
    std::vector<std::pair<ClaimRow*, std::size_t>> rows;  // row, treatment index
  };
  std::map<std::string, Set> sets;
  std::vector<ClaimRow*> rest;
  for (FamilyRow& f : family) {
    ClaimRow& r = *f.row;
    const bool a = r.test.compare && is_control(r.better), b = r.test.compare && is_control(r.than);
    if (a == b) {  // not a comparison against the control (or the control against itself)
      rest.push_back(&r);
      continue;
    }
    const Measured& ctrl = r.measured[a ? 0 : 1];
    const Measured& treat = r.measured[a ? 1 : 0];
    char at[32];
    std::snprintf(at, sizeof(at), "%.17g", r.at_budget);
    Set& s = sets[f.claim->claim.metric.text + (f.claim->claim.best ? " best" : "") + "|" + f.claim->claim.budget_axis +
                  at + "|" + ctrl.label];
    s.control_group = ctrl.label;
    s.control_values = ctrl.values;
    auto it = std::find(s.treatments.begin(), s.treatments.end(), treat.label);
    if (it == s.treatments.end()) {
      s.treatments.push_back(treat.label);
      s.values.push_back(treat.values);
      it = s.treatments.end() - 1;
    }
    s.rows.emplace_back(&r, static_cast<std::size_t>(it - s.treatments.begin()));
  }
  for (auto& [key, s] : sets) {
    const DunnettResult d = dunnett(s.control_values, s.values);
    for (auto& [row, i] : s.rows) {
      ClaimRow& r = *row;
      const double sign = r.than == s.control_group ? 1.0 : -1.0;  // effect = better - than
      r.effect = sign * d.effect[i];
      r.effect_low = sign > 0 ? d.low[i] : -d.high[i];
      r.effect_high = sign > 0 ? d.high[i] : -d.low[i];
      r.test.text = "Dunnett against " + s.control_group + ", pooled variance over " +
                    count(s.treatments.size() + 1, "group", "groups") + ", df " + core::format_number(d.df);
      r.test.df = d.df;
      r.test.se = d.se[i];
      r.test.spread = {TTest::Pooled, d.pooled_sd, 0.0, s.treatments.size() + 1};
      r.p = d.p[i];
      r.p_adjusted = d.p_adjusted[i];
      r.adjustment = "Dunnett against " + s.control_group + ", " + count(s.treatments.size(), "comparison", "comparisons");
      ++against;
    }
  }
  return rest;
}

// One hypothesis of a family: a row's test of "no difference", or one of its two margin tests.
struct Hyp {
  double p;
  double* adjusted;
  std::string* label;  // the row's adjustment text (null for a margin test: the row's says it)
};

// Holm over `hyps`, padded with untestable entries (p = 1) up to `planned` tests: the family's m
// is fixed by the design (planned_tests), not by which rows happen to have data.
void holm(const std::vector<Hyp>& hyps, std::size_t planned, const std::string& label) {
  std::vector<double> p;
  for (const Hyp& h : hyps) p.push_back(h.p);
  while (p.size() < planned) p.push_back(1.0);
  const std::vector<double> adjusted = holm_adjust(p);
  for (std::size_t i = 0; i < hyps.size(); ++i) {
    *hyps[i].adjusted = adjusted[i];
    if (hyps[i].label) *hyps[i].label = label;
  }
}

// The claimed side of a row's effect: -1 for lower_is_better (better - than below 0), +1 else.
int claimed_sign(const Claim& c) { return c.kind == ClaimKind::LowerIsBetter ? -1 : 1; }

// The two one-sided tests of a row against the claim's smallest effect of interest (TOST):
// hi tests "effect on the claimed side >= +margin", lo tests "<= -margin"; and the (1 - 2 alpha)
// interval of the effect, TOST's display. Without spread the answers are exact.
void margin_tests(ClaimRow& r, const Claim& c, double alpha) {
  if (!(c.smallest_effect > 0.0) || !std::isfinite(r.p) || !std::isfinite(r.effect)) return;
  const double s = claimed_sign(c), d = c.smallest_effect, e = s * r.effect, se = r.test.se, df = r.test.df;
  if (!(se > 0.0) || !(df > 0.0)) {
    r.p_margin_hi = e >= d ? 1.0 : 0.0;
    r.p_margin_lo = e <= -d ? 1.0 : 0.0;
    r.tost_low = r.tost_high = r.effect;
    return;
  }
  r.p_margin_hi = student_t_cdf((e - d) / se, df);
  r.p_margin_lo = 1.0 - student_t_cdf((e + d) / se, df);
  const double half = student_t_quantile(1.0 - alpha, df) * se;
  r.tost_low = r.effect - half;
  r.tost_high = r.effect + half;
}

// "[-0.0123, 0.0456]" of the TOST interval, in the effect's own orientation.
std::string tost_interval(const ClaimRow& r) { return interval(r.tost_low, r.tost_high); }

// The verdict at the adjusted p, and why, in words.
void decide(ClaimRow& r, const Claim& c, const ReportSettings& s, bool corrected) {
  const bool significant = r.p_adjusted < s.alpha;
  const bool margin = c.smallest_effect > 0.0 && std::isfinite(r.p_margin_hi);
  const bool below = margin && r.p_margin_hi_adjusted < s.alpha;  // smaller than the margin on the claimed side
  const bool above = margin && r.p_margin_lo_adjusted < s.alpha;  // not worse than -margin
  r.verdict = significant && r.test.direction > 0   ? Verdict::Holds
              : significant && r.test.direction < 0 ? Verdict::DoesNotHold
              : below && above                      ? Verdict::Equivalent
              : below                               ? Verdict::SmallerThanEffect
                                                    : Verdict::Inconclusive;
  const std::string level = core::format_number(s.alpha);
  std::string why = (corrected ? "adjusted p " : "p ") + p_text(r.p_adjusted) + (significant ? " < " : " >= ") + level;
  if (r.test.compare) {
    const std::string side = r.effect < 0 ? "below 0" : r.effect > 0 ? "above 0" : "0";
    why = "the difference is " + side + ", " + why;
  }
  if (corrected && !significant && r.p < s.alpha)
    why += " (raw p " + p_text(r.p) + " would pass alone, not after the correction)";
  if (significant && r.test.direction == 0 && !r.test.compare) why += ", but the rule is not met";
  if (margin) {
    const std::string m = core::format_number(claimed_sign(c) * c.smallest_effect);
    const std::string tests = "one-sided p against " + margin_words(c) + " " + p_text(r.p_margin_hi) + " / " +
                              p_text(r.p_margin_hi_adjusted) + ", against its opposite " + p_text(r.p_margin_lo) + " / " +
                              p_text(r.p_margin_lo_adjusted) + " (raw / adjusted)";
    const std::string ci = "the " + core::format_number(100.0 * (1.0 - 2.0 * s.alpha)) + "% interval " + tost_interval(r);
    if (r.verdict == Verdict::Equivalent)
      why += "; " + ci + " lies inside ± " + core::format_number(c.smallest_effect) + ": equivalent within ± " +
             core::format_number(c.smallest_effect) + " (" + tests + ")";
    else if (below)
      why += "; " + ci + " does not reach " + m + ": the effect is smaller than " + margin_words(c) + " (" + tests + ")";
    else if (claimed_sign(c) * (claimed_sign(c) > 0 ? r.tost_low : r.tost_high) > c.smallest_effect)
      why += "; " + ci + " lies beyond " + m + ": the effect is larger than " + margin_words(c) + " (" + tests + ")";
    else
      why += "; " + ci + " still reaches " + m + " or its opposite: neither smaller than " + margin_words(c) +
             " nor shown equivalent (" + tests + ")";
  }
  r.reason = why + (r.reason.empty() ? "" : "; " + r.reason);
  if (r.eval.within)
    r.reason += "; the effect is within the evaluation's own noise (±" + num(r.eval.noise) + ")";
}

// Minimum detectable effect at the power and two-sided level alpha / m (alpha without a
// correction); for an inconclusive row, the seeds per side that would detect its effect, and
// with a margin the seeds that would show the effect smaller than it.
void power(ClaimRow& r, const Claim& c, const ReportSettings& s, std::size_t m) {
  if (!r.test.compare || !std::isfinite(r.p)) return;
  const double level = s.correction == Correction::None ? s.alpha : s.alpha / static_cast<double>(std::max<std::size_t>(1, m));
  r.mde = minimum_detectable_effect(r.test.se, r.test.df, level, s.power);
  if (r.verdict != Verdict::Inconclusive) return;
  const std::string per = r.better.empty() ? "" : " per side";  // a one-sample row (knockout) has one side
  if (!std::isfinite(r.effect) || r.effect == 0.0) {
    r.seeds_text = "no number of seeds";
  } else {
    r.seeds_needed = seeds_needed(r.test.spread, r.effect, level, s.power);
    r.seeds_text = r.seeds_needed ? count(r.seeds_needed, "seed", "seeds") + per : "more than 1000 seeds" + per;
  }
  const double gap = c.smallest_effect - claimed_sign(c) * r.effect;  // how far below the margin the effect lies
  if (c.smallest_effect > 0.0 && std::isfinite(gap) && gap > 0.0) {
    const std::size_t n = seeds_needed(r.test.spread, gap, 2.0 * level, s.power);  // one-sided at level
    r.seeds_text += "; " + (n ? count(n, "seed", "seeds") + per : "more than 1000 seeds" + per) + " to show it smaller than " +
                    margin_words(c);
  }
}

void overall(ClaimReport& out, const std::string& unit) {
  std::map<Verdict, size_t> n;
  for (const auto& r : out.rows) ++n[r.verdict];
  out.verdict = n.size() == 1 ? n.begin()->first : Verdict::Mixed;
  out.summary.clear();
  if (out.rows.size() == 1) {
    out.summary = verdict_text(out.claim, out.verdict);
    return;
  }
  for (const auto& [v, k] : n)
    out.summary += (out.summary.empty() ? "" : "; ") + verdict_text(out.claim, v) + " at " + std::to_string(k) + " of " +
                   std::to_string(out.rows.size()) + " " + unit;
}

std::string statistics_line(const Report& r, std::size_t against) {
  const ReportSettings& s = r.settings;
  const std::string m = std::to_string(r.family_size), alpha = core::format_number(s.alpha);
  const std::string power = core::format_number(100.0 * s.power) + "% power";
  const std::string mde =
      s.correction == Correction::None
          ? "minimum detectable effects at " + power + " and level " + alpha
          : "minimum detectable effects at " + power + " and level alpha / m = " + p_text(s.alpha / static_cast<double>(std::max<std::size_t>(1, r.family_size))) +
                " (Bonferroni, the level of Holm's first step: conservative)";
  const std::string untested = r.family_size > r.family_tested
                                   ? "; " + std::to_string(r.family_size - r.family_tested) +
                                         " without a p-value yet count as not rejected"
                                   : "";
  const std::string family =
      "the m = " + m + " tests of the primary claims (fixed by the design: each primary claim's rows, grid points x "
      "budgets, and the two margin tests of a claim with a smallest effect of interest" + untested + ")";
  std::string head;
  switch (s.correction) {
    case Correction::None:
      head = "No correction for multiple tests: each of the m = " + m + " tests of the primary claims at alpha = " + alpha +
             " on its own";
      break;
    case Correction::Holm:
      head = "Holm (1979) step-down correction over " + family + ", family-wise alpha = " + alpha;
      break;
    case Correction::Dunnett:
      head = "Dunnett (1955) for the " + count(against, "row", "rows") + " against the control " +
             (r.control.empty() ? "(none found)" : r.control) + " (pooled variance; adjusted p by Monte Carlo of the "
             "multivariate t, " + std::to_string(kDunnettDraws) + " draws, seed " + std::to_string(kDunnettSeed) +
             ")" +
             (r.family_size > against ? ", Holm (1979) among the other " + count(r.family_size - against, "test", "tests") +
                                            "; the two sets are not corrected against each other"
                                      : "") +
             "; " + family + ", alpha = " + alpha;
      break;
  }
  std::string secondary;
  if (r.secondary_size > 0)
    secondary = " Secondary (exploratory) claims: their " + count(r.secondary_size, "test is", "tests are") +
                " corrected among themselves (Holm, m = " + std::to_string(r.secondary_size) +
                "), not with the primary ones; their verdicts are exploratory.";
  return head + "; " + mde + ". Verdicts on the adjusted p; intervals are 95% and unadjusted." + secondary;
}

// The family of one role (primary or secondary claims): its rows with a p-value, the margin
// tests, the correction, the verdicts and the power. Returns the rows Dunnett compared.
std::size_t correct_family(Report& report, const ReportSettings& settings, bool primary, std::size_t planned,
                           std::size_t& tested) {
  std::vector<FamilyRow> family;
  std::vector<Hyp> margins;
  for (auto& c : report.claims) {
    if (c.claim.primary != primary) continue;
    for (auto& r : c.rows) {
      if (!std::isfinite(r.p)) continue;
      family.push_back({&r, &c});
    }
  }
  std::size_t against = 0;
  const Correction correction = primary ? settings.correction : (settings.correction == Correction::None ? Correction::None : Correction::Holm);
  std::vector<ClaimRow*> rest;
  if (correction == Correction::Dunnett) {
    report.control = control_of(report, settings);
    rest = dunnett_rows(family, report, report.control, against);
  } else {
    for (FamilyRow& f : family) rest.push_back(f.row);
  }
  // The margin tests need the rows' final effects (Dunnett's pooled ones included).
  for (FamilyRow& f : family) {
    margin_tests(*f.row, f.claim->claim, settings.alpha);
    if (std::isfinite(f.row->p_margin_hi)) {
      margins.push_back({f.row->p_margin_hi, &f.row->p_margin_hi_adjusted, nullptr});
      margins.push_back({f.row->p_margin_lo, &f.row->p_margin_lo_adjusted, nullptr});
    }
  }
  tested = family.size() + margins.size();
  const std::size_t m = std::max(planned, tested);
  if (correction == Correction::None) {
    for (ClaimRow* r : rest) r->p_adjusted = r->p, r->adjustment = "none";
    for (Hyp& h : margins) *h.adjusted = h.p;
  } else {
    std::vector<Hyp> hyps;
    for (ClaimRow* r : rest) hyps.push_back({r->p, &r->p_adjusted, &r->adjustment});
    hyps.insert(hyps.end(), margins.begin(), margins.end());
    const std::size_t holm_m = m - against;
    const std::string label = correction == Correction::Dunnett
                                  ? "Holm among the " + count(holm_m, "test", "tests") + " not against the control"
                                  : std::string(primary ? "Holm, m = " : "Holm among the exploratory tests, m = ") +
                                        std::to_string(m);
    holm(hyps, holm_m, label);
  }
  for (FamilyRow& f : family) {
    decide(*f.row, f.claim->claim, settings, correction != Correction::None);
    power(*f.row, f.claim->claim, settings, m);
  }
  return against;
}

}  // namespace

const char* to_string(Correction c) {
  switch (c) {
    case Correction::Holm: return "holm";
    case Correction::Dunnett: return "dunnett";
    case Correction::None: return "none";
  }
  return "";
}

const std::vector<std::string>& correction_names() {
  static const std::vector<std::string> names = {"holm", "dunnett", "none"};
  return names;
}

void correct_report(Report& report, const ReportSettings& settings) {
  report.settings = settings;
  std::size_t planned_primary = 0, planned_secondary = 0;
  for (const auto& c : report.claims) (c.claim.primary ? planned_primary : planned_secondary) += c.planned_tests;
  std::size_t tested_primary = 0, tested_secondary = 0;
  const std::size_t against = correct_family(report, settings, true, planned_primary, tested_primary);
  correct_family(report, settings, false, planned_secondary, tested_secondary);
  report.family_size = std::max(planned_primary, tested_primary);
  report.family_tested = tested_primary;
  report.secondary_size = std::max(planned_secondary, tested_secondary);
  for (auto& c : report.claims) {
    double least = kNoValue;
    size_t early = 0, measured = 0;
    for (auto& r : c.rows) {
      r.budget.early = std::isfinite(r.budget.tokens_per_param) && r.budget.tokens_per_param < settings.early_tokens_per_param;
      measured += std::isfinite(r.budget.tokens_per_param) ? 1 : 0;
      early += r.budget.early ? 1 : 0;
      if (r.budget.early && (std::isnan(least) || r.budget.tokens_per_param < least)) least = r.budget.tokens_per_param;
    }
    c.early = std::isfinite(least) ? early_text(least, settings.early_tokens_per_param) : "";
    // A claim read at several budgets, only some of them early: say which share is.
    if (!c.early.empty() && early < measured)
      c.early += " at " + std::to_string(early) + " of " + std::to_string(measured) + " " +
                 (c.claim.budget_axis.empty() ? "grid points" : "budgets");
    overall(c, c.claim.budget_axis.empty() ? "grid points" : "budgets");
  }
  report.statistics = statistics_line(report, against);
}

}  // namespace pha::analysis
