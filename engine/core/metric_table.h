// The one metric table: what each metric key the engine writes (or a search optimises) means
// and which direction is better. Every caller that ranks, promotes, early-stops or colours a
// metric asks here ("val/bpb": lower is better; "val/accuracy": higher), never its own rule.
// A key is read by its last path segment without an "@..." suffix: "eval/length/accuracy@400"
// is an accuracy, "test/bpb" bits per byte. Plain C++: the GUI may include it.
#pragma once

#include <string>
#include <vector>

namespace pha {

enum class MetricGoal { Minimize, Maximize, None };  // None: a measurement, not a quality (lr, step)

struct MetricInfo {
  std::string name;         // the last segment: "bpb", "accuracy", "params"
  MetricGoal goal = MetricGoal::None;
  std::string description;  // for people: "bits per byte"
};

// Every metric name the table knows, in documentation order (docs/metrics.md).
const std::vector<MetricInfo>& metric_table();

// The table's entry for `key` ("val/bpb", "test/accuracy", "eval/length/accuracy@400",
// "params"), or nullptr for a key it does not know.
const MetricInfo* find_metric(const std::string& key);

// The goal of `key`; None for an unknown key.
MetricGoal metric_goal(const std::string& key);
// true for accuracies, exact match and throughput; false for losses, perplexity, bpb, sizes.
bool higher_is_better(const std::string& key);

// a is better than b under `goal` (never for None or NaN).
bool metric_better(MetricGoal goal, double a, double b);

}  // namespace pha
