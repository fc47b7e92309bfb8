// The data a job trains and evaluates on, behind one interface for text corpora and synthetic
// tasks: deterministic training micro-batches from (seed, step) alone (so a resumed run sees
// exactly the batches an uninterrupted one would), evaluation batches, and the per-token byte
// lengths that bits per byte needs. No torch.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/batch.h"
#include "data/tasks/task.h"
#include "data/text_dataset.h"
#include "project/project.h"

namespace pha::runtime {

struct NamedTask {
  std::string name;
  std::unique_ptr<data::TaskGenerator> task;
};

class JobData {
 public:
  // Loads (or tokenizes and caches) the corpus, or builds the task generators. Throws
  // core::Error naming the field or file; checks the split is long enough for one window.
  JobData(const project::DataSpec& spec, const project::TrainingConfig& cfg);

  bool is_task() const { return spec_.is_task; }
  // training.grad_accum micro-batches of step `step` (1-based).
  std::vector<data::Batch> train_batches(int64_t step) const;
  // Data-parallel (docs/distributed.md): from now on train_batches gives this rank's rows
  // [rank * B / N, (rank + 1) * B / N) of each global micro-batch (B = training.batch_size), so
  // the N ranks together see exactly one process's batches. B not a multiple of N: core::Error
  // naming training.batch_size.
  void set_shard(int rank, int world_size);

  // Text only.
  const data::TextDataset& text() const { return *text_; }
  // Bytes a predicted token stands for (0 for special tokens), for bits per byte.
  const std::vector<int32_t>& token_bytes() const { return token_bytes_; }

  // Tasks only: the held-out sets (the first one is the periodic validation set).
  const std::vector<NamedTask>& test_tasks() const { return tests_; }
  // The training set (a suite's first set); the one that step `step`'s batches come from.
  const data::TaskGenerator& train_task() const { return *train_sets_.front().task; }
  const data::TaskGenerator& train_set_of_step(int64_t step) const;

  nlohmann::json describe() const;

 private:
  project::DataSpec spec_;
  project::TrainingConfig cfg_;
  int rank_ = 0, world_size_ = 1;
  std::vector<data::Batch> global_batches(int64_t step) const;  // the whole batch_size rows
  std::optional<data::TextDataset> text_;
  std::vector<int32_t> token_bytes_;
  std::vector<NamedTask> train_sets_;       // one task, or a suite's mixture
  std::vector<int64_t> train_cumulative_;  // running sum of the sets' sizes (mixture weights)
  std::vector<NamedTask> tests_;
};

// "held-out T 20-50, 1000 seq.": what a held-out set is, for the places that show its results.
std::string held_out_label(const data::TaskInfo& info);
// The label of each held-out set (name -> label) of a run, from the data section its config
// recorded; empty for text runs (or a section this version cannot read). Stored set names stay
// as they are ("test", "mqar_test_T64_kv4"): the label is derived, not stored.
std::map<std::string, std::string> held_out_labels(const nlohmann::json& data_section);

}  // namespace pha::runtime
