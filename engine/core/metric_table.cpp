#include "core/metric_table.h"

#include <cmath>

namespace pha {

const std::vector<MetricInfo>& metric_table() {
  static const std::vector<MetricInfo> table = {
      {"loss", MetricGoal::Minimize, "mean token cross-entropy (nats)"},
      {"ppl", MetricGoal::Minimize, "perplexity, exp(loss)"},
      {"perplexity", MetricGoal::Minimize, "perplexity, exp(loss)"},
      {"bpb", MetricGoal::Minimize, "bits per byte of text"},
      {"accuracy", MetricGoal::Maximize, "fraction of answer tokens predicted"},
      {"macro_accuracy", MetricGoal::Maximize, "accuracy averaged over the task's sets"},
      {"exact_match", MetricGoal::Maximize, "fraction of examples with every answer token right"},
      {"tokens_per_s", MetricGoal::Maximize, "training tokens per second (measured)"},
      {"memory_bytes", MetricGoal::Minimize, "resident memory (measured)"},
      {"grad_norm", MetricGoal::None, "global gradient L2 norm before clipping"},
      {"lr", MetricGoal::None, "learning rate of the step"},
      {"params", MetricGoal::Minimize, "model parameters (counted)"},
      {"flops_per_token", MetricGoal::Minimize, "training FLOPs per token (counted)"},
  };
  return table;
}

const MetricInfo* find_metric(const std::string& key) {
  std::string name = key;
  if (const auto slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
  if (const auto at = name.find('@'); at != std::string::npos) name = name.substr(0, at);
  for (const auto& m : metric_table())
    if (m.name == name) return &m;
  return nullptr;
}

MetricGoal metric_goal(const std::string& key) {
  const MetricInfo* m = find_metric(key);
  return m ? m->goal : MetricGoal::None;
}

bool higher_is_better(const std::string& key) { return metric_goal(key) == MetricGoal::Maximize; }

bool metric_better(MetricGoal goal, double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return false;
  if (goal == MetricGoal::Maximize) return a > b;
  if (goal == MetricGoal::Minimize) return a < b;
  return false;
}

}  // namespace pha
