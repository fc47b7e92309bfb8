#include "run_costs.h"

#include <QObject>
#include <exception>

#include "model/flops.h"
#include "model/model_config.h"

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
    if (flops)
      return {pha::model::estimate_flops(*config, config->context).forward.total(),
              QObject::tr("estimated from the model config at T = %1").arg(config->context)};
    return {static_cast<double>(pha::model::count_parameters(*config).total),
            QObject::tr("counted from the model config")};
  } catch (const std::exception& e) {
    return {std::nullopt, QString::fromUtf8(e.what())};
  }
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
      auto it = run.summaries.find("train/tokens_per_s");
      if (it != run.summaries.end() && it->second.count > 0) return {it->second.last, "train/tokens_per_s (last)"};
      std::optional<double> fastest;
      for (const auto& p : run.perf)
        if (!fastest || p.tokens_per_s > *fastest) fastest = p.tokens_per_s;
      if (fastest) return {fastest, QObject::tr("perf rows (fastest)")};
      return {std::nullopt, QObject::tr("no train/tokens_per_s metric and no perf rows")};
    }
    case CostAxis::PeakMemory: {
      std::optional<double> peak;
      for (const auto& p : run.perf)
        if (p.peak_bytes > 0 && (!peak || p.peak_bytes > *peak)) peak = static_cast<double>(p.peak_bytes);
      if (peak) return {peak, QObject::tr("perf rows (largest peak)")};
      return {std::nullopt, QObject::tr("no perf rows with a peak memory")};
    }
  }
  return {};
}

std::vector<bool> paretoFront(const std::vector<double>& x, const std::vector<double>& y,
                              bool xHigherIsBetter, bool yHigherIsBetter) {
  auto atLeast = [](double a, double b, bool higher) { return higher ? a >= b : a <= b; };
  auto better = [](double a, double b, bool higher) { return higher ? a > b : a < b; };
  std::vector<bool> front(x.size(), true);
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = 0; j < x.size() && front[i]; ++j) {
      if (i == j) continue;
      const bool dominates = atLeast(x[j], x[i], xHigherIsBetter) && atLeast(y[j], y[i], yHigherIsBetter) &&
                             (better(x[j], x[i], xHigherIsBetter) || better(y[j], y[i], yHigherIsBetter));
      if (dominates) front[i] = false;
    }
  }
  return front;
}

}  // namespace pha::gui
