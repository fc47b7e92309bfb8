// Internal to the report: reading one replica's value of a metric, learning curves and budgets,
// the rows of each claim kind (report_claims.cpp, report_claim_kinds.cpp, report_lens_claims.cpp,
// report_efficiency_claims.cpp, report_curves.cpp),
// and the SVG charts and HTML escaping the renderers share (the number formats are public:
// analysis/report_format.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/claims.h"
#include "analysis/internal/report_format.h"
#include "analysis/stats.h"

namespace pha::store {
class Store;
}

namespace pha::analysis {
struct ClaimReport;
struct ClaimRow;
struct CurveCrossing;
struct GroupReport;
struct MixerLayer;
struct PowerLawFit;
struct Report;
struct RowBudget;
struct ScalingCross;
struct Study;
}  // namespace pha::analysis

namespace pha::analysis::detail {

// A replica's value of `metric`: a summary key's final value (or its best: the minimum when
// `minimize`, else the maximum), or an evaluation row at the run's last step that has it
// (at the given T; without one, the only T there). NaN when the run does not have it.
double replica_value(store::Store& store, int64_t run_id, const MetricRef& metric, bool best, bool minimize);

// A learning curve: (x, value), x ascending.
using Curve = std::vector<std::pair<double, double>>;
// A replica's curve of `key` on `axis` ("steps", "tokens", "flops"), non-finite values dropped.
Curve curve_of(store::Store& store, int64_t run_id, const std::string& key, const std::string& axis,
               double flops_per_token);
// Linear interpolation at x between the curve's points; NaN outside [first x, last x].
double value_at(const Curve& curve, double x);
// Where the two groups' mean learning curves of the claim's metric cross, on tokens and FLOPs.
void add_crossings(const Claim& c, const GroupReport& a, const GroupReport& b, store::Store& store, ClaimReport& out);
// The training budget behind a row over `groups` (at `budget` of the claim's axis; NaN: the end).
RowBudget row_budget(const Claim& c, const std::vector<const GroupReport*>& groups, store::Store& store, double budget);

// The value of `key` ("training.lr": label "lr") in a tune point "lr=0.003,weight_decay=0.1";
// NaN when absent or not a number.
double tune_point_value(const std::string& tune_point, const std::string& key);

// "pha has 2 replicas with this metric (a verdict needs 3 or more)".
std::string too_few(const std::string& who, std::size_t n);
// The rows of the mixer_sandwich and accuracy_at_params kinds (report_claim_kinds.cpp): their
// statistics, raw p and direction; the verdict follows from the correction (report_stats.cpp).
ClaimRow sandwich_row(const Claim& c, const GroupReport& g, store::Store& store, std::vector<MixerLayer>* layers);
ClaimRow params_row(const Claim& c, const Report& report, store::Store& store);
// The groups an accuracy_at_params claim reads: the family's models with at most max_params
// parameters; with a tune section, each tuned model at its chosen setting only (its confirmation
// group when the protocol has confirmation seeds), as the comparison claims read them, never the
// other settings. `waiting` names the tuned models whose choice or confirmation is unfinished.
std::vector<const GroupReport*> params_groups(const Claim& c, const Report& report, std::string& waiting);
// The lens's stored measurements (report_lens_claims.cpp, store/lens_store.h): a run's effective
// shares, layer-major (L, 3) in branch_names() order (NaN where a (layer, branch) has none;
// empty: not measured), and the row of a knockout or specialisation claim over one group.
std::vector<float> effective_shares(store::Store& store, int64_t run_id);
ClaimRow knockout_row(const Claim& c, const GroupReport& g, store::Store& store);
// The row of an efficiency claim over one group of the hybrid (report_efficiency_claims.cpp):
// each replica matched to a baseline run of equal quality (or the baseline's fitted curve), the
// ratios of their stored inference figures (store/inference_store.h), one-sample t intervals
// of the mean log ratios against the thresholds. `baselines` are the report's groups the
// claim's baseline covers.
ClaimRow efficiency_row(const Claim& c, const GroupReport& g, const std::vector<const GroupReport*>& baselines,
                        const Study& study, store::Store& store);

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
