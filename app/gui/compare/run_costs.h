// Quality against cost for the Pareto chart: a run's cost on a chosen axis (parameters,
// forward FLOPs per token, training tokens/s, peak memory), each read from the store or
// computed from the run's own model config, and the Pareto front of a set of points.
#pragma once

#include <QString>
#include <optional>
#include <vector>

#include "gui/compare/compare_data.h"

namespace pha::gui {

enum class CostAxis { Parameters, FlopsPerToken, TokensPerSecond, PeakMemory };

QString costAxisName(CostAxis axis);  // axis title, with "higher is better" where it is
bool costHigherIsBetter(CostAxis axis);

struct CostValue {
  std::optional<double> value;
  QString source;  // where it came from ("runs.n_params", "perf rows", ...) or why it is missing
};

// Parameters: runs.n_params, else counted from the model config. FLOPs per token: the forward
// pass at the config's context and the reference batch (pha::model::reference_flops, the figure
// `pha model` and the Configuration dock show). Tokens/s and peak memory: the store's profile
// of the run's model at its training T where there is one (LoadedRun::profile), else the
// median of its train/tokens_per_s points, and the largest train/memory_bytes point (the
// training process's peak RSS); a profile run, its own fastest training-step row. `source`
// says which.
CostValue runCost(const LoadedRun& run, CostAxis axis);

// true for each point no other point dominates (at least as good on both axes, better on one):
// the first front of search::nondominated_fronts (engine/search/promotion.h), the same front a
// search promotes by.
std::vector<bool> paretoFront(const std::vector<double>& x, const std::vector<double>& y,
                              bool xHigherIsBetter, bool yHigherIsBetter);

}  // namespace pha::gui
