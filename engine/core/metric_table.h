// The one metric table: what each metric key the engine writes (or a search optimises) means
// and which direction is better. Every caller that ranks, promotes, early-stops or colours a
// metric asks here ("val/bpb": lower is better; "val/accuracy": higher), never its own rule.
// A key is read by its last path segment without an "@..." suffix: "eval/length/accuracy@400"
// is an accuracy, "test/bpb" bits per byte. Plain C++: the GUI may include it.
#pragma once

#include <string>
#include <vector>

namespace pha::core {

enum class MetricGoal { Minimize, Maximize, None };  // None: a measurement, not a quality (lr, step)

// What a metric is, for grouping it (the Compare table's sections) and for telling a task run's
// metrics (accuracies) from a text run's (losses): measured costs and counted sizes apart.
enum class MetricKind { Loss, Accuracy, Efficiency, Optimizer, Size };

struct MetricInfo {
  std::string name;         // the last segment: "bpb", "accuracy", "params"
  MetricGoal goal = MetricGoal::None;
  MetricKind kind = MetricKind::Loss;
  std::string description;  // for people: "bits per byte"
};

// Every metric name the table knows, in documentation order (docs/metrics.md).
const std::vector<MetricInfo>& metric_table();

// The table's entry for `key` ("val/bpb", "test/accuracy", "eval/length/accuracy@400",
// "params"), or nullptr for a key it does not know.
const MetricInfo* find_metric(const std::string& key);

// The goal of `key`; None for an unknown key.
MetricGoal metric_goal(const std::string& key);
// true for accuracies, exact match and throughput; false for losses, perplexity, bpb, sizes and
// for keys the table does not know (the run store ranks those lowest first).
bool higher_is_better(const std::string& key);
// The table's kind of `key`: is_metric_kind("test/copy/accuracy", MetricKind::Accuracy) is true;
// false for a key the table does not know.
bool is_metric_kind(const std::string& key, MetricKind kind);

// a is better than b under `goal` (never for None or NaN).
bool metric_better(MetricGoal goal, double a, double b);

}  // namespace pha::core
