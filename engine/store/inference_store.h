// The inference benchmark's points as the run store keeps them (runtime/inference_bench.h
// measures them; `pha bench inference`, the Efficiency dock's Inference tab and the report's
// "efficiency" claim read them): one finished run of kind profile per model, named
// "inference: <model>", whose config holds {"inference": {"model", "model_config",
// "source_run", "points": [every figure of every point]}}, with perf rows phase "prefill",
// "decode" and "e2e" per point (tokens/s, peak RSS) for the views that read perf rows. Method:
// docs/performance.md, "Inference". Plain C++, no torch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/store.h"

namespace pha::store {

struct InferencePointSpec {
  std::string model = "pha-tiny";  // preset, model .json file, or only the label when model_config is set
  nlohmann::json model_config;     // a ModelConfig JSON object to build instead (a project's run); null: none
  std::string checkpoint;          // weights to load ("": the model as its seed initialises it)
  int64_t source_run = 0;          // the trained run the model (and checkpoint) came from; 0: none
  int64_t train_seq_len = 0;       // the source run's training.seq_len (0: none; then the model's context)
  int64_t seq_len = 1024;          // L, the prompt length (decode is timed at depth L)
  int64_t batch = 1;
  int generate = 256;              // tokens out after the prompt
  int decode_timed = 32;           // decode steps whose median is "ms per token"
  int decode_warmup = 2;           // untimed decode steps before them
  int threads = 0;                 // 0: all cores
  std::string device = "cpu";      // cpu only in this build
  // Which timing of the point this is (0 .. repeats - 1): a sweep with repeats measures every
  // point that many times, each in a fresh worker, the models interleaved within each repeat.
  int repeat = 0;
};

// Bytes. kv_cache and gss_state are the decode state's tensors as allocated; the *_formula
// fields are model::decode_memory for L + generate tokens (the reserved capacity); they are
// equal unless something allocates differently (tests assert it). activations = peak -
// baseline - weights - kv_cache - gss_state (at least 0): the prefill's activations, kernel
// workspace and allocator slack, the part no formula predicts.
struct InferenceMemory {
  int64_t weights = 0;
  int64_t kv_cache = 0;
  int64_t kv_formula = 0;
  int64_t gss_state = 0;
  int64_t gss_state_formula = 0;
  int64_t activations = 0;
  int64_t baseline = 0;  // RSS of the worker after start-up, before the model (the program and LibTorch)
  int64_t peak = 0;      // VmHWM of the worker after the point
};

struct InferencePointResult {
  InferencePointSpec spec;
  int64_t n_params = 0;
  int context = 0;                   // the training length: the source run's training.seq_len, else the
                                     // model's context (L / context: how far beyond it)
  double ttft_ms = 0.0;              // prefill: L tokens in, the first token out (greedy argmax)
  double prefill_tokens_per_s = 0.0; // batch x L / ttft
  double decode_ms_per_token = 0.0;  // median decode step at depth L (each step advances every sequence)
  double decode_tokens_per_s = 0.0;  // batch x 1000 / decode_ms_per_token
  double e2e_ms = 0.0;               // L in, `generate` out
  double e2e_tokens_per_s = 0.0;     // batch x generate x 1000 / e2e_ms
  std::vector<double> decode_ms;     // every decode step, in order (depth L+1 .. L+generate-1)
  InferenceMemory memory;
  std::string dtype;                 // "float32"
  std::string decode_path;           // which code ran (GSS recurrence, KV cache), in words
  std::string device;
  std::string method;                // how it was measured, in words
  std::string error;                 // non-empty: the point failed or was skipped
  nlohmann::json env = nlohmann::json::object();  // the worker's provenance (device/provenance.h)
  int64_t started_ms = 0, ended_ms = 0;           // wall clock of the worker
};

nlohmann::json to_json(const InferencePointSpec& s);
InferencePointSpec inference_spec_from_json(const nlohmann::json& j);  // core::Error naming the field
nlohmann::json to_json(const InferencePointResult& r);
InferencePointResult inference_result_from_json(const nlohmann::json& j);

// The name of a model's inference run in the run table.
std::string inference_run_name(const std::string& model);

// Records one finished run of kind profile per model (name inference_run_name, config
// {"inference": {"model", "model_config", "points": [...]}} with every figure of every point;
// perf rows phase "prefill", "decode" and "e2e" per point). Failed points are named in the
// run's notes. Returns the run ids. core::Error naming the store when it cannot be opened.
std::vector<int64_t> store_inference_results(const std::string& store_path, const std::string& project,
                                             const std::vector<InferencePointResult>& results);

// An inference run read back from a store.
struct ModelInference {
  int64_t run_id = 0;
  std::string project;
  std::string model;                // the label measured
  nlohmann::json model_config;      // null for a preset measured by name
  std::vector<InferencePointResult> points;
};
// Every finished inference run of `project` ("" : every project), newest first.
std::vector<ModelInference> inference_runs(store::Store& store, const std::string& project = "");
// The newest inference run that measured `model_config` (compared without "name"); run_id 0
// when there is none.
ModelInference inference_of_model(store::Store& store, const nlohmann::json& model_config);
bool is_inference_run_config(const std::string& config_json);

// Decode cost against depth, fitted over a model's points at one batch size: ms per token =
// intercept + slope x L (least squares over the measured L), and the ratio of the last point's
// to the first's. Flat in L (the GSS recurrence) means a slope near 0 and a ratio near 1; a
// KV cache gives a slope > 0. n < 2: not fitted.
struct DecodeSlope {
  int n = 0;
  double intercept_ms = 0.0;
  double slope_ms_per_1k = 0.0;  // ms per token per 1,024 tokens of context
  double ratio_last_first = 0.0;
  int64_t first_len = 0, last_len = 0;
};
DecodeSlope decode_slope(const std::vector<InferencePointResult>& points, const std::string& model, int64_t batch);

}  // namespace pha::store
