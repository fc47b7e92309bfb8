// Evaluation on top of a Trainer (no torch here): perplexity and bits per byte on a text split,
// micro / macro accuracy and exact match on a task set, and the length-generalisation and OOD
// sweeps (accuracy against T, against the input Bernoulli p).
//
// One evaluation path: the training's final evaluation and periodic validation (job.cpp) and
// `pha eval` (run_eval.cpp, evaluate_run) describe what they measure as an EvalPlan, built by
// final_eval_plan() / periodic_eval_plan() from the run's data and training sections (pha eval
// then applies its options to the same plan), and call evaluate(). store_rows() names the rows
// every one of them records. The sweep lengths and probabilities are data/tasks' lists.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/metrics.h"
#include "data/tasks/task.h"
#include "data/text_dataset.h"
#include "runtime/internal/eval_types.h"
#include "runtime/job_data.h"
#include "project/project.h"
#include "runtime/trainer.h"
#include "store/types.h"

namespace pha::runtime {

struct TextEvalResult {
  double loss = 0.0;        // mean NLL per predicted token (nats)
  double perplexity = 0.0;  // exp(loss), for this tokenizer only
  double bpb = 0.0;         // bits per byte of text predicted (tokenizer independent)
  int64_t tokens = 0;       // tokens predicted
  int64_t bytes = 0;        // text bytes those tokens stand for
  // Standard errors of loss and bpb over the evaluation's windows (data::ratio_standard_error:
  // each window of T tokens one unit); NaN with fewer than 2 windows. Consecutive windows of one
  // text are not independent, so this is the noise of the sample of windows, not of the text.
  double loss_se = 0.0, bpb_se = 0.0;
};

// Consecutive windows of T tokens from the start of `split`, B per forward pass, until
// max_tokens tokens are predicted (0: the whole split, every token predicted once).
TextEvalResult evaluate_text(Trainer& trainer, const data::TokenArray& split, const std::vector<int32_t>& token_bytes,
                             int B, int T, int64_t max_tokens);

// Examples 0..n-1 of the task (n capped at its num_examples; n <= 0: all of them), B per
// forward pass.
data::AccuracyReport evaluate_task(Trainer& trainer, const data::TaskGenerator& task, int64_t n, int B);

// What one evaluation measures.
struct EvalPlan {
  int batch_size = 1;                   // sequences per forward pass
  // Text runs: every split at every window length, max_tokens tokens per split (0: all).
  std::vector<data::Split> splits;
  std::vector<int> text_lengths;
  int64_t max_tokens = 0;
  // Task runs: the held-out sets {name, make_task config}, `examples` each (0: the set's size).
  std::vector<std::pair<std::string, nlohmann::json>> sets;
  int64_t examples = 0;
  // Task runs: the sweeps of `sweep_task` (a make_task config, already at its held-out seed),
  // sweep_examples per point. Length points at `lengths` (empty: data::length_generalization_
  // sets' T list); a point the task cannot be made at is skipped with the reason. OOD points at
  // data::ood_bits_sets' p list. Rows are named "length" and "<task>_bits_p<p>", or with a
  // label "length:<label>" and "<label>_bits_p<p>".
  nlohmann::json sweep_task;
  bool length_sweep = false, ood_sweep = false;
  std::vector<int> lengths;
  int64_t sweep_examples = 1000;
  std::string sweep_label;
};

// The final evaluation of a run: text: the validation and test splits at training.seq_len,
// training.final_eval_tokens each; tasks: every held-out set in full, then the sweeps that
// data.sweeps asks for of the training task at seed + 10, training.sweep_examples per point.
EvalPlan final_eval_plan(const project::DataSpec& data, const project::TrainingConfig& training);
// The periodic validation during training: the validation split (training.eval_tokens) or the
// first held-out set (training.eval_examples), no sweeps.
EvalPlan periodic_eval_plan(const project::DataSpec& data, const project::TrainingConfig& training);

// Measures the plan with the trainer's current weights; `on_point` (optional) sees each point
// as soon as it is measured. Text plans read `data`'s splits; task plans make their sets from
// the plan's configs. Throws core::Error for a plan whose task configs are invalid.
EvalReport evaluate(Trainer& trainer, const JobData& data, const EvalPlan& plan,
                    const std::function<void(const EvalPoint&)>& on_point = {});

// The store rows of one point at `step`: text (set, T) x loss / perplexity / bpb; tasks
// (set, T) x accuracy (micro) / macro_accuracy / exact_match.
std::vector<store::EvalRow> store_rows(int64_t step, const EvalPoint& point);

}  // namespace pha::runtime
