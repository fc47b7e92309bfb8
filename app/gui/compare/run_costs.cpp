#include "gui/compare/run_costs.h"

#include <QObject>
#include <cstdlib>
#include <exception>

#include "model/flops.h"
#include "model/model_config.h"
#include "core/metric_table.h"
#include "search/promotion.h"

namespace pha::gui {

QString costAxisName(CostAxis axis) {
  switch (axis) {
    case CostAxis::Parameters: return QObject::tr("parameters");
    case CostAxis::FlopsPerToken: return QObject::tr("forward FLOPs per token");
    case CostAxis::TokensPerSecond: return QObject::tr("training tokens / s (higher is better)");
    case CostAxis::PeakMemory: return QObject::tr("peak memory (bytes)");
  }
  return {};
}

bool costHigherIsBetter(CostAxis axis) { return axis == CostAxis::TokensPerSecond; }

namespace {

// The run config's "model" section (or the config itself when it is a bare model config).
std::optional<pha::model::ModelConfig> modelConfig(const LoadedRun& run, QString* why) {
  if (!run.config.is_object()) {
    *why = run.configError.isEmpty() ? QObject::tr("no configuration") : run.configError;
    return std::nullopt;
  }
  const nlohmann::json& j = run.config.contains("model") ? run.config.at("model") : run.config;
  try {
    return pha::model::model_config_from_json(j);
  } catch (const std::exception& e) {
    *why = QObject::tr("model config does not parse: %1").arg(QString::fromUtf8(e.what()));
    return std::nullopt;
  }
}

CostValue fromModel(const LoadedRun& run, bool flops) {
  QString why;
  auto config = modelConfig(run, &why);
  if (!config) return {std::nullopt, why};
  try {
    if (flops)  // the figure `pha model` and the Configuration dock show for the same model
      return {pha::model::reference_flops(*config).forward.total(),
              QObject::tr("estimated from the model config at T = %1, B = %2 (as pha model and the Configuration "
                          "dock)").arg(config->context).arg(pha::model::kReferenceBatch)};
    return {static_cast<double>(pha::model::count_parameters(*config).total),
            QObject::tr("counted from the model config")};
  } catch (const std::exception& e) {
    return {std::nullopt, QString::fromUtf8(e.what())};
  }
}

// The profile row of a training run's model at its training shape (T = training.seq_len, the
// training-step phase); else the row with the nearest T.
const pha::store::PerfRow* profileRow(const LoadedRun& run) {
  const nlohmann::json& training = run.config.is_object() && run.config.contains("training") ? run.config["training"]
                                                                                             : nlohmann::json();
  const std::int64_t t = training.is_object() ? training.value("seq_len", std::int64_t{0}) : 0;
  const pha::store::PerfRow* best = nullptr;
  for (const auto& p : run.profile) {
    if (p.phase != "train") continue;
    if (!best || std::llabs(p.seq_len - t) < std::llabs(best->seq_len - t)) best = &p;
  }
  return best;
}

// A profile run's own fastest training-step row (a profile compared as such).
const pha::store::PerfRow* fastestOwnRow(const LoadedRun& run) {
  const pha::store::PerfRow* best = nullptr;
  for (const auto& p : run.perf)
    if (p.phase == "train" && (!best || p.tokens_per_s > best->tokens_per_s)) best = &p;
  return best;
}

}  // namespace

CostValue runCost(const LoadedRun& run, CostAxis axis) {
  switch (axis) {
    case CostAxis::Parameters:
      if (run.info.n_params > 0) return {static_cast<double>(run.info.n_params), "runs.n_params"};
      return fromModel(run, false);
    case CostAxis::FlopsPerToken:
      return fromModel(run, true);
    case CostAxis::TokensPerSecond: {
      if (const auto* p = profileRow(run))
        return {p->tokens_per_s, QObject::tr("measured profile, run %1 (T = %2, B = %3, training step: %4)")
                                     .arg(run.profileRunId).arg(p->seq_len).arg(p->batch)
                                     .arg(QString::fromStdString(p->method))};
      if (run.tokensPerSPoints > 0)
        return {run.medianTokensPerS, QObject::tr("median of the run's %1 train/tokens_per_s points (no profile of "
                                                  "its model in this store)").arg(run.tokensPerSPoints)};
      if (const auto* p = fastestOwnRow(run))
        return {p->tokens_per_s, QObject::tr("its own perf rows (the fastest training step, T = %1)").arg(p->seq_len)};
      return {std::nullopt, QObject::tr("no profile of its model and no train/tokens_per_s points")};
    }
    case CostAxis::PeakMemory: {
      if (const auto* p = profileRow(run); p && p->peak_bytes > 0)
        return {static_cast<double>(p->peak_bytes),
                QObject::tr("measured profile, run %1 (peak RSS of a fresh pha process, T = %2, B = %3)")
                    .arg(run.profileRunId).arg(p->seq_len).arg(p->batch)};
      auto it = run.summaries.find("train/memory_bytes");
      if (it != run.summaries.end() && it->second.count > 0 && it->second.max > 0)
        return {it->second.max, QObject::tr("the largest train/memory_bytes point: peak RSS of the process that "
                                            "trained it, everything else it held included (no profile of its model "
                                            "in this store)")};
      if (const auto* p = fastestOwnRow(run); p && p->peak_bytes > 0)
        return {static_cast<double>(p->peak_bytes), QObject::tr("its own perf rows (T = %1)").arg(p->seq_len)};
      return {std::nullopt, QObject::tr("no profile of its model and no train/memory_bytes points")};
    }
  }
  return {};
}

std::vector<bool> paretoFront(const std::vector<double>& x, const std::vector<double>& y,
                              bool xHigherIsBetter, bool yHigherIsBetter) {
  // The engine's front, the one the search promotes by (search::nondominated_fronts): front 1.
  std::vector<std::vector<double>> points;
  points.reserve(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) points.push_back({x[i], y[i]});
  const auto goal = [](bool higher) { return higher ? core::MetricGoal::Maximize : core::MetricGoal::Minimize; };
  const std::vector<int> fronts = search::nondominated_fronts(points, {goal(xHigherIsBetter), goal(yHigherIsBetter)});
  std::vector<bool> front(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) front[i] = fronts[i] == 1;
  return front;
}

}  // namespace pha::gui
