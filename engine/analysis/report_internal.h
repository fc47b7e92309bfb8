// Internal to the report: reading one replica's value of a metric, and the SVG charts and HTML
// escaping the renderers share (the number formats are public: analysis/report_format.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/claims.h"
#include "analysis/report_format.h"
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

// The number formats are public (analysis/report_format.h); test_report spells them detail::.
using analysis::mean_std;
using analysis::num;

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
