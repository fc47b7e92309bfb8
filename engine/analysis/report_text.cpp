// The report as Markdown and as JSON (every number of the Report, NaN as null).
#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/report.h"
#include "analysis/report_internal.h"
#include "core/config_reader.h"
#include "core/error.h"

namespace pha::analysis {

using nlohmann::json;
using detail::interval;
using detail::mean_std;
using detail::num;

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

std::string measured_text(const Measured& m) {
  std::string s = m.label + ": " + mean_std(m.stats);
  if (m.stats.has_interval()) s += " " + interval(m.stats.ci_low, m.stats.ci_high);
  return s;
}

std::string effect_text(const ClaimRow& r) {
  if (r.effect_label.empty() || std::isnan(r.effect)) return "-";
  std::string s = num(r.effect);
  const std::string ci = interval(r.effect_low, r.effect_high);
  return s + (ci.empty() ? "" : " " + ci);
}

void claims_md(const Report& r, std::ostringstream& os) {
  os << "## Claims\n\n";
  if (r.claims.empty()) os << "The project declares no claims (project.json `claims`, docs/project-format.md).\n\n";
  for (size_t i = 0; i < r.claims.size(); ++i) {
    const ClaimReport& c = r.claims[i];
    os << "### " << i + 1 << ". " << (c.claim.title.empty() ? c.statement : c.claim.title) << "\n\n";
    os << "- claim: `" << to_string(c.claim.kind) << "`" << (c.claim.title.empty() ? "" : ": " + c.statement) << "\n";
    os << "- paper: " << (c.claim.paper.empty() ? "-" : c.claim.paper) << "\n";
    os << "- **verdict: " << c.summary << "**\n\n";
    os << "| at | measured (mean ± std (n) [95% interval]) | effect [95% interval] | verdict |\n";
    os << "| --- | --- | --- | --- |\n";
    for (const auto& row : c.rows) {
      std::string measured;
      for (const auto& m : row.measured) measured += (measured.empty() ? "" : "; ") + measured_text(m);
      os << "| " << cell(row.label) << " | " << cell(measured.empty() ? "-" : measured) << " | "
         << cell((row.effect_label.empty() ? "" : row.effect_label + ": ") + effect_text(row)) << " | "
         << cell(std::string(to_string(row.verdict)) + ": " + row.reason) << " |\n";
    }
    os << "\n";
    if (!c.mixer.empty()) {
      os << "Final mixer weights of " << c.mixer_group << " per layer (mean ± std (n) over replicas):\n\n";
      os << "| layer | gss | attn | ffn |\n| --- | --- | --- | --- |\n";
      for (const auto& l : c.mixer)
        os << "| " << l.layer << " | " << mean_std(l.gss) << " | " << mean_std(l.attn) << " | " << mean_std(l.ffn) << " |\n";
      os << "\n";
    }
  }
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

json claim_json(const ClaimReport& c) {
  json rows = json::array();
  for (const auto& r : c.rows) {
    json measured = json::array();
    for (const auto& m : r.measured) measured.push_back({{"label", m.label}, {"stats", stats_json(m.stats)}});
    rows.push_back({{"label", r.label},
                    {"measured", measured},
                    {"effect", {{"label", r.effect_label}, {"mean", r.effect}, {"ci95_low", r.effect_low},
                                {"ci95_high", r.effect_high}}},
                    {"verdict", to_string(r.verdict)},
                    {"reason", r.reason}});
  }
  json mixer = json::array();
  for (const auto& l : c.mixer)
    mixer.push_back({{"layer", l.layer}, {"gss", stats_json(l.gss)}, {"attn", stats_json(l.attn)}, {"ffn", stats_json(l.ffn)}});
  return {{"kind", to_string(c.claim.kind)}, {"field", c.claim.where}, {"title", c.claim.title},
          {"statement", c.statement},       {"paper", c.claim.paper},   {"declared", c.claim.json},
          {"verdict", to_string(c.verdict)}, {"summary", c.summary},     {"rows", rows},
          {"mixer_group", c.mixer_group},   {"mixer", mixer}};
}

}  // namespace

std::string render_markdown(const Report& r) {
  std::ostringstream os;
  os << "# Report: " << r.project << "\n\n";
  if (!r.description.empty()) os << r.description << "\n\n";
  os << "Store `" << r.store_path << "`, generated " << detail::local_time(r.generated_at_ms)
     << ". Each group's replicas are its finished runs, one per seed; figures are mean ± sample std (n), 95% "
        "intervals Student t; verdict rule in docs/report.md.\n\n";
  claims_md(r, os);
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
    groups.push_back({{"group", g.group}, {"entry", g.entry}, {"grid_point", g.grid_point}, {"variant", g.variant},
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
                      {"interval", "95%, Student t with n - 1 degrees of freedom; a difference: Welch t"},
                      {"verdict", "holds when the 95% interval of the effect lies on the claimed side of 0 (or of the "
                                  "threshold), does not hold when it lies on the other side, inconclusive otherwise or "
                                  "with fewer than 2 replicas (docs/report.md)"}}},
          {"metric_keys", r.metric_keys},
          {"claims", claims},
          {"groups", groups},
          {"length", sweep_json(r.length)},
          {"ood", sweep_json(r.ood)},
          {"notes", r.notes}};
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
