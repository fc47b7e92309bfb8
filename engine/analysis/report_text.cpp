// The report as Markdown (the one document, analysis/report_document.h, laid out as text) and as
// JSON (every number of the Report, NaN as null).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "analysis/internal/multiplicity.h"
#include "analysis/report.h"
#include "analysis/report_document.h"
#include "analysis/internal/report_internal.h"
#include "core/config_reader.h"
#include "core/error.h"

namespace pha::analysis {

using nlohmann::json;

namespace {

std::string md_spans(const Spans& spans) {
  std::string s;
  for (const auto& span : spans) {
    switch (span.style) {
      case SpanStyle::Strong:
      case SpanStyle::Warning: s += "**" + span.text + "**"; break;
      case SpanStyle::Code: s += "`" + span.text + "`"; break;
      case SpanStyle::Plain:
      case SpanStyle::Secondary: s += span.text; break;
    }
  }
  return s;
}

std::string md_cell(const Cell& cell) {
  std::string s;
  for (size_t i = 0; i < cell.spans.size(); ++i) s += (i ? cell.join : "") + md_spans({cell.spans[i]});
  return markdown_cell(s);
}

void md_block(const Block& b, std::ostringstream& os) {
  switch (b.kind) {
    case BlockKind::Heading: os << std::string(static_cast<size_t>(b.level), '#') << " " << md_spans(b.text) << "\n\n"; break;
    case BlockKind::Paragraph: os << md_spans(b.text) << "\n\n"; break;
    case BlockKind::List:
      for (const auto& item : b.items) os << "- " << md_spans(item) << "\n";
      os << "\n";
      break;
    case BlockKind::Table:
      os << "|";
      for (const auto& c : b.columns) os << " " << markdown_cell(c) << " |";
      os << "\n|";
      for (size_t i = 0; i < b.columns.size(); ++i) os << " --- |";
      os << "\n";
      for (const auto& row : b.rows) {
        os << "|";
        for (const auto& c : row) os << " " << md_cell(c) << " |";
        os << "\n";
      }
      os << "\n";
      break;
    case BlockKind::Chart: break;  // drawn in HTML and in the dock; Markdown has the table above it
  }
}

json stats_json(const Stats& s) {
  return {{"n", s.n}, {"nan", s.nan}, {"mean", s.mean}, {"std", s.std}, {"ci95_low", s.ci_low},
          {"ci95_high", s.ci_high}, {"min", s.min}, {"max", s.max}};
}

json sweep_json(const SweepTable& t) {
  json rows = json::array();
  for (size_t g = 0; g < t.groups.size(); ++g) {
    json cells = json::array();
    for (const auto& s : t.cells[g]) cells.push_back(stats_json(s));
    rows.push_back({{"group", t.groups[g]}, {"cells", cells}});
  }
  return {{"title", t.title}, {"x", t.x_label}, {"xs", t.xs}, {"rows", rows}};
}

json interval_json(const Interval& i) { return {{"low", i.low}, {"high", i.high}}; }

json fit_json(const PowerLawFit& f) {
  json band = json::array();
  for (const auto& b : f.band) band.push_back({{"x", b.x}, {"fit", b.fit}, {"low", b.low}, {"high", b.high}});
  return {{"ok", f.ok},          {"message", f.message},     {"E", f.E},           {"A", f.A},
          {"alpha", f.alpha},    {"E_ci", interval_json(f.E_ci)}, {"A_ci", interval_json(f.A_ci)},
          {"alpha_ci", interval_json(f.alpha_ci)}, {"E_on_bound", f.E_on_bound}, {"A_on_bound", f.A_on_bound}, {"alpha_on_bound", f.alpha_on_bound},
          {"rmse", f.rmse},      {"n", f.n},                 {"residuals", f.residuals}, {"boot_ok", f.boot_ok},
          {"boot_failed", f.boot_failed}, {"resample", resample_name(f.resample)}, {"band", band}};
}

json tuning_json(const std::vector<TuningTable>& tables) {
  json out = json::array();
  for (const auto& t : tables) {
    json settings = json::array();
    for (const auto& s : t.settings)
      settings.push_back({{"group", s.group}, {"setting", s.tune_point}, {"select", stats_json(s.select)},
                          {"test", stats_json(s.test)}, {"planned", s.planned}, {"status", s.status}, {"chosen", s.chosen}});
    out.push_back({{"entry", t.entry}, {"grid_point", t.grid_point}, {"metric", t.metric}, {"test_metric", t.test_metric},
                   {"settings", settings}, {"complete", t.complete}, {"note", t.note}, {"edge", t.edge},
                   {"seeds", t.seeds}, {"confirmation_group", t.confirmation_group}});
  }
  return out;
}

json held_out_json(const HeldOut& h) {
  return {{"ok", h.ok},
          {"message", h.message},
          {"x", h.x},
          {"n_points", h.n_points},
          {"measured", h.measured},
          {"measured_sd", h.measured_sd},
          {"predicted", h.predicted},
          {"predicted_ci", interval_json(h.predicted_ci)},
          {"rel_error", h.rel_error},
          {"within", h.within},
          {"refit", {{"E", h.refit.E}, {"A", h.refit.A}, {"alpha", h.refit.alpha}}}};
}

json identifiability_json(const Identifiability& c) {
  json each = json::array();
  for (const auto& h : c.each) each.push_back(held_out_json(h));
  return {{"checked", c.checked},
          {"identified", c.identified()},
          {"n_sizes", c.n_sizes},
          {"decades", c.decades},
          {"few_sizes", c.few_sizes},
          {"narrow_span", c.narrow_span},
          {"E_ci_reaches_zero", c.E_ci_reaches_zero},
          {"alpha_ci_wide", c.alpha_ci_wide},
          {"alpha_ci_ratio", c.alpha_ratio},
          {"tolerance", c.tolerance},
          {"largest_held_out", held_out_json(c.largest)},
          {"each_held_out", each},
          {"worst_held_out", c.worst < c.each.size() ? json(c.each[c.worst].x) : json(nullptr)},
          {"flags", c.flags}};
}

json isoflop_json(const IsoFlopFit& f) {
  json budgets = json::array();
  for (const auto& b : f.budgets)
    budgets.push_back({{"flops", b.flops}, {"spread", b.spread}, {"sizes", b.sizes}, {"losses", b.losses},
                       {"counts", b.counts}, {"ok", b.ok}, {"message", b.message},
                       {"parabola", {b.c0, b.c1, b.c2}}, {"n_opt", b.n_opt}, {"min_loss", b.min_loss}});
  return {{"ok", f.ok}, {"message", f.message}, {"budgets", budgets}, {"n_used", f.n_used},
          {"exponent", f.exponent}, {"exponent_se", f.exponent_se}, {"coefficient", f.coefficient}};
}

json scaling_json(const ScalingReport& r) {
  json axes = json::array();
  for (const auto& ax : r.axes) {
    json series = json::array();
    for (const auto& s : ax.series) {
      json sizes = json::array();
      for (size_t i = 0; i < s.size_x.size(); ++i) sizes.push_back({{"x", s.size_x[i]}, {"y", stats_json(s.size_y[i])}});
      series.push_back({{"entry", s.entry}, {"family", s.family}, {"x", s.x}, {"y", s.y}, {"sizes", sizes},
                        {"settings", s.size_setting}, {"fit", fit_json(s.fit)}, {"checks", identifiability_json(s.check)},
                        {"predictions", [&] {
                           json p = json::array();
                           for (const auto& h : s.predictions) p.push_back(held_out_json(h));
                           return p;
                         }()}});
    }
    json cross = json::array();
    for (const auto& c : ax.crossovers)
      cross.push_back({{"a", c.a}, {"b", c.b}, {"found", c.found}, {"message", c.message}, {"x", c.x}, {"low", c.low},
                       {"high", c.high}, {"fraction_crossing", c.fraction}, {"x_lo", c.x_lo}, {"x_hi", c.x_hi},
                       {"caution", c.caution}});
    axes.push_back({{"axis", ax.axis}, {"x_label", ax.x_label}, {"series", series}, {"crossovers", cross}, {"note", ax.note}});
  }
  json out = {{"metric", r.metric}, {"axes", axes}, {"notes", r.notes}};
  if (r.isoflop_requested) {
    json iso = json::array();
    for (const auto& i : r.isoflop) iso.push_back({{"entry", i.entry}, {"fit", isoflop_json(i.fit)}});
    out["isoflop"] = iso;
  }
  return out;
}

json measured_json(const Measured& m) {
  json j = {{"label", m.label}, {"stats", stats_json(m.stats)}, {"values", m.values}, {"seeds", m.seeds}};
  if (m.successes >= 0)
    j["successes"] = {{"k", m.successes}, {"n", m.stats.n}, {"wilson95_low", m.wilson_low}, {"wilson95_high", m.wilson_high}};
  return j;
}

json row_json(const ClaimRow& r) {
  json measured = json::array();
  for (const auto& m : r.measured) measured.push_back(measured_json(m));
  const char* kinds[] = {"paired", "welch", "pooled"};
  return {{"label", r.label},
          {"better", r.better},
          {"than", r.than},
          {"at_budget", r.at_budget},
          {"measured", measured},
          {"effect", {{"label", r.effect_label}, {"mean", r.effect}, {"ci95_low", r.effect_low},
                      {"ci95_high", r.effect_high}}},
          {"test", {{"text", r.test.text}, {"kind", r.test.compare ? kinds[static_cast<int>(r.test.spread.test)] : ""},
                    {"df", r.test.df}, {"se", r.test.se}, {"direction", r.test.direction}}},
          {"p", r.p},
          {"p_adjusted", r.p_adjusted},
          {"adjustment", r.adjustment},
          {"power", {{"mde", r.mde}, {"seeds_needed", r.seeds_needed}, {"text", r.seeds_text}}},
          {"eval_se", {{"applies", r.eval.applies}, {"recorded", r.eval.recorded}, {"better", r.eval.se_a},
                       {"than", r.eval.se_b}, {"noise95", r.eval.noise}, {"within_noise", r.eval.within}}},
          {"budget", {{"tokens", r.budget.tokens}, {"tokens_per_param", r.budget.tokens_per_param},
                      {"early", r.budget.early}}},
          {"margin", {{"p_hi", r.p_margin_hi}, {"p_hi_adjusted", r.p_margin_hi_adjusted}, {"p_lo", r.p_margin_lo},
                      {"p_lo_adjusted", r.p_margin_lo_adjusted}, {"tost_low", r.tost_low}, {"tost_high", r.tost_high}}},
          {"verdict", to_string(r.verdict)},
          {"reason", r.reason}};
}

json claim_json(const ClaimReport& c) {
  json rows = json::array();
  for (const auto& r : c.rows) rows.push_back(row_json(r));
  json mixer = json::array();
  for (const auto& l : c.mixer)
    mixer.push_back({{"layer", l.layer}, {"gss", stats_json(l.gss)}, {"attn", stats_json(l.attn)}, {"ffn", stats_json(l.ffn)},
                     {"gss_share", stats_json(l.gss_share)}, {"attn_share", stats_json(l.attn_share)},
                     {"ffn_share", stats_json(l.ffn_share)}});
  json crossings = json::array();
  for (const auto& x : c.crossings)
    crossings.push_back({{"label", x.label}, {"axis", x.axis}, {"at", x.at}, {"lo", x.lo}, {"hi", x.hi},
                         {"better_at_end", x.better_at_end}});
  return {{"kind", to_string(c.claim.kind)}, {"field", c.claim.where}, {"title", c.claim.title},
          {"tuning", c.tuning}, {"crossings", crossings},
          {"statement", c.statement},       {"paper", c.claim.paper},   {"declared", c.claim.json},
          {"verdict", to_string(c.verdict)}, {"summary", c.summary},     {"rows", rows},
          {"early_training", c.early},      {"mixer_group", c.mixer_group},   {"mixer", mixer},
          {"role", c.claim.primary ? "primary" : "secondary"},
          {"smallest_effect", c.claim.smallest_effect > 0.0 ? json(c.claim.smallest_effect) : json(nullptr)},
          {"smallest_effect_from_paper", c.claim.smallest_effect_from_paper},
          {"verdict_text", verdict_text(c.claim, c.verdict)},
          {"planned_tests", c.planned_tests},
          {"underpowered", c.underpowered},
          {"changed_after_data", c.changed_after_data},
          {"baseline_checks", c.shape_warnings}};
}

}  // namespace

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string render_markdown(const ReportDocument& d) {
  std::ostringstream os;
  for (const auto& b : d.blocks) md_block(b, os);
  return os.str();
}

std::string render_markdown(const Report& r) { return render_markdown(report_document(r)); }

json report_json(const Report& r) {
  json groups = json::array();
  for (const auto& g : r.groups) {
    json metrics = json::object();
    for (const auto& [k, s] : g.metrics) metrics[k] = stats_json(s);
    json replicas = json::array();
    for (const auto& rep : g.replicas) replicas.push_back({{"run_id", rep.run_id}, {"seed", rep.seed}, {"name", rep.name}});
    groups.push_back({{"group", g.group}, {"entry", g.entry}, {"grid_point", g.grid_point}, {"tune_point", g.tune_point},
                      {"variant", g.variant}, {"train_flops_per_token", g.train_flops_per_token}, {"tokens", g.tokens},
                      {"family", g.family}, {"n_params", g.n_params}, {"n_layers", g.n_layers}, {"seeds", g.seeds},
                      {"replicas", replicas}, {"missing", g.missing}, {"metrics", metrics}});
  }
  json claims = json::array();
  for (const auto& c : r.claims) claims.push_back(claim_json(c));
  return {{"project", r.project},
          {"description", r.description},
          {"store", r.store_path},
          {"generated_at_ms", r.generated_at_ms},
          {"data", r.is_task ? "task" : "text"},
          {"accuracy_key", r.accuracy_key},
          {"method", {{"replicas", "the newest finished run of each planned seed of a group"},
                      {"spread", "sample standard deviation (n - 1)"},
                      {"interval", "95%, Student t with n - 1 degrees of freedom, unadjusted; a difference: the "
                                   "one-sample t of per-seed differences when both sides have the same seeds, else "
                                   "Welch t; accuracy thresholds: Wilson score interval of the seeds reaching it"},
                      {"verdict", "holds when the adjusted p is below alpha and the statistic lies on the claimed "
                                  "side, does not hold when it is below alpha on the other side, inconclusive "
                                  "otherwise; too few replicas with fewer than 3 on a side (docs/report.md)"}}},
          {"statistics", {{"correction", to_string(r.settings.correction)},
                          {"alpha", r.settings.alpha},
                          {"power", r.settings.power},
                          {"m", r.family_size},
                          {"m_with_p", r.family_tested},
                          {"secondary_m", r.secondary_size},
                          {"control", r.control},
                          {"early_training_tokens_per_param", r.settings.early_tokens_per_param},
                          {"dunnett_draws", kDunnettDraws},
                          {"dunnett_seed", kDunnettSeed},
                          {"text", r.statistics}}},
          {"registration", {{"present", r.registration.present},
                            {"registered_at_ms", r.registration.registered_at_ms},
                            {"design_sha256", r.registration.hash},
                            {"runs_before", r.registration.runs_before},
                            {"changed_after_data", r.registration.changes},
                            {"claims_removed", r.registration.claims_removed},
                            {"text", r.registration.text}}},
          {"baseline_checks", [&] {
             json w = json::array();
             for (const auto& x : r.shape_warnings) w.push_back({{"groups", x.groups}, {"text", x.text}});
             return w;
           }()},
          {"metric_keys", r.metric_keys},
          {"claims", claims},
          {"tuning", tuning_json(r.tuning)},
          {"scaling", scaling_json(r.scaling)},
          {"groups", groups},
          {"length", sweep_json(r.length)},
          {"ood", sweep_json(r.ood)},
          {"notes", r.notes}};
}

// The report's text formats (analysis/report_format.h); the number formats are in report.cpp.
std::string sci(double v) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", v);
  return buf;
}

std::string crossing_text(const CurveCrossing& c) {
  const std::string unit = c.axis == "flops" ? " training FLOPs" : " tokens";
  std::string s = "on " + c.axis + ": ";
  if (c.at.empty()) {
    s += "do not cross on " + sci(c.lo) + " to " + sci(c.hi) + unit;
  } else {
    s += "cross at ";
    for (size_t i = 0; i < c.at.size(); ++i) s += (i ? ", " : "") + sci(c.at[i]);
    s += unit + " (common range " + sci(c.lo) + " to " + sci(c.hi) + ")";
  }
  return s + "; better at the end: " + c.better_at_end;
}

std::string fit_text(const PowerLawFit& f) {
  if (!f.ok) return "no fit: " + f.message;
  auto with = [](double v, const Interval& i, bool bound) {
    return sci(v) + (i.valid() ? " [" + sci(i.low) + ", " + sci(i.high) + "]" : "") + (bound ? " (on its bound)" : "");
  };
  return "E = " + with(f.E, f.E_ci, f.E_on_bound) + ", A = " + with(f.A, f.A_ci, f.A_on_bound) +
         ", alpha = " + with(f.alpha, f.alpha_ci, f.alpha_on_bound) + "; rmse " + num(f.rmse) + ", " +
         std::to_string(f.n) + " points, " + std::to_string(f.boot_ok) + " bootstrap replicas";
}

std::string crossover_text(const ScalingCross& c, const std::string& x_label) {
  std::string s = c.a + " vs " + c.b + ": ";
  if (!c.found) return s + c.message;
  s += "fitted curves cross at " + sci(c.x) + " " + x_label;
  if (std::isfinite(c.low) && std::isfinite(c.high)) s += " [" + sci(c.low) + ", " + sci(c.high) + "]";
  return s + " (" + sci(100.0 * c.fraction) + "% of bootstrap pairs cross in " + sci(c.x_lo) + " to " + sci(c.x_hi) + ")";
}

const std::vector<std::string>& report_formats() {
  static const std::vector<std::string> formats = {"md", "html", "json"};
  return formats;
}

std::string render_report(const Report& r, const std::string& format) {
  if (format == "md") return render_markdown(r);
  if (format == "html") return render_html(r);
  if (format == "json") return report_json(r).dump(2) + "\n";
  throw core::Error("--format", "\"" + format + "\" is not allowed; allowed: " + core::quoted_list(report_formats()));
}

}  // namespace pha::analysis
