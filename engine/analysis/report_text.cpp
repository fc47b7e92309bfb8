// The report as Markdown and as JSON (every number of the Report, NaN as null).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "analysis/multiplicity.h"
#include "analysis/report.h"
#include "analysis/report_internal.h"
#include "core/config_reader.h"
#include "core/error.h"

namespace pha::analysis {

using nlohmann::json;

namespace {

// A table cell: '|' would end the cell, a newline the row.
std::string cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

void claims_md(const Report& r, std::ostringstream& os) {
  os << "## Claims\n\n";
  if (r.claims.empty()) os << "The project declares no claims (project.json `claims`, docs/project-format.md).\n\n";
  for (size_t i = 0; i < r.claims.size(); ++i) {
    const ClaimReport& c = r.claims[i];
    os << "### " << i + 1 << ". " << (c.claim.title.empty() ? c.statement : c.claim.title) << "\n\n";
    os << "- claim: `" << to_string(c.claim.kind) << "`" << (c.claim.title.empty() ? "" : ": " + c.statement) << "\n";
    os << "- paper: " << (c.claim.paper.empty() ? "-" : c.claim.paper) << "\n";
    os << "- **verdict: " << c.summary << "**" << (c.tuning.empty() ? "" : " (" + c.tuning + ")") << "\n";
    if (!c.early.empty()) os << "- **" << c.early << "**: a verdict this early in training may not last\n";
    os << "\n| at | measured (mean ± std (n) [95% interval]) | effect [95% interval] | test | p (raw / adjusted) | "
          "MDE / seeds needed | budget | verdict |\n";
    os << "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
    for (const auto& row : c.rows) {
      std::string measured;
      for (const auto& m : row.measured) measured += (measured.empty() ? "" : "; ") + measured_text(m);
      const std::string se = eval_se_text(row);
      if (!se.empty()) measured += (measured.empty() ? "" : "; ") + se;
      os << "| " << cell(row.label) << " | " << cell(measured.empty() ? "-" : measured) << " | "
         << cell((row.effect_label.empty() ? "" : row.effect_label + ": ") + effect_text(row)) << " | "
         << cell(row.test.text.empty() ? "-" : row.test.text) << " | " << cell(p_pair_text(row)) << " | "
         << cell(power_text(row)) << " | " << cell(budget_text(row.budget, r.settings.early_tokens_per_param)) << " | "
         << cell(std::string(to_string(row.verdict)) + ": " + row.reason) << " |\n";
    }
    os << "\n";
    if (!c.crossings.empty()) {
      os << "Learning curves of " << c.claim.metric.text << " (mean over the replicas, linear between evaluations):\n\n";
      for (const auto& x : c.crossings) os << "- " << x.label << ", " << crossing_text(x) << "\n";
      os << "\n";
    }
    if (!c.mixer.empty()) {
      os << "Final mixer weights of " << c.mixer_group << " per layer (mean ± std (n) over replicas):\n\n";
      os << "| layer | gss | attn | ffn |\n| --- | --- | --- | --- |\n";
      for (const auto& l : c.mixer)
        os << "| " << l.layer << " | " << mean_std(l.gss) << " | " << mean_std(l.attn) << " | " << mean_std(l.ffn) << " |\n";
      os << "\n";
    }
  }
}

void tuning_md(const Report& r, std::ostringstream& os) {
  if (r.tuning.empty()) return;
  os << "## Tuning\n\nEach family's settings (project.json `tune`), mean ± std (n) over the replicas; the chosen "
        "setting has the best mean of the selection metric among those with every replica finished (a tie goes to "
        "the one listed first; docs/report.md). The test split is reported, not used to choose.\n\n";
  for (const auto& t : r.tuning) {
    os << "### " << t.entry << (t.grid_point.empty() ? "" : " at " + t.grid_point) << "\n\n";
    os << "| setting | " << t.metric << " | " << (t.test_metric.empty() ? "test" : t.test_metric)
       << " | replicas | status | chosen |\n| --- | --- | --- | --- | --- | --- |\n";
    for (const auto& s : t.settings)
      os << "| " << cell(s.tune_point.empty() ? s.group : s.tune_point) << " | " << mean_std(s.select) << " | "
         << (t.test_metric.empty() ? "-" : mean_std(s.test)) << " | " << s.planned << " | " << cell(s.status) << " | "
         << (s.chosen ? "**chosen**" : "") << " |\n";
    if (!t.note.empty()) os << "\n" << t.note << "\n";
    os << "\n";
  }
}

void scaling_md(const Report& r, std::ostringstream& os) {
  if (r.scaling.empty()) return;
  os << "## Scaling fits\n\nFinal " << r.scaling.metric
     << " against size per variant, L = E + A x^-alpha fitted by least squares on every replica's point, 95% bootstrap "
        "percentile intervals (analysis/scaling_fit.h, docs/report.md).\n\n";
  for (const auto& ax : r.scaling.axes) {
    os << "### Against " << ax.x_label << "\n\n| variant | family | sizes: x -> mean ± std (n) | fit | residuals |\n"
       << "| --- | --- | --- | --- | --- |\n";
    for (const auto& s : ax.series) {
      std::string sizes, res;
      for (size_t i = 0; i < s.size_x.size(); ++i)
        sizes += (i ? "; " : "") + sci(s.size_x[i]) + " -> " + mean_std(s.size_y[i]);
      for (size_t i = 0; i < s.fit.residuals.size(); ++i) res += (i ? " " : "") + num(s.fit.residuals[i]);
      os << "| " << cell(s.entry) << " | " << s.family << " | " << cell(sizes) << " | " << cell(fit_text(s.fit))
         << " | " << cell(res.empty() ? "-" : res) << " |\n";
    }
    os << "\n";
    for (const auto& c : ax.crossovers) os << "- " << crossover_text(c, ax.x_label) << "\n";
    if (!ax.crossovers.empty()) os << "\n";
  }
  for (const auto& n : r.scaling.notes) os << "- " << n << "\n";
  if (!r.scaling.notes.empty()) os << "\n";
}

void groups_md(const Report& r, std::ostringstream& os) {
  os << "## Metrics per group\n\nFinal values, mean ± std (n) over the replicas (one finished run per seed).\n\n";
  os << "| group | family | params | replicas |";
  for (const auto& k : r.metric_keys) os << " " << k << " |";
  os << "\n| --- | --- | --- | --- |";
  for (size_t i = 0; i < r.metric_keys.size(); ++i) os << " --- |";
  os << "\n";
  for (const auto& g : r.groups) {
    os << "| " << cell(g.group) << " | " << g.family << " | " << (g.n_params ? std::to_string(g.n_params) : "-") << " | "
       << g.replicas.size() << " of " << g.seeds.size() << " |";
    for (const auto& k : r.metric_keys) os << " " << mean_std(g.metrics.at(k)) << " |";
    os << "\n";
  }
  os << "\n";
}

void params_md(const Report& r, std::ostringstream& os) {
  os << "## Parameter efficiency\n\nHeld-out accuracy (`" << r.accuracy_key
     << "`) against parameters, per architecture family.\n\n| family | group | params | accuracy |\n| --- | --- | --- | --- |\n";
  std::vector<const GroupReport*> rows;
  for (const auto& g : r.groups) rows.push_back(&g);
  std::stable_sort(rows.begin(), rows.end(), [](const GroupReport* a, const GroupReport* b) {
    return a->family != b->family ? a->family < b->family : a->n_params < b->n_params;
  });
  for (const GroupReport* g : rows) {
    const auto it = g->metrics.find(r.accuracy_key);
    os << "| " << g->family << " | " << cell(g->group) << " | " << (g->n_params ? std::to_string(g->n_params) : "-")
       << " | " << (it == g->metrics.end() ? "-" : mean_std(it->second)) << " |\n";
  }
  os << "\n";
}

void sweep_md(const SweepTable& t, std::ostringstream& os) {
  if (t.empty()) return;
  os << "## " << t.title << "\n\nAccuracy at the run's last evaluation, mean ± std (n).\n\n| group |";
  for (double x : t.xs) os << " " << t.x_label << "=" << format_number(x) << " |";
  os << "\n| --- |";
  for (size_t i = 0; i < t.xs.size(); ++i) os << " --- |";
  os << "\n";
  for (size_t g = 0; g < t.groups.size(); ++g) {
    os << "| " << cell(t.groups[g]) << " |";
    for (const auto& s : t.cells[g]) os << " " << mean_std(s) << " |";
    os << "\n";
  }
  os << "\n";
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
          {"alpha_ci", interval_json(f.alpha_ci)}, {"E_on_bound", f.E_on_bound}, {"alpha_on_bound", f.alpha_on_bound},
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
                   {"settings", settings}, {"complete", t.complete}, {"note", t.note}});
  }
  return out;
}

json scaling_json(const ScalingReport& r) {
  json axes = json::array();
  for (const auto& ax : r.axes) {
    json series = json::array();
    for (const auto& s : ax.series) {
      json sizes = json::array();
      for (size_t i = 0; i < s.size_x.size(); ++i) sizes.push_back({{"x", s.size_x[i]}, {"y", stats_json(s.size_y[i])}});
      series.push_back({{"entry", s.entry}, {"family", s.family}, {"x", s.x}, {"y", s.y}, {"sizes", sizes}, {"fit", fit_json(s.fit)}});
    }
    json cross = json::array();
    for (const auto& c : ax.crossovers)
      cross.push_back({{"a", c.a}, {"b", c.b}, {"found", c.found}, {"message", c.message}, {"x", c.x}, {"low", c.low},
                       {"high", c.high}, {"fraction_crossing", c.fraction}, {"x_lo", c.x_lo}, {"x_hi", c.x_hi}});
    axes.push_back({{"axis", ax.axis}, {"x_label", ax.x_label}, {"series", series}, {"crossovers", cross}});
  }
  return {{"metric", r.metric}, {"axes", axes}, {"notes", r.notes}};
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
          {"verdict", to_string(r.verdict)},
          {"reason", r.reason}};
}

json claim_json(const ClaimReport& c) {
  json rows = json::array();
  for (const auto& r : c.rows) rows.push_back(row_json(r));
  json mixer = json::array();
  for (const auto& l : c.mixer)
    mixer.push_back({{"layer", l.layer}, {"gss", stats_json(l.gss)}, {"attn", stats_json(l.attn)}, {"ffn", stats_json(l.ffn)}});
  json crossings = json::array();
  for (const auto& x : c.crossings)
    crossings.push_back({{"label", x.label}, {"axis", x.axis}, {"at", x.at}, {"lo", x.lo}, {"hi", x.hi},
                         {"better_at_end", x.better_at_end}});
  return {{"kind", to_string(c.claim.kind)}, {"field", c.claim.where}, {"title", c.claim.title},
          {"tuning", c.tuning}, {"crossings", crossings},
          {"statement", c.statement},       {"paper", c.claim.paper},   {"declared", c.claim.json},
          {"verdict", to_string(c.verdict)}, {"summary", c.summary},     {"rows", rows},
          {"early_training", c.early},      {"mixer_group", c.mixer_group},   {"mixer", mixer}};
}

}  // namespace

std::string render_markdown(const Report& r) {
  std::ostringstream os;
  os << "# Report: " << r.project << "\n\n";
  if (!r.description.empty()) os << r.description << "\n\n";
  os << "Store `" << r.store_path << "`, generated " << local_time(r.generated_at_ms)
     << ". Each group's replicas are its finished runs, one per seed; figures are mean ± sample std (n), 95% "
        "intervals Student t (a comparison: paired by seed when both sides have the same seeds, else Welch); "
        "verdict rule in docs/report.md.\n\n"
     << "**Statistics:** " << r.statistics << "\n\n";
  claims_md(r, os);
  tuning_md(r, os);
  scaling_md(r, os);
  groups_md(r, os);
  if (r.is_task) params_md(r, os);
  sweep_md(r.length, os);
  sweep_md(r.ood, os);
  if (!r.notes.empty()) {
    os << "## Notes\n\n";
    for (const auto& n : r.notes) os << "- " << n << "\n";
    os << "\n";
  }
  return os.str();
}

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
                          {"control", r.control},
                          {"early_training_tokens_per_param", r.settings.early_tokens_per_param},
                          {"dunnett_draws", kDunnettDraws},
                          {"dunnett_seed", kDunnettSeed},
                          {"text", r.statistics}}},
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
  throw Error("--format", "\"" + format + "\" is not allowed; allowed: " + quoted_list(report_formats()));
}

}  // namespace pha::analysis
