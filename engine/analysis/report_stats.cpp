// The correction over one report (docs/report.md, Statistics): every row of every claim with a
// p-value is one test of the family; Holm's adjusted p (or none, or Dunnett's against a control
// with Holm for the other rows), the verdict at the adjusted p, the power of each comparison
// (minimum detectable effect, seeds needed), early-training marks and each claim's overall
// verdict.
#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/multiplicity.h"
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
                    count(s.treatments.size() + 1, "group", "groups") + ", df " + format_number(d.df);
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

void holm(const std::vector<ClaimRow*>& rows, const std::string& label) {
  std::vector<double> p;
  for (const ClaimRow* r : rows) p.push_back(r->p);
  const std::vector<double> adjusted = holm_adjust(p);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i]->p_adjusted = adjusted[i];
    rows[i]->adjustment = label;
  }
}

// The verdict at the adjusted p, and why, in words.
void decide(ClaimRow& r, const ReportSettings& s, bool corrected) {
  const bool significant = r.p_adjusted < s.alpha;
  r.verdict = significant && r.test.direction > 0   ? Verdict::Holds
              : significant && r.test.direction < 0 ? Verdict::DoesNotHold
                                                    : Verdict::Inconclusive;
  const std::string level = format_number(s.alpha);
  std::string why = (corrected ? "adjusted p " : "p ") + p_text(r.p_adjusted) + (significant ? " < " : " >= ") + level;
  if (r.test.compare) {
    const std::string side = r.effect < 0 ? "below 0" : r.effect > 0 ? "above 0" : "0";
    why = "the difference is " + side + ", " + why;
  }
  if (corrected && !significant && r.p < s.alpha)
    why += " (raw p " + p_text(r.p) + " would pass alone, not after the correction)";
  if (significant && r.test.direction == 0 && !r.test.compare) why += ", but the rule is not met";
  r.reason = why + (r.reason.empty() ? "" : "; " + r.reason);
  if (r.eval.within)
    r.reason += "; the effect is within the evaluation's own noise (±" + num(r.eval.noise) + ")";
}

// Minimum detectable effect at the power and two-sided level alpha / m (alpha without a
// correction); for an inconclusive row, the seeds per side that would detect its effect.
void power(ClaimRow& r, const ReportSettings& s, std::size_t m) {
  if (!r.test.compare || !std::isfinite(r.p)) return;
  const double level = s.correction == Correction::None ? s.alpha : s.alpha / static_cast<double>(std::max<std::size_t>(1, m));
  r.mde = minimum_detectable_effect(r.test.se, r.test.df, level, s.power);
  if (r.verdict != Verdict::Inconclusive) return;
  if (!std::isfinite(r.effect) || r.effect == 0.0) {
    r.seeds_text = "no number of seeds";
    return;
  }
  r.seeds_needed = seeds_needed(r.test.spread, r.effect, level, s.power);
  const std::string per = r.better.empty() ? "" : " per side";  // a one-sample row (knockout) has one side
  r.seeds_text = r.seeds_needed ? count(r.seeds_needed, "seed", "seeds") + per : "more than 1000 seeds" + per;
}

void overall(ClaimReport& out, const std::string& unit) {
  std::map<Verdict, size_t> n;
  for (const auto& r : out.rows) ++n[r.verdict];
  out.verdict = n.size() == 1 ? n.begin()->first : Verdict::Mixed;
  out.summary.clear();
  if (out.rows.size() == 1) {
    out.summary = to_string(out.verdict);
    return;
  }
  for (const auto& [v, k] : n)
    out.summary += (out.summary.empty() ? "" : "; ") + std::string(to_string(v)) + " at " + std::to_string(k) + " of " +
                   std::to_string(out.rows.size()) + " " + unit;
}

std::string statistics_line(const Report& r, std::size_t against) {
  const ReportSettings& s = r.settings;
  const std::string m = std::to_string(r.family_size), alpha = format_number(s.alpha);
  const std::string power = format_number(100.0 * s.power) + "% power";
  const std::string mde =
      s.correction == Correction::None
          ? "minimum detectable effects at " + power + " and level " + alpha
          : "minimum detectable effects at " + power + " and level alpha / m = " + p_text(s.alpha / static_cast<double>(std::max<std::size_t>(1, r.family_size))) +
                " (Bonferroni, the level of Holm's first step: conservative)";
  std::string head;
  switch (s.correction) {
    case Correction::None:
      head = "No correction for multiple tests: each of the m = " + m + " tests at alpha = " + alpha + " on its own";
      break;
    case Correction::Holm:
      head = "Holm (1979) step-down correction over the m = " + m + " tests of this report (every row with a p-value), "
             "family-wise alpha = " + alpha;
      break;
    case Correction::Dunnett:
      head = "Dunnett (1955) for the " + count(against, "row", "rows") + " against the control " +
             (r.control.empty() ? "(none found)" : r.control) + " (pooled variance; adjusted p by Monte Carlo of the "
             "multivariate t, " + std::to_string(kDunnettDraws) + " draws, seed " + std::to_string(kDunnettSeed) +
             ")" +
             (r.family_size > against ? ", Holm (1979) among the other " + count(r.family_size - against, "row", "rows") +
                                            "; the two sets are not corrected against each other"
                                      : "") +
             "; m = " + m + ", alpha = " + alpha;
      break;
  }
  return head + "; " + mde + ". Verdicts on the adjusted p; intervals are 95% and unadjusted.";
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
  std::vector<FamilyRow> family;
  for (auto& c : report.claims)
    for (auto& r : c.rows)
      if (std::isfinite(r.p)) family.push_back({&r, &c});
  report.family_size = family.size();
  const std::string m = "m = " + std::to_string(family.size());
  std::size_t against = 0;
  if (settings.correction == Correction::None) {
    for (FamilyRow& f : family) {
      f.row->p_adjusted = f.row->p;
      f.row->adjustment = "none";
    }
  } else if (settings.correction == Correction::Holm) {
    std::vector<ClaimRow*> rows;
    for (FamilyRow& f : family) rows.push_back(f.row);
    holm(rows, "Holm, " + m);
  } else {
    report.control = control_of(report, settings);
    const std::vector<ClaimRow*> rest = dunnett_rows(family, report, report.control, against);
    holm(rest, "Holm among the " + count(rest.size(), "row", "rows") + " not against the control");
  }
  for (FamilyRow& f : family) {
    decide(*f.row, settings, settings.correction != Correction::None);
    power(*f.row, settings, family.size());
  }
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
