// The claim rows' fields in words (analysis/report_format.h): p-values, the measured sides,
// power, the evaluation's noise and the training budget, shared by Markdown, HTML and the
// window's Report dock.
#include <cmath>
#include <cstdio>

#include "analysis/report.h"
#include "core/config_reader.h"

namespace pha::analysis {

std::string p_text(double p) {
  if (!std::isfinite(p)) return "-";
  if (p < 1e-4) return "< 0.0001";
  char buf[32];
  std::snprintf(buf, sizeof(buf), p < 0.001 ? "%.5f" : "%.4f", p);
  return buf;
}

std::string measured_text(const Measured& m) {
  if (m.successes >= 0) {
    std::string s = m.label + ": " + std::to_string(m.successes) + "/" + std::to_string(m.stats.n) + " reach the threshold";
    if (m.stats.n > 0) s += ", Wilson 95% " + interval(m.wilson_low, m.wilson_high);
    return s + "; mean accuracy " + num(m.stats.mean);
  }
  std::string s = m.label + ": " + mean_std(m.stats);
  if (m.stats.has_interval()) s += " " + interval(m.stats.ci_low, m.stats.ci_high);
  return s;
}

std::string effect_text(const ClaimRow& r) {
  if (r.effect_label.empty() || std::isnan(r.effect)) return "-";
  const std::string ci = interval(r.effect_low, r.effect_high);
  return num(r.effect) + (ci.empty() ? "" : " " + ci);
}

std::string p_pair_text(const ClaimRow& r) {
  if (!std::isfinite(r.p)) return "-";
  return p_text(r.p) + " / " + p_text(r.p_adjusted);
}

std::string power_text(const ClaimRow& r) {
  if (!std::isfinite(r.mde) && r.seeds_text.empty()) return "-";
  std::string s = std::isfinite(r.mde) ? "MDE " + num(r.mde) : "";
  if (!r.seeds_text.empty()) s += (s.empty() ? "" : "; ") + r.seeds_text;
  return s;
}

std::string eval_se_text(const ClaimRow& r) {
  if (!r.eval.applies) return "";
  if (!r.eval.recorded) return "eval SE not recorded";
  return "eval SE: " + r.better + " " + num(r.eval.se_a) + ", " + r.than + " " + num(r.eval.se_b);
}

std::string early_text(double tokens_per_param, double threshold) {
  return "early training (" + sci(tokens_per_param) + " tokens/parameter < " + core::format_number(threshold) + ")";
}

std::string budget_text(const RowBudget& b, double early_threshold) {
  if (!std::isfinite(b.tokens)) return "-";
  std::string s = sci(b.tokens) + " tokens per replica";
  if (std::isfinite(b.tokens_per_param)) s += ", " + sci(b.tokens_per_param) + " tokens/parameter";
  if (b.early) s += "; " + early_text(b.tokens_per_param, early_threshold);
  return s;
}

}  // namespace pha::analysis
