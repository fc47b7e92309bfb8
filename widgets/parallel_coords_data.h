// The data a parallel-coordinates view draws (ParallelCoordsView): one axis per varied setting
// and a metric's, where a value sits on an axis, which runs a set of brushes keeps, and the
// sequential colour scale of the metric. Qt value types only: tested without drawing. What the
// axes are for compared runs is the Compare dock's (app/gui/compare/parallel_coords.h).
#pragma once

#include <QColor>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <utility>
#include <vector>

#include "core/metric_table.h"
#include "widgets/run_ref.h"

namespace pha::widgets {

enum class AxisScale { Linear, Log, Categorical };

struct ParallelAxis {
  QString key;  // "training.lr", or the metric key ("val/bpb")
  bool metric = false;
  AxisScale scale = AxisScale::Linear;
  std::vector<double> values;  // per run: the number (categorical: the category's index); NaN: none
  std::vector<QString> texts;  // per run: the value as the hover readout shows it
  QStringList categories;      // categorical: the ticks, bottom to top
  double low = 0.0, high = 1.0;  // numeric: the values at the bottom and the top of the axis
  QString note;                  // the metric's direction: "lower is better"
  // Other varied keys that split the runs exactly as this one does (merged into it, see
  // buildParallelData); their values per run, as texts.
  QStringList followers;
  std::vector<std::vector<QString>> followerTexts;

  // 0 = bottom, 1 = top; NaN for a run without a value. A numeric axis whose values are all
  // equal puts them at 0.5; a log axis places log10(value).
  double positionOf(double value) const;
  double position(std::size_t run) const { return positionOf(values.at(run)); }
  double valueAt(double position) const;  // the inverse of positionOf (categorical: the index)
  // Labelled ticks (position, text): every distinct value when there are few, else round
  // numbers (linear) or decades (log); every category.
  std::vector<std::pair<double, QString>> ticks() const;
  QString scaleName() const;  // "linear", "log", "categorical"
};

struct ParallelData {
  std::vector<ParallelAxis> axes;  // config axes in the diff's (sorted) order, then the metric
  QList<RunRef> refs;              // per run
  QStringList labels;              // per run
  QString metricKey;               // empty: no metric axis
  core::MetricGoal goal = core::MetricGoal::None;
  QString emptyMessage;  // non-empty: nothing to draw, and what to do
  QString skipped;       // runs left out (not readable, config not JSON), named
};

// The numeric scale of a varied key: log when every value is positive and the largest is at
// least 10 times the smallest (a learning-rate sweep 1e-3 .. 1e-2 spans one decade), else linear.
AxisScale numericScale(const std::vector<double>& values);

// A brush on an axis: the positions [low, high] (0 = bottom, 1 = top) it keeps.
struct AxisBrush {
  double low = 0.0, high = 1.0;
};
// Runs kept by every brush (keyed by axis key; a run without a value on a brushed axis is out);
// every run when there is no brush.
std::vector<bool> brushedRuns(const ParallelData& data, const QHash<QString, AxisBrush>& brushes);

// The sequential scale (viridis): t = 0 dark purple .. 1 yellow. Runs are coloured by quality:
// 1 for the best value among them (lowest when the metric is minimized, highest when maximized;
// a metric with no better end: highest), 0 for the worst.
QColor sequentialColor(double t);
double metricQuality(const ParallelAxis& metric, core::MetricGoal goal, double value);

}  // namespace pha::widgets
