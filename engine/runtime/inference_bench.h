// The inference benchmark (`pha bench inference`, the Efficiency dock's Inference tab): prefill,
// decode and end-to-end timings and the memory of incremental decoding, split into weights, KV
// cache, GSS state and the rest (activations and workspace), against the prompt length L. Each
// point (model, L, batch) runs in a fresh `pha __inference-point` worker (worker_process.h), so
// its peak resident memory is its own. Results are recorded in the run store as runs of kind
// profile named "inference: <model>" (store_inference_results), one perf row per point and
// phase (prefill / decode / e2e) plus every figure in the run's config under "inference"
// (store/inference_store.h: the point types, their JSON, writing and reading them back).
// Method and threats to validity: docs/performance.md, "Inference". No torch here.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "project/project.h"
#include "runtime/events.h"
#include "store/inference_store.h"

namespace pha::runtime {

using store::InferenceMemory;
using store::InferencePointResult;
using store::InferencePointSpec;
using store::ModelInference;
using store::DecodeSlope;
using store::decode_slope;
using store::inference_of_model;
using store::inference_result_from_json;
using store::inference_run_name;
using store::inference_runs;
using store::inference_spec_from_json;
using store::is_inference_run_config;
using store::store_inference_results;
using store::to_json;

// The worker side: measures one point in this process (nn/decode_bench.h).
InferencePointResult measure_inference_point(const InferencePointSpec& spec);
// Runs `exe __inference-point --spec <json>`; failures are results with `error` set.
InferencePointResult measure_inference_in_worker(const std::string& exe, const InferencePointSpec& spec,
                                                 int timeout_s, const RunControl* control = nullptr);

struct InferenceSweep {
  std::vector<std::string> models = {"pha-tiny", "transformerpp-tiny", "gss-only-tiny"};
  std::vector<nlohmann::json> model_configs;  // empty, or one ModelConfig JSON per model
  std::vector<int64_t> source_runs;           // empty, or one per model
  std::vector<std::string> checkpoints;       // empty, or one per model
  std::vector<int64_t> train_seq_lens;        // empty, or one per model (0: the model's context)
  std::vector<int64_t> seq_lens = {256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
  std::vector<int64_t> batches = {1, 8};
  int64_t max_batch_tokens = 65536;  // a point with batch > 1 and batch x L above this is skipped (noted)
  int generate = 256;
  int decode_timed = 32;
  int decode_warmup = 2;
  int threads = 0;
  int timeout_s = 900;
  std::string device = "cpu";
  // Timings of every point, each in a fresh worker; within a repeat the models of one (L, batch)
  // run back to back, so a model and its baseline are interleaved (an efficiency claim tests its
  // ratios over them: docs/report.md, Efficiency; it needs 3 or more).
  int repeats = 1;
};

// core::Error naming the field for a bad sweep (no models, L < 1, batch < 1, mismatched lists).
void validate_inference_sweep(const InferenceSweep& sweep);
std::size_t inference_point_count(const InferenceSweep& sweep);  // points measured (skipped ones left out)

// Every (model, L, batch) point in a worker, in that order; on_point sees each result (failed
// ones too) as it arrives; waits while control is paused; stops at a cancel (the point being
// measured is dropped). Skipped points (max_batch_tokens) are not returned.
std::vector<InferencePointResult> inference_sweep(const std::string& exe, const InferenceSweep& sweep,
                                                  const std::function<void(const InferencePointResult&)>& on_point,
                                                  RunControl& control);

// The job the CLI (`pha bench inference --project`) and the window's Inference tab both run:
// the project's models (each distinct model config of its runs once, named as the efficiency
// profile names them: profiler.h project_profile_sweep), or the sweep's own models when
// `use_project_models` is false; each model's newest finished training run in the store is its
// source_run and that run's last checkpoint its weights. Measures every point in a worker and
// records the results under project.name in the store (store_inference_results).
struct InferenceJobSpec : project::ProjectSource {
  InferenceSweep sweep;                 // settings; its models are used when !use_project_models
  bool use_project_models = true;
  std::string program;                  // the `pha` the workers run; "": this program
  std::string store_path;               // "": the project's store
  std::function<void(const InferenceSweep&)> on_start;  // once the sweep is known, before the first point
};
struct InferenceJobResult {
  std::string project, store_path;
  InferenceSweep sweep;
  std::vector<InferencePointResult> points;
  std::vector<int64_t> run_ids;
  bool cancelled = false;
};
InferenceJobResult run_inference_job(const InferenceJobSpec& spec,
                                     const std::function<void(const InferencePointResult&)>& on_point,
                                     RunControl& control);

}  // namespace pha::runtime
