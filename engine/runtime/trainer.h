// Trainer: one model, its AdamW optimizer (three parameter groups) and the step / evaluation /
// checkpoint operations the job loop needs. Torch stays behind a pimpl, so this header (and
// the job loop, the evaluator and the CLI) never parse torch headers.
//
// Parameter groups (model-spec §7): "decay" (matrices, embedding; weight decay on), "no_decay"
// (norms, biases, attention log-scales), "dss" (DSS kernel parameters: no weight decay, their
// own learning rate dss_lr), "mixer" (the mixers' softplus logits p: no weight decay, their own
// learning rate mixer_lr). Every group follows the same warmup + cosine factor.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/batch.h"
#include "model/model_config.h"
#include "model/lens_types.h"
#include "model/model_introspection.h"
#include "nn/precision.h"
#include "project/project.h"

namespace pha::distributed {
class ProcessGroup;
}

namespace pha::runtime {

// Linear warmup from 0 to 1 over warmup_steps, then cosine from 1 down to min_lr_ratio at
// `steps`; or, with schedule "wsd", 1 until stable_end() and a cooldown (1-sqrt or linear) to
// min_lr_ratio at `steps`. `step` is the 1-based optimizer step about to be taken.
double lr_factor(const project::TrainingConfig& cfg, int64_t step);

struct TrainStepResult {
  double loss = 0.0;       // mean token NLL over the micro-batches (nats)
  double grad_norm = 0.0;  // global L2 norm before clipping
  int64_t tokens = 0;      // input tokens processed
  bool finite = true;      // false: loss or gradient NaN/Inf; the optimizer step was skipped
  // Only with set_phase_timing(true) (the step benchmark): seconds in forward + loss, in
  // backward, and in gradient norm + clipping + AdamW, summed over the micro-batches.
  double forward_s = 0.0, backward_s = 0.0, optimizer_s = 0.0;
  // Data-parallel steps only (set_process_group): seconds spent after backward waiting for the
  // gradient allreduce (not hidden behind backward), and the sum over buckets of launch ->
  // completion seen (docs/distributed.md, "Overlap").
  double reduce_exposed_s = 0.0, reduce_inflight_s = 0.0;
};

struct LossSums {
  double nll = 0.0;        // summed over counted targets
  int64_t count = 0;       // counted targets
  std::vector<double> row_nll;     // per sequence of the batch (B): its summed NLL ...
  std::vector<int64_t> row_count;  // ... over its counted targets (for standard errors)
};

// One AdamW parameter group as the optimizer holds it.
struct OptimizerGroup {
  std::string name;        // decay | no_decay | dss | mixer
  int64_t numel = 0;       // parameters in the group
  double lr = 0.0;         // the group's current learning rate (peak x the last step's factor)
  double weight_decay = 0.0;
};

struct SamplingSettings {
  double temperature = 0.8;
  int top_k = 0;
  double top_p = 0.95;
  uint64_t seed = 0;
  int vocab_limit = 0;  // > 0: only ids below it are drawn (the tokenizer's vocabulary)
};

class Trainer {
 public:
  // Seeds torch's default generator with cfg.seed, builds the model on `device` ("cpu" or
  // "cuda") in cfg.precision and the optimizer. Throws core::Error for an unavailable device.
  Trainer(const model::ModelConfig& model, const project::TrainingConfig& cfg, const std::string& device);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // "auto" -> "cuda" when a GPU is usable, else "cpu"; "cuda" without one: core::Error.
  static std::string resolve_device(const std::string& setting);

  const std::string& device() const;
  // What training.precision resolved to on this device, and why (nn/precision.h). bf16:
  // the model computes in bf16 against fp32 master weights and fp32 AdamW state.
  const nn::PrecisionChoice& precision() const;
  bool bf16_autocast() const;  // precision().bf16() (the name the job's log line uses)
  int64_t num_parameters() const;
  // Parameter counts per optimizer group: {"decay": n, "no_decay": n, "dss": n, "mixer": n}.
  nlohmann::json group_summary() const;
  // The optimizer's groups with their current learning rate and weight decay (groups without
  // parameters are left out).
  std::vector<OptimizerGroup> optimizer_groups() const;

  // Data-parallel training (docs/distributed.md): from now on train_step reduces the gradients
  // over the group's ranks (bucketed allreduce from gradient hooks) and the loss with them;
  // each rank passes its own rows of the global batch. Every rank calls train_step in step.
  void set_process_group(std::shared_ptr<distributed::ProcessGroup> group);

  // One optimizer step over the micro-batches (gradient accumulation), learning rates scaled
  // by lr_factor. Non-finite loss or gradient: no update, finite = false.
  TrainStepResult train_step(const std::vector<data::Batch>& micro_batches, double lr_scale);
  // Learning rate of the main groups at lr_scale.
  double learning_rate(double lr_scale) const;

  // No-grad evaluation.
  LossSums eval_loss(const data::Batch& batch);
  std::vector<int32_t> predict(const data::Batch& batch);  // argmax ids, (B*T)
  void forward_only(const data::Batch& batch);             // logits, discarded (profiling)

  // The hybrid lens (runtime/lens.h): one no-grad pass over `batch` with knock-outs, per-token
  // probes and an attention head's weights; and each layer's GSS impulse response over T lags.
  model::LensPassResult lens_pass(const data::Batch& batch, const model::LensPassRequest& request);
  std::vector<model::FloatMatrix> gss_impulse_responses(int64_t T) const;

  void set_record_stats(bool on);
  // Times the phases of train_step (TrainStepResult::forward_s, ...); on CUDA it synchronises
  // the device at each phase boundary, so it is off in training.
  void set_phase_timing(bool on);
  model::ModelIntrospection introspect() const;

  // Full training checkpoint (weights, AdamW state, step, RNG), written atomically. Returns
  // the file size in bytes.
  int64_t save_checkpoint(const std::string& path, int64_t step, const nlohmann::json& run_config) const;
  // Restores a checkpoint written by save_checkpoint; returns its step. Errors name the file.
  int64_t load_checkpoint(const std::string& path);
  // Model weights only (generation, evaluation).
  void load_weights(const std::string& path);

  std::vector<int32_t> generate(const std::vector<int32_t>& prompt, int max_new, const SamplingSettings& s);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Runs `fn` under torch's autograd profiler and writes what it ran to `path` as a
// chrome://tracing file (the step benchmark's --trace).
void record_chrome_trace(const std::string& path, const std::function<void()>& fn);

// The "model" and "training" JSON a checkpoint recorded (for rebuilding a model from it).
nlohmann::json checkpoint_config(const std::string& path);
// Writes a checkpoint's model weights (no optimizer state) to a safetensors file.
void export_checkpoint_weights(const std::string& checkpoint, const std::string& out);

}  // namespace pha::runtime
