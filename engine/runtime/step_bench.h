// The training-step benchmark, once: a model built by runtime::Trainer, timed on random tokens
// through the same train step real training takes (forward, cross-entropy, backward, gradient
// norm and clipping, AdamW; or a no-grad forward), with peak memory from runtime/process_stats
// (VmHWM). `pha bench model` prints it with its MFU; the efficiency profiler's workers
// (profiler.h measure_point) measure each point with it. No torch here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model_config.h"
#include "model/precision.h"

namespace pha::runtime {

struct StepBenchSpec {
  model::ModelConfig model;
  int seq_len = 512;
  int batch = 8;
  std::string phase = "train";     // "train" (one optimizer step) or "forward" (no-grad logits)
  int warmup = 1;                  // untimed steps first
  int repeats = 3;                 // timed steps; the median is reported
  std::string device = "cpu";      // cpu | cuda | auto
  std::string precision = "auto";  // TrainingConfig.precision: auto (bf16 where the hardware has native bf16: model/precision.h) | fp32 | bf16
  bool phase_times = false;        // also time forward / backward / optimizer (synchronises a GPU)
  std::string trace;               // non-empty: a chrome://tracing file of one extra, untimed step
};

struct StepBenchResult {
  std::vector<double> step_s;      // every timed step (seconds)
  double median_step_s = 0.0;      // median of step_s (mean of the middle two for an even count)
  double tokens_per_s = 0.0;       // batch x seq_len / median_step_s
  // Medians of the train step's phases (phase_times and phase "train" only; else 0).
  double forward_s = 0.0, backward_s = 0.0, optimizer_s = 0.0;
  int64_t n_params = 0;
  std::string device;              // the device the trainer resolved
  bool bf16_autocast = false;
  model::PrecisionChoice precision;  // what training.precision resolved to, and why
  int64_t peak_bytes = 0;          // peak RSS of this process after the steps (VmHWM)
};

// Throws pha::Error for a bad spec (phase, sizes) or an unavailable device.
StepBenchResult bench_steps(const StepBenchSpec& spec);

// The median of `v` (mean of the middle two for an even count; 0 for none).
double median_of(std::vector<double> v);

}  // namespace pha::runtime
