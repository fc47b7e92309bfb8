// The report's one document (analysis/report_document.h): every section, table, row and reason,
// in the order every view shows them. The figures are formatted here, once, with
// analysis/report_format.h; the renderers only lay the blocks out.
#include "analysis/report_document.h"

#include <algorithm>
#include <cmath>

#include "analysis/report.h"
#include "analysis/internal/report_internal.h"
#include "core/config_reader.h"

namespace pha::analysis {

namespace {

Span plain(std::string text) { return {std::move(text), SpanStyle::Plain, std::nullopt}; }
Span styled(std::string text, SpanStyle style) { return {std::move(text), style, std::nullopt}; }

Block heading(int level, const std::string& text) {
  Block b;
  b.kind = BlockKind::Heading;
  b.level = level;
  b.text = {plain(text)};
  return b;
}

Block paragraph(Spans text, bool meta = false) {
  Block b;
  b.kind = BlockKind::Paragraph;
  b.text = std::move(text);
  b.meta = meta;
  return b;
}

Block list(std::vector<Spans> items) {
  Block b;
  b.kind = BlockKind::List;
  b.items = std::move(items);
  return b;
}

Block table(const std::string& id, std::vector<std::string> columns) {
  Block b;
  b.kind = BlockKind::Table;
  b.id = id;
  b.columns = std::move(columns);
  return b;
}

void add_chart(std::vector<Block>& out, const std::string& id, const detail::Chart& chart) {
  std::string svg = detail::svg_chart(chart);
  if (svg.empty()) return;  // nothing to draw
  Block b;
  b.kind = BlockKind::Chart;
  b.id = id;
  b.title = chart.title;
  b.svg = std::move(svg);
  out.push_back(std::move(b));
}

Cell text_cell(const std::string& text, bool numeric = false) {
  Cell c;
  c.spans = {plain(text)};
  c.numeric = numeric;
  return c;
}

// A group's figure: mean ± std (n), with its 95% interval from 3 replicas (docs/report.md).
Cell stats_cell(const Stats& s) {
  const std::string ci = s.n >= kMinReplicasForShownInterval ? interval(s.ci_low, s.ci_high) : "";
  return text_cell(mean_std(s) + (ci.empty() ? "" : " " + ci), true);
}

detail::ChartPoint point(double x, const Stats& s) {
  return {x, s.n ? s.mean : NAN, s.n >= 2 ? s.mean - s.std : NAN, s.n >= 2 ? s.mean + s.std : NAN};
}

std::vector<Cell> claim_row(const Report& report, const Claim& claim, const ClaimRow& r) {
  Cell measured;
  for (const auto& m : r.measured) measured.spans.push_back(plain(measured_text(m)));
  const std::string se = eval_se_text(r);
  if (!se.empty()) measured.spans.push_back(styled(se, SpanStyle::Secondary));
  if (measured.spans.empty()) measured.spans.push_back(plain("-"));
  const bool effect = !r.effect_label.empty() && !std::isnan(r.effect);
  Cell p = text_cell(p_pair_text(r), true);
  p.join = " ";
  if (std::isfinite(r.p) && !r.adjustment.empty() && r.adjustment != "none")
    p.spans.push_back(styled("(" + r.adjustment + ")", SpanStyle::Secondary));
  Cell budget = text_cell(budget_text(r.budget, report.settings.early_tokens_per_param));
  budget.warn = r.budget.early;
  Cell verdict;
  verdict.spans = {{verdict_text(claim, r.verdict), SpanStyle::Plain, r.verdict}, styled(r.reason, SpanStyle::Secondary)};
  verdict.join = ": ";
  return {text_cell(r.label),
          measured,
          text_cell((effect ? r.effect_label + ": " : "") + effect_text(r)),
          text_cell(r.test.text.empty() ? "-" : r.test.text),
          p,
          text_cell(power_text(r)),
          budget,
          verdict};
}

// A chart of one statistic per branch against the layer (mean ± std over the replicas).
void mixer_chart(const ClaimReport& c, const std::string& id, const std::string& title, bool shares, std::vector<Block>& out) {
  detail::Chart chart{title, "layer", shares ? "share" : "weight", false, 0.0, 1.0, {}, {}};
  const char* names[] = {"gss", "attn", "ffn"};
  for (int b = 0; b < 3; ++b) {
    detail::ChartSeries s{names[b], {}};
    for (const auto& l : c.mixer) {
      chart.x_ticks.push_back(l.layer);
      const Stats& v = shares ? (b == 0 ? l.gss_share : b == 1 ? l.attn_share : l.ffn_share)
                              : (b == 0 ? l.gss : b == 1 ? l.attn : l.ffn);
      s.points.push_back(point(l.layer, v));
    }
    chart.series.push_back(s);
  }
  chart.x_ticks.erase(std::unique(chart.x_ticks.begin(), chart.x_ticks.end()), chart.x_ticks.end());
  add_chart(out, id, chart);
}

// The raw mixer weights per layer and, where the lens measured them, the effective shares beside them.
void mixer_blocks(const ClaimReport& c, const std::string& n, std::vector<Block>& out) {
  if (c.mixer.empty()) return;
  const bool shares = std::any_of(c.mixer.begin(), c.mixer.end(), [](const MixerLayer& l) {
    return l.gss_share.n + l.attn_share.n + l.ffn_share.n > 0;
  });
  Spans text = {plain("Final mixer weights of " + c.mixer_group + " per layer (mean ± std (n) over replicas)")};
  if (shares) {
    text.push_back(plain(", and the effective shares beside them (mixer weight x gain RMS over the layer's sum, "));
    text.push_back(styled("pha lens weights", SpanStyle::Code));
    text.push_back(plain(")"));
  }
  text.push_back(plain(":"));
  out.push_back(paragraph(std::move(text)));
  std::vector<std::string> columns = {"layer", "gss", "attn", "ffn"};
  if (shares) columns.insert(columns.end(), {"gss share", "attn share", "ffn share"});
  Block t = table("mixer" + n, columns);
  for (const auto& l : c.mixer) {
    t.rows.push_back({text_cell(std::to_string(l.layer), true), stats_cell(l.gss), stats_cell(l.attn), stats_cell(l.ffn)});
    if (shares) t.rows.back().insert(t.rows.back().end(), {stats_cell(l.gss_share), stats_cell(l.attn_share), stats_cell(l.ffn_share)});
  }
  out.push_back(std::move(t));
  mixer_chart(c, "mixer" + n, "Final mixer weights of " + c.mixer_group + " (mean ± std over replicas)", false, out);
  if (shares)
    mixer_chart(c, "shares" + n, "Effective shares of " + c.mixer_group + " (mean ± std over replicas)", true, out);
}

void claim_blocks(const Report& report, const ClaimReport& c, size_t i, std::vector<Block>& out) {
  const std::string n = std::to_string(i + 1);
  out.push_back(heading(3, n + ". " + (c.claim.title.empty() ? c.statement : c.claim.title)));
  std::vector<Spans> facts;
  facts.push_back({plain("claim: "), styled(to_string(c.claim.kind), SpanStyle::Code)});
  if (!c.claim.title.empty()) facts.back().push_back(plain(": " + c.statement));
  facts.push_back({plain("paper: " + (c.claim.paper.empty() ? std::string("-") : c.claim.paper))});
  facts.push_back({plain(c.claim.primary ? "role: primary (one of the family the correction covers)"
                                         : "role: secondary (exploratory: corrected among the secondary claims only)")});
  if (c.claim.smallest_effect > 0.0)
    facts.push_back({plain("smallest effect of interest: " +
                           std::string(c.claim.smallest_effect_from_paper ? "the paper's effect, " : "") +
                           core::format_number(c.claim.smallest_effect) +
                           " on the claimed side; tested by two one-sided tests (TOST) inside the correction")});
  facts.push_back({{"verdict: " + c.summary, SpanStyle::Strong, c.verdict}});
  if (!c.tuning.empty()) facts.back().push_back(styled(" (" + c.tuning + ")", SpanStyle::Secondary));
  if (!c.underpowered.empty()) facts.push_back({styled(c.underpowered, SpanStyle::Warning)});
  for (const auto& change : c.changed_after_data) facts.push_back({styled("changed after data: " + change, SpanStyle::Warning)});
  for (const auto& w : c.shape_warnings) facts.push_back({styled("baseline check: " + w, SpanStyle::Warning)});
  if (!c.early.empty()) facts.push_back({styled(c.early, SpanStyle::Warning), plain(": a verdict this early in training may not last")});
  out.push_back(list(std::move(facts)));
  Block t = table("claim" + n, {"at", "measured (mean ± std (n) [95% interval])", "effect [95% interval]", "test",
                                "p (raw / adjusted)", "MDE / seeds needed", "budget", "verdict"});
  for (const auto& r : c.rows) t.rows.push_back(claim_row(report, c.claim, r));
  out.push_back(std::move(t));
  if (!c.crossings.empty()) {
    out.push_back(paragraph({plain("Learning curves of " + c.claim.metric.text +
                                   " (mean over the replicas, linear between evaluations):")}));
    std::vector<Spans> items;
    for (const auto& x : c.crossings) items.push_back({plain(x.label + ", " + crossing_text(x))});
    out.push_back(list(std::move(items)));
  }
  mixer_blocks(c, n, out);
}

// The registration of the claims and design (docs/report.md, "Registration") and what changed
// after it.
void registration_blocks(const Report& r, std::vector<Block>& out) {
  const RegistrationReport& g = r.registration;
  const bool changed = !g.changes.empty() || !g.claims_removed.empty();
  out.push_back(paragraph({styled("Registration:", SpanStyle::Strong), plain(" "),
                           g.present && !changed && g.runs_before == 0 ? plain(g.text) : styled(g.text, SpanStyle::Warning)},
                          true));
  std::vector<Spans> items;
  for (const auto& c : g.changes) items.push_back({styled("changed after data: " + c, SpanStyle::Warning)});
  for (const auto& c : g.claims_removed)
    items.push_back({styled("registered but no longer declared: " + c, SpanStyle::Warning)});
  if (!items.empty()) out.push_back(list(std::move(items)));
}

// Baseline shapes a reviewer would not accept (docs/report.md, "Baseline checks").
void baseline_blocks(const Report& r, std::vector<Block>& out) {
  if (r.shape_warnings.empty()) return;
  out.push_back(heading(2, "Baseline checks"));
  out.push_back(paragraph({plain("Shapes and tuning curves a reviewer would question; each claim that compares such a "
                                 "group repeats its line.")},
                          true));
  std::vector<Spans> items;
  for (const auto& w : r.shape_warnings) items.push_back({styled(w.text, SpanStyle::Warning)});
  out.push_back(list(std::move(items)));
}

// "; the choice is inside the values tried" (TuningTable::edge in words); "" without one.
std::string edge_words(const std::string& edge) {
  if (edge.empty()) return "";
  if (edge == "interior") return "; the choice is inside the values tried";
  if (edge == "at the bound") return "; the choice is at the project's bound";
  return "; the choice is at the " + edge;
}

void tuning_blocks(const Report& r, std::vector<Block>& out) {
  if (r.tuning.empty()) return;
  out.push_back(heading(2, "Tuning"));
  out.push_back(paragraph({plain("Each family's settings (project.json "), styled("tune", SpanStyle::Code),
                           plain("), mean ± std (n) over the replicas; the chosen setting has the lowest mean + 1 "
                                 "standard error of the selection metric (the highest mean - 1 standard error for "
                                 "accuracies) among those with every replica finished, so that a setting is not "
                                 "chosen for one lucky seed (a tie goes to the one listed first; docs/report.md). "
                                 "The test split is reported, not used to choose.")},
                          true));
  for (size_t k = 0; k < r.tuning.size(); ++k) {
    const TuningTable& t = r.tuning[k];
    out.push_back(heading(3, t.entry + (t.grid_point.empty() ? "" : " at " + t.grid_point)));
    Block b = table("tuning" + std::to_string(k + 1), {"setting", t.metric, r.tuning_maximize ? "mean - 1 SE" : "mean + 1 SE",
                                                      t.test_metric.empty() ? "test" : t.test_metric, "replicas",
                                                      "status", "chosen"});
    for (const auto& s : t.settings) {
      Cell chosen;
      if (s.chosen) chosen.spans = {styled("chosen", SpanStyle::Strong)};
      b.rows.push_back({text_cell(s.tune_point.empty() ? s.group : s.tune_point), stats_cell(s.select),
                        text_cell(num(s.score), true), t.test_metric.empty() ? text_cell("-") : stats_cell(s.test),
                        text_cell(std::to_string(s.planned), true), text_cell(s.status), chosen});
    }
    out.push_back(std::move(b));
    // Which seeds chose it and which the claims read (selection vs confirmation).
    if (!t.seeds.empty())
      out.push_back(paragraph({plain(t.seeds + (t.confirmation_group.empty() ? "" : " (group " + t.confirmation_group + ")") +
                                     (t.complete ? edge_words(t.edge) : std::string()) + ".")}));
    if (!t.gap_text.empty()) out.push_back(paragraph({plain(t.gap_text + ".")}));
    // Why none was chosen, an incomplete setting, a choice at the edge of the values tried.
    if (!t.note.empty()) out.push_back(paragraph({styled(t.note, SpanStyle::Warning)}));
  }
}

// The identifiability checks of one axis's fits: the design, the leave-one-out predictions and
// every flag (analysis/scaling_identify.h).
Block scaling_checks(const ScalingAxis& ax) {
  Block t = table("scaling-" + ax.axis + "-checks", {"variant", "sizes", "largest size held out: predicted vs measured",
                                                     "worst size held out", "beyond the fit (frozen): predicted vs measured",
                                                     "identified"});
  for (const auto& s : ax.series) {
    const Identifiability& c = s.check;
    if (!c.checked) {
      t.rows.push_back({text_cell(s.entry), text_cell("-"), text_cell("-"), text_cell("-"), text_cell("-"), text_cell("no fit")});
      continue;
    }
    Cell beyond;
    for (const auto& h : s.predictions) {
      const std::string inside = h.message.find("inside the fitted range") != std::string::npos ? " (inside the fitted range)" : "";
      beyond.spans.push_back(plain(
          "x " + sci(h.x) + ": " + num(h.predicted) +
          (h.predicted_ci.valid() ? " " + interval(h.predicted_ci.low, h.predicted_ci.high) : "") + " vs " + num(h.measured) +
          (std::isfinite(h.measured_sd) ? " ± " + num(h.measured_sd) : "") + " (n=" + std::to_string(h.n_points) + "): " +
          percent_text(h.rel_error) + (h.within ? " (within " : " (not within ") +
          core::format_number(100.0 * kPredictionTolerance) + "%)" + inside));
      beyond.warn = beyond.warn || !h.within;
    }
    if (beyond.spans.empty()) beyond.spans.push_back(styled("none trained", SpanStyle::Warning));
    beyond.join = "; ";
    const std::string design = std::to_string(c.n_sizes) + " over " + sci(c.decades) + " decades";
    const HeldOut& h = c.largest;
    std::string largest = "x " + sci(h.x) + ": ";
    if (h.ok) {
      largest += num(h.predicted) + (h.predicted_ci.valid() ? " " + interval(h.predicted_ci.low, h.predicted_ci.high) : "") +
                 " vs " + num(h.measured) + (std::isfinite(h.measured_sd) ? " ± " + num(h.measured_sd) : "") +
                 " (n=" + std::to_string(h.n_points) + "): " + percent_text(h.rel_error) +
                 (h.within ? " (within " : " (not within ") + sci(100.0 * c.tolerance) + "%)";
    } else {
      largest += h.message;
    }
    std::string worst = "-";
    if (c.worst < c.each.size() && c.each[c.worst].ok)
      worst = "x " + sci(c.each[c.worst].x) + ": " + percent_text(c.each[c.worst].rel_error) + " (of " +
              std::to_string(c.each.size()) + " held out in turn)";
    Cell verdict;
    if (c.identified()) {
      verdict = text_cell("yes");
    } else {
      verdict.spans.push_back(styled("no", SpanStyle::Warning));
      for (const auto& f : c.flags) verdict.spans.push_back(plain(f));
      verdict.join = ": ";
      verdict.warn = true;
    }
    Cell largest_cell = text_cell(largest, true);
    largest_cell.warn = !h.within;
    t.rows.push_back({text_cell(s.entry), text_cell(design, true), largest_cell, text_cell(worst, true), beyond, verdict});
  }
  return t;
}

// The IsoFLOP view (analysis/isoflop.h): per series, its budgets, the loss-optimal size at each
// and the exponent of N* against C.
void isoflop_blocks(const ScalingReport& r, std::vector<Block>& out) {
  if (!r.isoflop_requested) return;
  out.push_back(heading(3, "IsoFLOP view"));
  out.push_back(paragraph({plain("Runs grouped by training compute C (tokens x the engine's FLOPs per token) into "
                                 "budgets of equal compute (within 0.1 decade); per budget the mean final " + r.metric +
                                 " at each size, a least-squares parabola in log10 N and its minimum N* when it lies "
                                 "inside the sizes tried; then N* = k C^a by least squares in log-log over those "
                                 "budgets, with its standard error (docs/report.md, IsoFLOP view).")},
                          true));
  if (r.isoflop.empty()) out.push_back(paragraph({styled("No series to show: no sizes with finished runs.", SpanStyle::Warning)}));
  for (size_t k = 0; k < r.isoflop.size(); ++k) {
    const auto& [entry, f] = r.isoflop[k];
    out.push_back(paragraph({styled(entry, SpanStyle::Strong)}));
    Block t = table("isoflop" + std::to_string(k + 1), {"budget (FLOPs)", "sizes: N -> mean " + r.metric + " (runs)",
                                                        "N*", "min " + r.metric, "note"});
    for (const auto& b : f.budgets) {
      std::string sizes;
      for (size_t i = 0; i < b.sizes.size(); ++i)
        sizes += (i ? "; " : "") + sci(b.sizes[i]) + " -> " + num(b.losses[i]) + " (" + std::to_string(b.counts[i]) + ")";
      t.rows.push_back({text_cell(sci(b.flops) + (b.spread > 1.001 ? " (spread x" + sci(b.spread) + ")" : ""), true),
                        text_cell(sizes), text_cell(b.ok ? sci(b.n_opt) : "-", true),
                        text_cell(b.ok ? num(b.min_loss) : "-", true), text_cell(b.ok ? "" : b.message)});
    }
    out.push_back(std::move(t));
    if (f.ok)
      out.push_back(paragraph({plain(entry + ": N* = " + sci(f.coefficient) + " C^" + num(f.exponent) + " (± " +
                                     num(f.exponent_se) + " standard error) over " + std::to_string(f.n_used) +
                                     " budgets")}));
    else
      out.push_back(paragraph({styled(entry + ": " + f.message, SpanStyle::Warning)}));
  }
}

void scaling_blocks(const Report& r, std::vector<Block>& out) {
  if (r.scaling.empty()) return;
  out.push_back(heading(2, "Scaling fits"));
  out.push_back(paragraph({plain("Final " + r.scaling.metric +
                                 " against size per variant, L = E + A x^-alpha fitted by least squares on every "
                                 "replica's point, 95% bootstrap percentile intervals; in the plots dots are the mean "
                                 "over the seeds with ± 1 std, lines the fits with their band. With a tune section "
                                 "each size is read at its chosen setting, shown beside it. Checks under each table: "
                                 "a fit is identified with 5 or more sizes over 1.5 or more decades, no parameter on "
                                 "a bound, E's interval above 0, alpha's within a factor 2, the largest size "
                                 "predicted within 1% by the fit without it, and every size held out of the fit by "
                                 "design (scaling.predict: beyond the largest fitted one, trained to test the law) "
                                 "predicted within 2% by the frozen fit. Crossovers are searched on the sizes "
                                 "both series measured and never beyond 3x the largest (docs/report.md).")},
                          true));
  for (const auto& ax : r.scaling.axes) {
    out.push_back(heading(3, "Against " + ax.x_label));
    Block t = table("scaling-" + ax.axis, {"variant", "family", "sizes: x -> mean ± std (n)", "fit [95% interval]", "residuals"});
    double y_lo = INFINITY, y_hi = -INFINITY;
    for (const auto& s : ax.series) {
      std::string sizes, res;
      for (size_t i = 0; i < s.size_x.size(); ++i) {
        const std::string setting = i < s.size_setting.size() && !s.size_setting[i].empty() ? " (" + s.size_setting[i] + ")" : "";
        sizes += (i ? "; " : "") + sci(s.size_x[i]) + setting + " -> " + mean_std(s.size_y[i]);
        y_lo = std::min(y_lo, s.size_y[i].min), y_hi = std::max(y_hi, s.size_y[i].max);
      }
      for (double v : s.fit.residuals) res += (res.empty() ? "" : " ") + num(v);
      for (const auto& h : s.predictions) y_lo = std::min(y_lo, h.measured), y_hi = std::max(y_hi, h.measured);
      t.rows.push_back({text_cell(s.entry), text_cell(s.family), text_cell(sizes), text_cell(fit_text(s.fit)),
                        text_cell(res.empty() ? "-" : res)});
    }
    out.push_back(std::move(t));
    if (!ax.series.empty()) out.push_back(scaling_checks(ax));
    if (!ax.note.empty()) out.push_back(paragraph({styled(ax.note, SpanStyle::Warning)}));
    std::vector<Spans> crossovers;
    for (const auto& c : ax.crossovers) {
      crossovers.push_back({plain(crossover_text(c, ax.x_label) + (c.caution.empty() ? "" : " "))});
      if (!c.caution.empty()) crossovers.back().push_back(styled("(" + c.caution + ")", SpanStyle::Warning));
    }
    if (!crossovers.empty()) out.push_back(list(std::move(crossovers)));
    if (!std::isfinite(y_lo)) continue;
    const double pad = std::max(0.02, 0.08 * (y_hi - y_lo));
    detail::Chart chart{"Final " + r.scaling.metric + " against " + ax.x_label, ax.x_label + " (log scale)",
                        r.scaling.metric, true, y_lo - pad, y_hi + pad, {}, {}};
    for (size_t k = 0; k < ax.series.size(); ++k) {
      const auto& sr = ax.series[k];
      detail::ChartSeries pts{sr.entry, {}, "points", static_cast<int>(k)};
      for (size_t i = 0; i < sr.size_x.size(); ++i) pts.points.push_back(point(sr.size_x[i], sr.size_y[i]));
      chart.series.push_back(pts);
      if (!sr.predictions.empty()) {  // the held-out sizes, measured, beside the extrapolated curve
        detail::ChartSeries held{sr.entry + " (held out, predicted)", {}, "points", static_cast<int>(k)};
        for (const auto& h : sr.predictions) {
          const double sd = std::isfinite(h.measured_sd) ? h.measured_sd : 0.0;
          held.points.push_back({h.x, h.measured, h.measured - sd, h.measured + sd});
        }
        chart.series.push_back(held);
      }
      if (!sr.fit.ok) continue;
      detail::ChartSeries fit{"", {}, "curve", static_cast<int>(k)};
      for (const auto& b : sr.fit.band) fit.points.push_back({b.x, b.fit, b.low, b.high});
      chart.series.push_back(fit);
    }
    add_chart(out, "scaling-" + ax.axis, chart);
  }
  isoflop_blocks(r.scaling, out);
  std::vector<Spans> notes;
  for (const auto& n : r.scaling.notes) notes.push_back({plain(n)});
  if (!notes.empty()) out.push_back(list(std::move(notes)));
}

// What the table's numbers are, said for the groups at hand: no spread or interval is claimed
// where every group has one replica.
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

void groups_blocks(const Report& r, std::vector<Block>& out) {
  out.push_back(heading(2, "Metrics per group"));
  out.push_back(paragraph({plain(groups_method(r))}, true));
  std::vector<std::string> columns = {"group", "family", "params", "replicas"};
  columns.insert(columns.end(), r.metric_keys.begin(), r.metric_keys.end());
  Block t = table("groups", columns);
  for (const auto& g : r.groups) {
    Cell replicas = text_cell(std::to_string(g.replicas.size()) + " of " + std::to_string(g.seeds.size()), true);
    for (const auto& m : g.missing) replicas.tooltip += (replicas.tooltip.empty() ? "" : "\n") + m;
    std::vector<Cell> row = {text_cell(g.group), text_cell(g.family),
                             text_cell(g.n_params ? std::to_string(g.n_params) : "-", true), replicas};
    for (const auto& k : r.metric_keys) row.push_back(stats_cell(g.metrics.at(k)));
    t.rows.push_back(std::move(row));
  }
  out.push_back(std::move(t));
}

// By family (in family_names() order, any other after them), then parameters.
void params_blocks(const Report& r, std::vector<Block>& out) {
  out.push_back(heading(2, "Parameter efficiency"));
  out.push_back(paragraph({plain("Held-out accuracy ("), styled(r.accuracy_key, SpanStyle::Code),
                           plain(") against parameters, per architecture family.")},
                          true));
  const auto& families = family_names();
  auto rank = [&](const std::string& f) { return std::find(families.begin(), families.end(), f) - families.begin(); };
  std::vector<const GroupReport*> rows;
  for (const auto& g : r.groups) rows.push_back(&g);
  std::stable_sort(rows.begin(), rows.end(), [&](const GroupReport* a, const GroupReport* b) {
    return rank(a->family) != rank(b->family) ? rank(a->family) < rank(b->family) : a->n_params < b->n_params;
  });
  Block t = table("efficiency", {"family", "group", "params", "accuracy"});
  detail::Chart chart{"Accuracy against parameters", "parameters (log scale)", "accuracy", true, 0.0, 1.0, {}, {}};
  for (const GroupReport* g : rows) {
    const auto it = g->metrics.find(r.accuracy_key);
    const Stats st = it == g->metrics.end() ? summarize({}) : it->second;
    t.rows.push_back({text_cell(g->family), text_cell(g->group), text_cell(g->n_params ? std::to_string(g->n_params) : "-", true),
                      stats_cell(st)});
    if (chart.series.empty() || chart.series.back().name != g->family) chart.series.push_back({g->family, {}});
    if (g->n_params > 0) chart.series.back().points.push_back(point(static_cast<double>(g->n_params), st));
  }
  chart.series.erase(std::remove_if(chart.series.begin(), chart.series.end(), [](const auto& s) { return s.points.empty(); }),
                     chart.series.end());
  out.push_back(std::move(t));
  add_chart(out, "efficiency", chart);
}

void sweep_blocks(const SweepTable& s, const std::string& id, std::vector<Block>& out) {
  if (s.empty()) return;
  out.push_back(heading(2, s.title));
  out.push_back(paragraph({plain("Accuracy at the run's last evaluation, mean ± std (n).")}, true));
  std::vector<std::string> columns = {"group"};
  for (double x : s.xs) columns.push_back(s.x_label + "=" + core::format_number(x));
  Block t = table(id, columns);
  const bool log_x = s.x_label == "T";
  detail::Chart chart{s.title, log_x ? "T (log scale)" : s.x_label, "accuracy", log_x, 0.0, 1.0, s.xs, {}};
  for (size_t g = 0; g < s.groups.size(); ++g) {
    std::vector<Cell> row = {text_cell(s.groups[g])};
    detail::ChartSeries series{s.groups[g], {}};
    for (size_t k = 0; k < s.xs.size(); ++k) {
      row.push_back(stats_cell(s.cells[g][k]));
      series.points.push_back(point(s.xs[k], s.cells[g][k]));
    }
    t.rows.push_back(std::move(row));
    chart.series.push_back(series);
  }
  out.push_back(std::move(t));
  add_chart(out, id, chart);
}

}  // namespace

ReportDocument report_document(const Report& r) {
  ReportDocument d;
  d.title = "Report: " + r.project;
  std::vector<Block>& out = d.blocks;
  out.push_back(heading(1, d.title));
  if (!r.description.empty()) out.push_back(paragraph({plain(r.description)}));
  out.push_back(paragraph({plain("Store "), styled(r.store_path, SpanStyle::Code),
                           plain(", generated " + local_time(r.generated_at_ms) +
                                 ". Each group's replicas are its finished runs, one per seed; figures are mean ± "
                                 "sample std (n), 95% intervals Student t (a comparison: paired by seed when both "
                                 "sides have the same seeds, else Welch); a claim holds when its adjusted p is below "
                                 "alpha with the effect on the claimed side (docs/report.md).")},
                          true));
  out.push_back(paragraph({styled("Statistics:", SpanStyle::Strong), plain(" " + r.statistics)}, true));
  registration_blocks(r, out);
  out.push_back(heading(2, "Claims"));
  if (r.claims.empty())
    out.push_back(paragraph({plain("The project declares no claims (project.json "), styled("claims", SpanStyle::Code),
                             plain(", docs/project-format.md).")}));
  // Primary claims first; the secondary (exploratory) ones after them, under their own heading.
  bool secondary = false;
  for (size_t i = 0; i < r.claims.size(); ++i)
    if (r.claims[i].claim.primary) claim_blocks(r, r.claims[i], i, out);
    else secondary = true;
  if (secondary) {
    out.push_back(heading(2, "Secondary claims (exploratory)"));
    out.push_back(paragraph({plain("Declared \"role\": \"secondary\": corrected among themselves, not with the primary "
                                   "claims; a verdict here is exploratory, a lead for a later study, not a finding.")},
                            true));
    for (size_t i = 0; i < r.claims.size(); ++i)
      if (!r.claims[i].claim.primary) claim_blocks(r, r.claims[i], i, out);
  }
  baseline_blocks(r, out);
  tuning_blocks(r, out);
  scaling_blocks(r, out);
  groups_blocks(r, out);
  if (r.is_task) params_blocks(r, out);
  sweep_blocks(r.length, "length", out);
  sweep_blocks(r.ood, "ood", out);
  if (!r.notes.empty()) {
    out.push_back(heading(2, "Notes"));
    std::vector<Spans> notes;
    for (const auto& n : r.notes) notes.push_back({plain(n)});
    out.push_back(list(std::move(notes)));
  }
  return d;
}

std::string plain_text(const Spans& spans) {
  std::string s;
  for (const auto& span : spans) s += span.text;
  return s;
}

std::string plain_text(const Cell& cell) {
  std::string s;
  for (size_t i = 0; i < cell.spans.size(); ++i) s += (i ? cell.join : "") + cell.spans[i].text;
  return s;
}

}  // namespace pha::analysis
