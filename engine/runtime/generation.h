// Text generation from a stored run: rebuilds the model from the run's checkpoint, encodes the
// prompt with the run's tokenizer and samples a continuation. Plain C++ (the GUI's Generate
// dock and `pha generate` both call it); torch stays inside the trainer.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/trainer.h"

namespace pha::runtime {

struct GenerationResult {
  std::string text;          // the continuation only (not the prompt)
  std::string checkpoint;    // the checkpoint used
  std::int64_t step = 0;     // its training step
  int tokens = 0;            // tokens generated
  double seconds = 0.0;      // wall time of sampling (model load excluded)
};

// checkpoint empty: the run's last checkpoint. Throws core::Error naming the store or the
// checkpoint when the run does not exist, has no checkpoint, or was trained on a task.
GenerationResult generate_from_run(const std::string& store_path, std::int64_t run_id, const std::string& prompt,
                                   int max_new_tokens, const SamplingSettings& sampling,
                                   const std::string& checkpoint = {});

}  // namespace pha::runtime
