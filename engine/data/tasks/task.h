// Synthetic tasks: the generator interface and the registry (task name -> generator) that
// builds any task from a config {"task": "mqar", ...params}. Every generator is deterministic:
// sequence i of a task depends only on (params, seed, i), so sets are reproducible, items can
// be made in any order or in parallel, and params() reports exactly what was run.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/batch.h"

namespace pha::data {

struct Sample {
  std::vector<int32_t> inputs;   // (T)
  std::vector<int32_t> targets;  // (T), kIgnore where not counted
};

struct TaskInfo {
  std::string name;          // registry name, e.g. "mqar"
  std::string suite;         // "zoology", "mad", "seed2" (this workbench's versions)
  int32_t vocab_size = 0;    // ids used are in [0, vocab_size)
  int seq_len = 0;           // T of every sample (shorter draws are left-padded)
  int seq_len_min = 0;       // the shortest draw when lengths vary (0: every sample is seq_len)
  int64_t num_examples = 0;  // size of the set: indices 0..num_examples-1
  std::string metric = "micro";     // the accuracy the task's literature reports: micro or macro

  int shortest() const { return seq_len_min > 0 ? seq_len_min : seq_len; }
};

class TaskGenerator {
 public:
  virtual ~TaskGenerator() = default;

  const TaskInfo& info() const { return info_; }
  // Exact parameters, defaults included; make_task(params()) rebuilds the same generator.
  const nlohmann::json& params() const { return params_; }

  // Writes sample `index` into inputs[0..T) and targets[0..T).
  virtual void generate(uint64_t index, int32_t* inputs, int32_t* targets) const = 0;

  Sample sample(uint64_t index) const;
  // B samples first_index, first_index+1, ...
  Batch batch(uint64_t first_index, int B) const;

 protected:
  TaskInfo info_;
  nlohmann::json params_;
};

using TaskFactory = std::function<std::unique_ptr<TaskGenerator>(const nlohmann::json& config)>;

// Builds a task from {"task": name, ...params}; unknown names or fields give core::Error naming
// "task.<field>" and what is allowed. A task this workbench refuses (refused_tasks()) gives the
// reason instead.
std::unique_ptr<TaskGenerator> make_task(const nlohmann::json& config);
std::vector<std::string> task_names();
// Tasks of the suites that a causal language model cannot be trained on meaningfully, with the
// reason: MAD's compression (each target would be the input at the same position).
const std::vector<std::pair<std::string, std::string>>& refused_tasks();

// The size of a held-out set when a project does not give one: the suite's own test size
// (MAD 1,280, tasks-spec §3; Zoology and this workbench's seed-2 tasks 1,000, §2).
int64_t default_test_examples(const TaskInfo& info);
// What a set is, for labels: "T 64, 1000 seq." or, when lengths vary, "T 20-50, 1000 seq.".
std::string describe_set(const TaskInfo& info);
void register_task(const std::string& name, TaskFactory factory);

// A named set of sequences to train or test on: a task config (with its seed and size).
struct TaskSet {
  std::string name;        // e.g. "mqar_T64_kv4"
  nlohmann::json config;   // make_task(config)
};

// Zoology MQAR sets (tasks-spec §2). Train: (T, kv, n) (64,4,100k) (128,8,20k) (256,16,20k)
// (256,32,20k) (256,64,20k) with `seed`; test: (64,4) (64,8) (64,16) (128,32) (256,64)
// (512,128) (1024,256), 1000 each, with seed + 10.
std::vector<TaskSet> mqar_train_sets(uint64_t seed);
std::vector<TaskSet> mqar_test_sets(uint64_t seed);

// The T values of the length-generalisation sweep (tasks-spec §4): {50, 75, 100, 150, 200, 400}.
const std::vector<int>& length_sweep_lengths();
// Length generalisation: `config` re-made at fixed T in `lengths` (empty: length_sweep_lengths()).
// Throws naming the field when the task cannot be made at one of them.
std::vector<TaskSet> length_generalization_sets(const nlohmann::json& config, const std::vector<int>& lengths = {});
// OOD bits: `config` (which must have "bits_p") re-made with Bernoulli p in {0.1, 0.3, 0.7, 0.9}.
std::vector<TaskSet> ood_bits_sets(const nlohmann::json& config);

}  // namespace pha::data
