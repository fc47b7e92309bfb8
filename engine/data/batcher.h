// Batches from a tokenized split. Training: B random contiguous windows of T+1 tokens
// (inputs = first T, targets = last T), the window starts drawn from (seed, step) alone, so a
// resumed run sees the same batches. Evaluation: the split cut into consecutive
// non-overlapping windows in order; the last window is padded (targets kIgnore) so every token
// is predicted exactly once. Splits are separate arrays, so windows never mix splits.
#pragma once

#include <cstdint>

#include "data/batch.h"
#include "data/internal/token_array.h"

namespace pha::data {

class TrainBatcher {
 public:
  // Needs at least T + 1 tokens.
  TrainBatcher(TokenArray tokens, int B, int T, uint64_t seed);
  Batch batch(uint64_t step) const;

 private:
  TokenArray tokens_;
  int B_, T_;
  uint64_t seed_;
};

class EvalBatcher {
 public:
  // pad_id fills the inputs after the end of the split in the last window.
  EvalBatcher(TokenArray tokens, int B, int T, int32_t pad_id = 0);
  size_t num_windows() const { return windows_; }
  size_t num_batches() const { return (windows_ + static_cast<size_t>(B_) - 1) / static_cast<size_t>(B_); }
  // Batch i (0 <= i < num_batches()); the last one may have fewer than B rows.
  Batch batch(size_t i) const;

 private:
  TokenArray tokens_;
  int B_, T_;
  int32_t pad_id_;
  size_t windows_;
};

}  // namespace pha::data
