// Evaluation on top of a Trainer (no torch here): perplexity and bits per byte on a text split,
// micro / macro accuracy and exact match on a task set, and the length-generalisation and OOD
// sweeps (accuracy against T, against the input Bernoulli p).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/metrics.h"
#include "data/tasks/task.h"
#include "data/text_dataset.h"
#include "runtime/trainer.h"

namespace pha::runtime {

struct TextEvalResult {
  double loss = 0.0;        // mean NLL per predicted token (nats)
  double perplexity = 0.0;  // exp(loss), for this tokenizer only
  double bpb = 0.0;         // bits per byte of text predicted (tokenizer independent)
  int64_t tokens = 0;       // tokens predicted
  int64_t bytes = 0;        // text bytes those tokens stand for
};

// Consecutive windows of T tokens from the start of `split`, B per forward pass, until
// max_tokens tokens are predicted (0: the whole split, every token predicted once).
TextEvalResult evaluate_text(Trainer& trainer, const data::TokenArray& split, const std::vector<int32_t>& token_bytes,
                             int B, int T, int64_t max_tokens);

// Examples 0..n-1 of the task (n capped at its num_examples), B per forward pass.
data::AccuracyReport evaluate_task(Trainer& trainer, const data::TaskGenerator& task, int64_t n, int B);

struct SweepPoint {
  std::string set;      // e.g. "mqar_T100" or "needle_bits_p0.3"
  int64_t seq_len = 0;
  double bits_p = 0.0;  // OOD sweep only
  data::AccuracyReport accuracy;
};

// tasks-spec §4: the training task re-made at T in {50, 75, 100, 150, 200, 400} (1000 examples
// each, test seed) / with Bernoulli p in {0.1, 0.3, 0.7, 0.9}.
std::vector<SweepPoint> length_sweep(Trainer& trainer, const nlohmann::json& train_task, int64_t n, int B);
std::vector<SweepPoint> ood_sweep(Trainer& trainer, const nlohmann::json& train_task, int64_t n, int B);

}  // namespace pha::runtime
