// The inference benchmark's measurement, once, in this process: a model built from its config
// (weights from a checkpoint when one is named), a random prompt of L tokens prefilled into a
// DecodeState reserved for L + generate tokens, then `generate` greedy tokens one step at a
// time. Times the prefill (to the first token), every decode step, and reads the state's
// allocated bytes from its tensors. Plain header (no torch): runtime/inference_bench.h's worker
// calls it; the method is docs/performance.md, "Inference".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model_config.h"

namespace pha::nn {

struct DecodeBenchSpec {
  model::ModelConfig model;
  std::string checkpoint;  // "": the model as its seed initialises it (timing does not depend on weights)
  int64_t prompt = 1024;   // L: prompt tokens (the depth at which decode is timed)
  int64_t batch = 1;
  int generate = 256;      // tokens generated after the prompt (the first comes from the prefill)
  int decode_timed = 32;   // decode steps whose median is "ms per token at depth L"
  int decode_warmup = 2;   // untimed decode steps before them
  uint64_t seed = 1234;    // prompt tokens and initial weights
};

struct DecodeBenchResult {
  int64_t n_params = 0;
  int64_t weights_bytes = 0;        // parameters and buffers, as allocated
  double prefill_s = 0.0;           // prompt in, first token out (greedy argmax included)
  std::vector<double> step_s;       // every decode step after the first token (generate - 1)
  double decode_step_s = 0.0;       // median of the timed steps (depth L + warmup .. L + warmup + timed)
  double e2e_s = 0.0;               // prefill_s + every step: L in, `generate` out
  int64_t kv_bytes = 0;             // the KV caches' tensors after generation (allocated capacity)
  int64_t gss_state_bytes = 0;      // the GSS states' tensors after generation
  std::string dtype = "float32";
  std::string decode_path;          // which code ran, in words
};

// Throws core::Error for a bad spec or an unreadable checkpoint.
DecodeBenchResult bench_decode(const DecodeBenchSpec& spec);

}  // namespace pha::nn
