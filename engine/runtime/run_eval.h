// Evaluation of a stored run after training (`pha eval`; the GUI can call it too): rebuilds the
// model from one of the run's checkpoints and measures it on the run's own data (text: loss,
// perplexity and bits per byte of the validation / test split; tasks: accuracy on the run's
// held-out sets) or on another task, with the length-generalisation sweep (accuracy against T)
// and the OOD-bits sweep, then records every figure as evaluation rows of that run. It runs
// the training's own final evaluation (runtime/evaluator.h: final_eval_plan, evaluate,
// store_rows) with the options applied to that plan, so without options it gives exactly the
// rows the training recorded (docs/runtime.md). Plain C++: torch stays inside the trainer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/internal/eval_types.h"
#include "store/store.h"
#include "store/types.h"

namespace pha::runtime {

struct RunEvalOptions {
  std::string checkpoint;            // empty: the run's last checkpoint
  int64_t step = -1;                 // >= 0: the run's checkpoint at this step (instead of the last)
  // Text runs: the splits to evaluate, "valid" and/or "test" (empty: both).
  std::vector<std::string> splits;
  // Task runs: a task config {"task": name, ...params} to evaluate on instead of the run's
  // held-out sets (null: the run's sets). When it names the run's training task, the params it
  // does not give are the training task's; "seed" defaults to the training seed + 10 (held
  // out), "num_examples" to 1000. `task_label` names its rows (default: the task name).
  nlohmann::json task;
  std::string task_label;
  // Task runs: sweeps. Unset: the run's own (its data.sweeps, as the final evaluation ran
  // them; giving `lengths` asks for the length sweep too). With `task`, the run's OOD sweep
  // only when that task is in its binary-input mode (bits_p >= 0). Asked for, the OOD sweep
  // needs a task that has that mode. Length points the task cannot be made at are skipped with
  // the reason.
  std::optional<bool> length_sweep, ood_sweep;
  // T values of the length sweep (tasks; empty: data::length_sweep_lengths(), tasks-spec §4)
  // or, for text, the window lengths to evaluate the splits at (empty: the run's seq_len).
  std::vector<int> lengths;
  int64_t examples = 0;        // tasks: examples per held-out set (0: the set's size)
  int64_t sweep_examples = 0;  // tasks: examples per sweep point (0: the run's training.sweep_examples)
  int64_t max_tokens = -1;     // text: tokens per split (0: the whole split; -1: the run's training.final_eval_tokens)
  int batch_size = 0;          // 0: the run's training.batch_size
  std::string device = "auto"; // auto | cpu | cuda
  bool record = true;          // write the figures as eval rows of the run
};

struct RunEvalResult {
  int64_t run_id = 0;
  std::string run_name;
  std::string checkpoint;
  int64_t step = 0;                   // training step of the checkpoint (the rows' step)
  bool is_task = false;
  std::string device;
  std::vector<EvalPoint> rows;
  std::vector<std::string> skipped;   // sweep points that could not be made, with the reason
  int64_t recorded = 0;               // eval rows written to the store
  double seconds = 0.0;               // wall time of the evaluation (model load included)
};

// Throws core::Error naming the store, the checkpoint, the data file or the option (as
// "--task", "--split", ...) when the run does not exist, has no checkpoint, its data cannot be
// loaded, or an option does not fit the run (a task on a text run, a task whose vocabulary the
// model does not have, ...). Nothing is recorded unless every evaluation succeeded.
RunEvalResult evaluate_run(const std::string& store_path, int64_t run_id, const RunEvalOptions& options);

// The checkpoint of a run to read and its training step: `checkpoint` (a file; its step from the
// run's rows or its metadata), else the one at `step` (>= 0), else the last. Throws core::Error
// naming the store, "--checkpoint" or "--step".
std::pair<std::string, int64_t> pick_run_checkpoint(store::Store& store, int64_t run_id, const std::string& checkpoint,
                                                    int64_t step);

// The eval rows evaluate_run records for `result`, all at result.step (store_rows of each
// point): text rows (split, T) x loss / perplexity / bpb; task rows (set, T) x accuracy (micro)
// / macro_accuracy / exact_match, the length sweep as set "length" (or "length:<task_label>"
// for another task).
std::vector<store::EvalRow> eval_rows(const RunEvalResult& result);

}  // namespace pha::runtime
