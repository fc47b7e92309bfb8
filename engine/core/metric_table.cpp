#include "core/metric_table.h"

#include <cmath>

namespace pha::core {

const std::vector<MetricInfo>& metric_table() {
  using G = MetricGoal;
  using K = MetricKind;
  static const std::vector<MetricInfo> table = {
      {"loss", G::Minimize, K::Loss, "mean token cross-entropy (nats)"},
      {"ppl", G::Minimize, K::Loss, "perplexity, exp(loss)"},
      {"perplexity", G::Minimize, K::Loss, "perplexity, exp(loss)"},
      {"bpb", G::Minimize, K::Loss, "bits per byte of text"},
      {"accuracy", G::Maximize, K::Accuracy, "fraction of answer tokens predicted"},
      {"macro_accuracy", G::Maximize, K::Accuracy, "accuracy averaged over the task's sets"},
      {"exact_match", G::Maximize, K::Accuracy, "fraction of examples with every answer token right"},
      {"tokens_per_s", G::Maximize, K::Efficiency, "training tokens per second (measured)"},
      {"memory_bytes", G::Minimize, K::Efficiency, "resident memory (measured)"},
      {"grad_norm", G::None, K::Optimizer, "global gradient L2 norm before clipping"},
      {"lr", G::None, K::Optimizer, "learning rate of the step"},
      {"params", G::Minimize, K::Size, "model parameters (counted)"},
      {"flops_per_token", G::Minimize, K::Size, "training FLOPs per token (counted)"},
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

bool is_metric_kind(const std::string& key, MetricKind kind) {
  const MetricInfo* m = find_metric(key);
  return m && m->kind == kind;
}

bool metric_better(MetricGoal goal, double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return false;
  if (goal == MetricGoal::Maximize) return a > b;
  if (goal == MetricGoal::Minimize) return a < b;
  return false;
}

}  // namespace pha::core
