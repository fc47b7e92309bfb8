// The report as one self-contained HTML page: inline CSS, plots as inline SVG drawn from the
// data (report_svg.cpp), no script and no external resource, so the window can show the same
// page and export it as it is. XHTML-style (void elements closed) so XML tools can read it.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/report.h"
#include "analysis/report_internal.h"
#include "core/config_reader.h"

namespace pha::analysis {

namespace {

using detail::html_escape;

constexpr const char* kStyle = R"css(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:72em;color:#222;line-height:1.4}
h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #ccc;margin-top:2em}h3{font-size:1.1em}
table{border-collapse:collapse;margin:0.6em 0 1em}th,td{border:1px solid #ccc;padding:0.25em 0.5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}
.verdict{display:inline-block;padding:0.1em 0.5em;border-radius:0.3em;font-weight:600}
.holds{background:#d8f0d8;color:#145214}.not{background:#f6d5d5;color:#7a1111}.inconclusive{background:#e8e8e8;color:#444}
.mixed{background:#fbe6c2;color:#6b4500}.few{background:#dde6f3;color:#233a5e}.early{color:#8a4b00;font-weight:600}.meta{color:#555;font-size:0.9em}.reason{color:#555;font-size:0.9em}
svg.chart{display:block;margin:0.5em 0 1.5em;font-size:11px}svg .frame{fill:none;stroke:#999}svg .grid{stroke:#e4e4e4}
svg .line{fill:none;stroke-width:1.8}svg .bar{stroke-width:1.2}svg .xl{text-anchor:middle;fill:#444}
svg .yl{text-anchor:end;fill:#444}svg .yt{text-anchor:middle;fill:#444}svg .ct{font-weight:600;fill:#222}svg .lg{fill:#222}
)css";

const char* verdict_class(Verdict v) {
  switch (v) {
    case Verdict::Holds: return "holds";
    case Verdict::DoesNotHold: return "not";
    case Verdict::Mixed: return "mixed";
    case Verdict::TooFewReplicas: return "few";
    case Verdict::Inconclusive: break;
  }
  return "inconclusive";
}

std::string badge(Verdict v, const std::string& text) {
  return std::string("<span class=\"verdict ") + verdict_class(v) + "\">" + html_escape(text) + "</span>";
}

std::string td(const std::string& text, bool numeric = false) {
  return std::string(numeric ? "<td class=\"n\">" : "<td>") + html_escape(text) + "</td>";
}

std::string stats_td(const Stats& s) {
  const std::string ci = s.n >= kMinReplicasForShownInterval ? interval(s.ci_low, s.ci_high) : "";
  return td(mean_std(s) + (ci.empty() ? "" : " " + ci), true);
}

detail::ChartPoint point(double x, const Stats& s) {
  return {x, s.n ? s.mean : NAN, s.n >= 2 ? s.mean - s.std : NAN, s.n >= 2 ? s.mean + s.std : NAN};
}

void claim_html(const Report& report, const ClaimReport& c, size_t i, std::ostringstream& os) {
  os << "<h3>" << i + 1 << ". " << html_escape(c.claim.title.empty() ? c.statement : c.claim.title) << "</h3>";
  os << "<p>claim: <code>" << to_string(c.claim.kind) << "</code>"
     << (c.claim.title.empty() ? "" : ": " + html_escape(c.statement)) << "<br/>paper: "
     << html_escape(c.claim.paper.empty() ? "-" : c.claim.paper) << "<br/>verdict: " << badge(c.verdict, c.summary)
     << (c.tuning.empty() ? "" : " <span class=\"reason\">(" + html_escape(c.tuning) + ")</span>")
     << (c.early.empty() ? "" : "<br/><span class=\"early\">" + html_escape(c.early) +
                                    "</span>: a verdict this early in training may not last")
     << "</p>";
  os << "<table><tr><th>at</th><th>measured: mean ± std (n) [95% interval]</th><th>effect [95% interval]</th>"
        "<th>test</th><th>p (raw / adjusted)</th><th>MDE / seeds needed</th><th>budget</th><th>verdict</th></tr>";
  for (const auto& r : c.rows) {
    os << "<tr>" << td(r.label) << "<td>";
    for (size_t k = 0; k < r.measured.size(); ++k) os << (k ? "<br/>" : "") << html_escape(measured_text(r.measured[k]));
    const std::string se = eval_se_text(r);
    if (!se.empty()) os << (r.measured.empty() ? "" : "<br/>") << "<span class=\"reason\">" << html_escape(se) << "</span>";
    os << "</td>" << td((r.effect_label.empty() || std::isnan(r.effect) ? "" : r.effect_label + ": ") + effect_text(r))
       << td(r.test.text.empty() ? "-" : r.test.text) << td(p_pair_text(r), true) << td(power_text(r))
       << "<td" << (r.budget.early ? " class=\"early\"" : "") << ">"
       << html_escape(budget_text(r.budget, report.settings.early_tokens_per_param)) << "</td>"
       << "<td>" << badge(r.verdict, to_string(r.verdict)) << "<br/><span class=\"reason\">" << html_escape(r.reason)
       << "</span></td></tr>";
  }
  os << "</table>";
  if (!c.crossings.empty()) {
    os << "<p>Learning curves of " << html_escape(c.claim.metric.text) << " (mean over the replicas):</p><ul>";
    for (const auto& x : c.crossings) os << "<li>" << html_escape(x.label + ", " + crossing_text(x)) << "</li>";
    os << "</ul>";
  }
  if (c.mixer.empty()) return;
  detail::Chart chart{"Final mixer weights of " + c.mixer_group + " (mean ± std over replicas)", "layer", "weight",
                      false, 0.0, 1.0, {}, {}};
  const char* names[] = {"gss", "attn", "ffn"};
  for (int b = 0; b < 3; ++b) {
    detail::ChartSeries s{names[b], {}};
    for (const auto& l : c.mixer) {
      chart.x_ticks.push_back(l.layer);
      s.points.push_back(point(l.layer, b == 0 ? l.gss : b == 1 ? l.attn : l.ffn));
    }
    chart.series.push_back(s);
  }
  chart.x_ticks.erase(std::unique(chart.x_ticks.begin(), chart.x_ticks.end()), chart.x_ticks.end());
  os << detail::svg_chart(chart);
}

// What the table's numbers are, said for the groups at hand: no spread or interval is claimed
// where every group has one replica (it read "the 95% interval from 3 replicas" regardless).
std::string groups_method(const Report& r) {
  std::size_t most = 0;
  for (const auto& g : r.groups) most = std::max(most, g.replicas.size());
  std::string s = "Final values, mean ± std (n) over the replicas (one finished run per seed).";
  if (most <= 1)
    return s + " Every group has at most one replica here, so no spread or interval is shown: train more seeds "
               "(the project's \"seeds\") to get them.";
  return s + " A 95% interval (Student t) follows a group's value where it has at least " +
         std::to_string(kMinReplicasForShownInterval) + " replicas.";
}

void tuning_html(const Report& r, std::ostringstream& os) {
  if (r.tuning.empty()) return;
  os << "<h2>Tuning</h2><p class=\"meta\">Each family's settings (project.json tune), mean ± std (n) over the replicas; "
        "the chosen setting has the best mean of the selection metric among those with every replica finished (a tie "
        "goes to the one listed first). The test split is reported, not used to choose.</p>";
  for (const auto& t : r.tuning) {
    os << "<h3>" << html_escape(t.entry + (t.grid_point.empty() ? "" : " at " + t.grid_point)) << "</h3>"
       << "<table><tr><th>setting</th><th>" << html_escape(t.metric) << "</th><th>"
       << html_escape(t.test_metric.empty() ? "test" : t.test_metric) << "</th><th>replicas</th><th>status</th><th>chosen</th></tr>";
    for (const auto& st : t.settings)
      os << "<tr>" << td(st.tune_point.empty() ? st.group : st.tune_point) << stats_td(st.select)
         << (t.test_metric.empty() ? td("-") : stats_td(st.test)) << td(std::to_string(st.planned), true) << td(st.status)
         << "<td>" << (st.chosen ? "<b>chosen</b>" : "") << "</td></tr>";
    os << "</table>";
    if (!t.note.empty()) os << "<p class=\"reason\">" << html_escape(t.note) << "</p>";
  }
}

void scaling_html(const Report& r, std::ostringstream& os) {
  if (r.scaling.empty()) return;
  os << "<h2>Scaling fits</h2><p class=\"meta\">Final " << html_escape(r.scaling.metric)
     << " against size per variant, L = E + A x^-alpha fitted by least squares on every replica's point; dots are "
        "the mean over the seeds with ± 1 std, lines the fits with their 95% bootstrap band (docs/report.md).</p>";
  for (const auto& ax : r.scaling.axes) {
    os << "<h3>Against " << html_escape(ax.x_label) << "</h3><table><tr><th>variant</th><th>family</th><th>sizes</th>"
          "<th>fit [95% interval]</th><th>residuals</th></tr>";
    double y_lo = INFINITY, y_hi = -INFINITY;
    for (const auto& sr : ax.series) {
      std::string sizes, res;
      for (size_t i = 0; i < sr.size_x.size(); ++i) {
        sizes += (i ? "; " : "") + sci(sr.size_x[i]) + " -> " + mean_std(sr.size_y[i]);
        y_lo = std::min(y_lo, sr.size_y[i].min), y_hi = std::max(y_hi, sr.size_y[i].max);
      }
      for (double v : sr.fit.residuals) res += (res.empty() ? "" : " ") + num(v);
      os << "<tr>" << td(sr.entry) << td(sr.family) << td(sizes) << td(fit_text(sr.fit)) << td(res) << "</tr>";
    }
    os << "</table>";
    if (!ax.crossovers.empty()) {
      os << "<ul>";
      for (const auto& c : ax.crossovers) os << "<li>" << html_escape(crossover_text(c, ax.x_label)) << "</li>";
      os << "</ul>";
    }
    if (!std::isfinite(y_lo)) continue;
    const double pad = std::max(0.02, 0.08 * (y_hi - y_lo));
    detail::Chart chart{"Final " + r.scaling.metric + " against " + ax.x_label, ax.x_label + " (log scale)",
                        r.scaling.metric, true, y_lo - pad, y_hi + pad, {}, {}};
    for (size_t k = 0; k < ax.series.size(); ++k) {
      const auto& sr = ax.series[k];
      detail::ChartSeries pts{sr.entry, {}, "points", static_cast<int>(k)};
      for (size_t i = 0; i < sr.size_x.size(); ++i) pts.points.push_back(point(sr.size_x[i], sr.size_y[i]));
      chart.series.push_back(pts);
      if (!sr.fit.ok) continue;
      detail::ChartSeries fit{"", {}, "curve", static_cast<int>(k)};
      for (const auto& b : sr.fit.band) fit.points.push_back({b.x, b.fit, b.low, b.high});
      chart.series.push_back(fit);
    }
    os << detail::svg_chart(chart);
  }
  if (!r.scaling.notes.empty()) {
    os << "<ul>";
    for (const auto& n : r.scaling.notes) os << "<li>" << html_escape(n) << "</li>";
    os << "</ul>";
  }
}

void groups_html(const Report& r, std::ostringstream& os) {
  os << "<h2>Metrics per group</h2><p class=\"meta\">" << html_escape(groups_method(r))
     << "</p><table><tr><th>group</th><th>family</th><th>params</th><th>replicas</th>";
  for (const auto& k : r.metric_keys) os << "<th>" << html_escape(k) << "</th>";
  os << "</tr>";
  for (const auto& g : r.groups) {
    os << "<tr>" << td(g.group) << td(g.family) << td(g.n_params ? std::to_string(g.n_params) : "-", true)
       << td(std::to_string(g.replicas.size()) + " of " + std::to_string(g.seeds.size()), true);
    for (const auto& k : r.metric_keys) os << stats_td(g.metrics.at(k));
    os << "</tr>";
  }
  os << "</table>";
}

void params_html(const Report& r, std::ostringstream& os) {
  os << "<h2>Parameter efficiency</h2><p class=\"meta\">Held-out accuracy (" << html_escape(r.accuracy_key)
     << ") against parameters per architecture family.</p><table><tr><th>family</th><th>group</th><th>params</th>"
        "<th>accuracy</th></tr>";
  detail::Chart chart{"Accuracy against parameters", "parameters (log scale)", "accuracy", true, 0.0, 1.0, {}, {}};
  for (const auto& family : family_names()) {
    std::vector<const GroupReport*> rows;
    for (const auto& g : r.groups)
      if (g.family == family) rows.push_back(&g);
    std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->n_params < b->n_params; });
    detail::ChartSeries s{family, {}};
    for (const GroupReport* g : rows) {
      const auto it = g->metrics.find(r.accuracy_key);
      const Stats st = it == g->metrics.end() ? summarize({}) : it->second;
      os << "<tr>" << td(family) << td(g->group) << td(g->n_params ? std::to_string(g->n_params) : "-", true)
         << stats_td(st) << "</tr>";
      if (g->n_params > 0) s.points.push_back(point(static_cast<double>(g->n_params), st));
    }
    if (!s.points.empty()) chart.series.push_back(s);
  }
  os << "</table>" << detail::svg_chart(chart);
}

void sweep_html(const SweepTable& t, std::ostringstream& os) {
  if (t.empty()) return;
  os << "<h2>" << html_escape(t.title) << "</h2><table><tr><th>group</th>";
  for (double x : t.xs) os << "<th>" << html_escape(t.x_label + "=" + format_number(x)) << "</th>";
  os << "</tr>";
  const bool log_x = t.x_label == "T";
  detail::Chart chart{t.title, log_x ? "T (log scale)" : t.x_label, "accuracy", log_x, 0.0, 1.0, t.xs, {}};
  for (size_t g = 0; g < t.groups.size(); ++g) {
    os << "<tr>" << td(t.groups[g]);
    detail::ChartSeries s{t.groups[g], {}};
    for (size_t k = 0; k < t.xs.size(); ++k) {
      os << stats_td(t.cells[g][k]);
      s.points.push_back(point(t.xs[k], t.cells[g][k]));
    }
    os << "</tr>";
    chart.series.push_back(s);
  }
  os << "</table>" << detail::svg_chart(chart);
}

}  // namespace

std::string render_html(const Report& r) {
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/><title>Report: " << html_escape(r.project)
     << "</title><style>" << kStyle << "</style></head><body>";
  os << "<h1>Report: " << html_escape(r.project) << "</h1>";
  if (!r.description.empty()) os << "<p>" << html_escape(r.description) << "</p>";
  os << "<p class=\"meta\">Store " << html_escape(r.store_path) << ", generated " << local_time(r.generated_at_ms)
     << ". Each group's replicas are its finished runs, one per seed; figures are mean ± sample std (n), 95% intervals "
        "Student t (a comparison: paired by seed when both sides have the same seeds, else Welch); a claim holds "
        "when its adjusted p is below alpha with the effect on the claimed side (docs/report.md).</p>"
     << "<p class=\"meta\"><b>Statistics:</b> " << html_escape(r.statistics) << "</p>";
  os << "<h2>Claims</h2>";
  if (r.claims.empty()) os << "<p>The project declares no claims.</p>";
  for (size_t i = 0; i < r.claims.size(); ++i) claim_html(r, r.claims[i], i, os);
  tuning_html(r, os);
  scaling_html(r, os);
  groups_html(r, os);
  if (r.is_task) params_html(r, os);
  sweep_html(r.length, os);
  sweep_html(r.ood, os);
  if (!r.notes.empty()) {
    os << "<h2>Notes</h2><ul>";
    for (const auto& n : r.notes) os << "<li>" << html_escape(n) << "</li>";
    os << "</ul>";
  }
  os << "</body></html>\n";
  return os.str();
}

}  // namespace pha::analysis
