// Internal to the report: reading one replica's value of a metric, and the number formats the
// renderers share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/claims.h"
#include "analysis/stats.h"

namespace pha::store {
class Store;
}

namespace pha::analysis {
struct CurveCrossing;
struct PowerLawFit;
struct ScalingCross;
}  // namespace pha::analysis

namespace pha::analysis::detail {

// A replica's value of `metric`: a summary key's final value (or its best: the minimum when
// `minimize`, else the maximum), or an evaluation row at the run's last step that has it
// (at the given T; without one, the only T there). NaN when the run does not have it.
double replica_value(store::Store& store, int64_t run_id, const MetricRef& metric, bool best, bool minimize);

// "1.2346": 4 decimals below 10, 2 below 1,000, 1 below 100,000, else none (never an exponent);
// "-" for NaN.
std::string num(double v);
// "1.2346 ± 0.0123 (n=3)", "11.19 ± 0.18 (n=3)" (the spread to the mean's decimals);
// "1.2346 (n=1)"; "- (n=0)".
std::string mean_std(const Stats& s);
// "[1.2001, 1.2690]", or "" without an interval.
std::string interval(double low, double high);
// "1.2e+05" style for budgets, FLOPs and parameter counts: 3 significant digits.
std::string sci(double v);
// One learning-curve crossing in words: "on tokens: cross at 1.23e+05 (better at the end: b)".
std::string crossing_text(const CurveCrossing& c);
// "E = 1.234 [1.1, 1.3], A = ..., alpha = 0.31 [0.2, 0.4]; rmse 0.0123; n 12" of a fit, or why
// there is none.
std::string fit_text(const PowerLawFit& fit);
// A crossover of two fitted curves in words.
std::string crossover_text(const ScalingCross& c, const std::string& x_label);
// "2026-12-01 11:57" (local time) of milliseconds since the epoch.
std::string local_time(int64_t ms);

}  // namespace pha::analysis::detail

namespace pha::analysis::detail {

// &, <, >, " and ' as entities (text and attribute values).
std::string html_escape(const std::string& text);

// A line chart drawn as inline SVG: one polyline per series through its means, a dot per point
// and a vertical bar from lo to hi (± 1 std); NaN points are skipped.
struct ChartPoint {
  double x = 0, y = 0, lo = 0, hi = 0;
};
struct ChartSeries {
  std::string name;                // the legend entry ("" : none)
  std::vector<ChartPoint> points;
  // "line": dots, bars and a polyline; "points": dots and bars only; "curve": a polyline without
  // dots, and where lo/hi are finite a shaded band between them (a fit and its interval).
  std::string style = "line";
  int color = -1;                  // index into the palette; -1: the series' own index
};
struct Chart {
  std::string title, x_label, y_label;
  bool x_log = false;
  double y_min = 0.0, y_max = 1.0;  // fixed range (accuracies and mixer weights are in [0, 1])
  std::vector<double> x_ticks;      // empty: chosen from the data's range
  std::vector<ChartSeries> series;
};
std::string svg_chart(const Chart& chart);

}  // namespace pha::analysis::detail
