// The Scaling tab's data (ScalingTab draws it): the compared runs' final values grouped into one
// series per variant, each size at its best setting (the lowest mean final value; the other
// settings named: they are tuning points, not replicas) with its seeds' mean and spread, the
// saturating power law fitted to each series of 3 or more sizes (analysis/scaling_fit.h, as
// `pha report`), where two fitted series cross, and the summary's lines. Plain C++, no Qt:
// tested without a window (tests/app/gui/compare/test_scaling_series.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/scaling_fit.h"

namespace pha::gui {

// One compared run that has the metric and a size.
struct ScalingInput {
  std::string series;   // its variant (else its name): one series each
  std::string setting;  // its replica group (seeds of one configuration share it), else its name
  double x = 0.0;       // parameters or training FLOPs (> 0)
  double value = 0.0;   // its final value of the metric (finite)
};

struct ScalingSeries {
  std::string name;
  std::size_t first_input = 0;     // the input that started the series (the widget colours by its run)
  std::vector<double> x, mean, err;  // per size at its best setting: seeds' mean and std (0 for one seed)
  analysis::PowerLawFit fit;       // fit.ok: fitted (3 or more sizes); band for the curve
};

struct ScalingView {
  std::vector<ScalingSeries> series;  // in the order the inputs name them
  std::vector<std::string> lines;     // the summary: each series' fit, the crossovers, the settings
  int fitted = 0;
  double x_lo = 0.0, x_hi = 0.0;      // the sizes drawn
};

// `metric` names the final value in the settings' lines ("val/loss").
ScalingView scalingView(const std::vector<ScalingInput>& inputs, const std::string& metric);

}  // namespace pha::gui
