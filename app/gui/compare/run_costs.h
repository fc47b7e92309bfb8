// Quality against cost for the Pareto chart: a run's cost on a chosen axis (parameters,
// forward FLOPs per token, training tokens/s, peak memory), each read from the store or
// computed from the run's own model config, and the Pareto front of a set of points.
#pragma once

#include <QString>
#include <optional>
#include <vector>

#include "compare_data.h"

namespace pha::gui {

enum class CostAxis { Parameters, FlopsPerToken, TokensPerSecond, PeakMemory };

QString costAxisName(CostAxis axis);  // axis title, with "higher is better" where it is
bool costHigherIsBetter(CostAxis axis);

struct CostValue {
  std::optional<double> value;
  QString source;  // where it came from ("runs.n_params", "perf rows", ...) or why it is missing
};

// Parameters: runs.n_params, else counted from the model config. FLOPs per token: forward
// pass at the config's context length (pha::model::estimate_flops on the "model" section).
// Tokens/s: the last train/tokens_per_s point, else the fastest perf row. Peak memory: the
// largest perf peak_bytes.
CostValue runCost(const LoadedRun& run, CostAxis axis);

// true for each point no other point dominates (at least as good on both axes, better on one).
std::vector<bool> paretoFront(const std::vector<double>& x, const std::vector<double>& y,
                              bool xHigherIsBetter, bool yHigherIsBetter);

}  // namespace pha::gui
