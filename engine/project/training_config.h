// The "training" section of project.json: TrainingConfig (read by ConfigReader in
// training_config.cpp: unknown keys rejected, types and ranges checked, errors naming the field),
// early stopping, the work a training asks for, and the one rule for patching a training section
// (a variant's, a tuning follow-up's, the command line's or the window's overrides). Plain data,
// no torch and no Qt.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pha::project {

// training.early_stop: end a run as finished when its periodic-evaluation metric has not
// improved by more than min_delta for `patience` evaluations in a row (docs/project-format.md).
struct EarlyStop {
  std::string metric;        // "" (off), or a periodic-evaluation metric (early_stop_metrics())
  int64_t patience = 3;      // evaluations without an improvement before the run ends
  double min_delta = 0.0;    // an improvement must exceed this (in the metric's units)
  bool enabled() const { return !metric.empty(); }
  bool maximize() const;     // accuracies improve upwards; losses, perplexity and bpb downwards
};
// The metrics early_stop may watch: text runs' and task runs' periodic evaluation metrics.
const std::vector<std::string>& early_stop_metrics(bool task);

// The "training" section (defaults in docs/project-format.md).
struct TrainingConfig {
  int64_t steps = 300;            // optimizer steps
  int batch_size = 8;             // sequences per micro-batch
  int seq_len = 256;              // T of a training window (text); tasks use the task's T
  int grad_accum = 1;             // micro-batches per optimizer step
  double lr = 3e-3;               // peak learning rate
  double min_lr_ratio = 0.1;      // the schedule ends at lr * min_lr_ratio
  int64_t warmup_steps = 30;      // linear warmup from 0
  // > 0: the warmup is this fraction of the run's steps instead (warmup_steps is then
  // max(1, round(fraction x steps)), resolved here; exclusive with warmup_steps). A search's rung
  // runs of such a trial warm up for the fraction of each rung (docs/search.md).
  double warmup_fraction = 0.0;
  // "cosine": warmup, then cosine decay to the end. "wsd" (warmup-stable-decay, Hagele et al.
  // 2024): warmup, constant lr, then a cooldown over the last `cooldown` fraction of the steps
  // (cooldown_shape "1-sqrt" or "linear"). A WSD run of any length shares its stable phase with
  // every longer one: the search's rungs branch their cooldowns off it (docs/search.md).
  std::string schedule = "cosine";
  double cooldown = 0.2;          // wsd: fraction of the steps in the cooldown
  std::string cooldown_shape = "1-sqrt";  // wsd: "1-sqrt" | "linear"
  // wsd: the last step of the stable phase (steps - cooldown steps); cosine: steps.
  int64_t stable_end() const;
  double weight_decay = 0.1;      // on matrices and embeddings only
  double beta1 = 0.9, beta2 = 0.95, eps = 1e-8;
  double dss_lr = 1e-3;           // peak lr of the DSS kernel parameters (same warmup + cosine)
  double mixer_lr = 3e-3;         // peak lr of the mixer logits p (same warmup + cosine); default: lr
  double grad_clip = 0.0;         // global L2 clip; 0: off (DeepNorm needs none)
  uint64_t seed = 0;
  int64_t eval_every = 100;       // 0: only at the end
  int64_t eval_tokens = 65536;    // validation tokens per periodic evaluation (text); 0: whole split
  int64_t eval_examples = 256;    // task examples per periodic evaluation
  int64_t sweep_examples = 1000;  // examples per point of the length / OOD sweeps
  int64_t final_eval_tokens = 0;  // validation / test tokens of the final evaluation; 0: whole splits
  int64_t checkpoint_every = 0;   // 0: only at the end and on cancel
  int64_t mixer_every = 10;       // mixer snapshot / branch norms every N steps
  std::string device = "auto";    // auto | cpu | cuda
  std::string precision = "auto"; // auto (bf16 autocast on CUDA, fp32 on CPU) | fp32 | bf16
  int threads = 0;                // 0: all cores (or $PHA_THREADS)
  double max_loss = 0.0;          // loss above this marks the run diverged; 0: 4 ln V
  EarlyStop early_stop;           // off unless the section has "early_stop"
  nlohmann::json used;            // every value in effect, defaults included

  static TrainingConfig from_json(const nlohmann::json& section, const std::string& where = "training");
};

// The work a training asks for as a whole (micro-batch tokens, training tokens), each field
// having its own limit too: core::Error naming `where`.batch_size / .steps. Checked again once a
// task has set seq_len (training_config.cpp).
void check_training_work(const TrainingConfig& c, const std::string& where);

// Applies `patch` (training keys) to a training section as written (`TrainingConfig::used`):
// JSON merge-patch, with the one rule that mixer_lr follows lr: when the section left mixer_lr at
// its default (equal to lr) and the patch sets lr alone, mixer_lr moves with it. The one place
// this is written: variants and tuning follow-ups (patched_run) and a job's overrides (pha train
// --set / --steps, the window's run options) call it.
void merge_training_patch(nlohmann::json& training, const nlohmann::json& patch);

}  // namespace pha::project
