// The figures an evaluation produces (runtime/evaluator.h measures them; run_eval.h returns
// them to `pha eval` and, later, the window). Plain values: no torch, no trainer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/metrics.h"

namespace pha::runtime {

// One measured point: a text split or a task set at one T.
struct EvalPoint {
  std::string set;        // "valid", "test", a held-out set name, "length", "<task>_bits_p0.3", ...
  std::string kind;       // "text", "task", "length" or "ood"
  int64_t seq_len = 0;    // T
  double bits_p = 0.0;    // OOD sweep only
  // text
  double loss = 0.0, perplexity = 0.0, bpb = 0.0;
  double loss_se = 0.0, perplexity_se = 0.0, bpb_se = 0.0;  // over the windows (evaluator.h)
  int64_t tokens = 0, bytes = 0;
  // tasks
  data::AccuracyReport accuracy;
};

struct EvalReport {
  std::vector<EvalPoint> points;        // in plan order: splits x lengths, sets, length, OOD
  std::vector<std::string> skipped;     // points that could not be measured, with the reason
};

}  // namespace pha::runtime
