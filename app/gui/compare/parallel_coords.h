// Compare dock, Parallel tab: the data of a parallel-coordinates view. One axis per config
// path that differs among the compared runs (diffConfigs, the rows of the Config diff tab),
// then a chosen metric's final value (the number the Metrics tab shows); where a value sits on
// an axis, which runs a set of brushes keeps, and the metric's sequential colour scale, whose
// bright end is the better one by the engine's metric table (those in
// widgets/parallel_coords_data.h, shared with the view). Qt value types and nlohmann::json: no
// widgets, no torch, so the rules are tested without drawing.
#pragma once

#include <QColor>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <string>
#include <utility>
#include <vector>

#include "gui/compare/compare_data.h"
#include "core/metric_table.h"
#include "widgets/parallel_coords_data.h"

namespace pha::gui {

// The axes' data, brushes and colour scale are the widget's (widgets/parallel_coords_data.h).
using widgets::AxisBrush;
using widgets::AxisScale;
using widgets::brushedRuns;
using widgets::metricQuality;
using widgets::numericScale;
using widgets::ParallelAxis;
using widgets::ParallelData;
using widgets::sequentialColor;

// The final value of a key: the value at the run's last recorded step (MetricSummary::last,
// what the Metrics tab's "<key> final" row shows); NaN when the run has no such key.
double finalMetricValue(const LoadedRun& run, const std::string& key);

// The metric the tab starts with: the first of val/bpb, val/loss, val/accuracy the runs have,
// else the first key of the list, else empty.
QString defaultParallelMetric(const QStringList& keys);

// Axes for the readable runs whose config parsed, plus `metricKey` (empty or absent from every
// run: no metric axis). The top-level "run" path (the run's own name, written into its config
// by the engine) is not an axis: it names the line. mergeTogether: a key whose values split the
// runs into the same sets as another key's (every setting of a model family against another
// family's) becomes a follower of the first such axis instead of an axis of its own; the axis
// kept is a ".name" or ".variant" key when the set has one, else the first in path order.
ParallelData buildParallelData(const LoadedRuns& runs, const QString& metricKey, bool mergeTogether = false);
// The merge on its own: config axes (not the metric) that split the runs alike become one.
void mergeAxesThatChangeTogether(std::vector<ParallelAxis>& axes);

}  // namespace pha::gui
