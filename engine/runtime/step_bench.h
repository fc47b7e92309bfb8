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
#include "nn/precision.h"

namespace pha::runtime {

// What is timed: the step's shape and how often. One type for the in-process bench
// (StepBenchSpec) and a profile point measured in a worker (ProfilePointSpec, profiler.h).
struct StepTiming {
  int seq_len = 512;
  int batch = 8;
  std::string phase = "train";     // "train" (one optimizer step) or "forward" (no-grad logits)
  int warmup = 1;                  // untimed steps first
  int repeats = 3;                 // timed steps; the median is reported
  std::string device = "cpu";      // cpu | cuda | auto
};

// What a timing came to, as the bench and a profile point both report it.
struct StepMeasure {
  double median_step_s = 0.0;      // median of the timed steps (mean of the middle two for an even count)
  double tokens_per_s = 0.0;       // batch x seq_len / median_step_s
  int64_t n_params = 0;
  std::string device;              // the device the trainer resolved
  int64_t peak_bytes = 0;          // peak RSS of the measuring process after the steps (VmHWM)
};

struct StepBenchSpec : StepTiming {
  model::ModelConfig model;
  std::string precision = "auto";  // TrainingConfig.precision: auto (bf16 where the hardware has native bf16: nn/precision.h) | fp32 | bf16
  bool phase_times = false;        // also time forward / backward / optimizer (synchronises a GPU)
  std::string trace;               // non-empty: a chrome://tracing file of one extra, untimed step
};

struct StepBenchResult : StepMeasure {
  std::vector<double> step_s;      // every timed step (seconds); median_step_s is their median
  // Medians of the train step's phases (phase_times and phase "train" only; else 0).
  double forward_s = 0.0, backward_s = 0.0, optimizer_s = 0.0;
  bool bf16_autocast = false;
  nn::PrecisionChoice precision;  // what training.precision resolved to, and why
};

// Throws core::Error for a bad spec (phase, sizes) or an unavailable device.
StepBenchResult bench_steps(const StepBenchSpec& spec);

// The median of `v` (mean of the middle two for an even count; 0 for none).
double median_of(std::vector<double> v);

}  // namespace pha::runtime
