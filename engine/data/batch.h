// The plain batch every data path hands to the trainer: B sequences of T tokens, row-major.
// targets[b*T + t] is the id to predict at position t, or kIgnore (-100) where nothing counts.
#pragma once

#include <cstdint>
#include <vector>

namespace pha::data {

constexpr int32_t kIgnore = -100;

struct Batch {
  int B = 0;
  int T = 0;
  std::vector<int32_t> inputs;   // (B, T)
  std::vector<int32_t> targets;  // (B, T), kIgnore where not counted
};

}  // namespace pha::data
