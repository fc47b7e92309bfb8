#include "data/batcher.h"

#include <string>

#include "core/error.h"
#include "data/rng.h"

namespace pha::data {

TrainBatcher::TrainBatcher(TokenArray tokens, int B, int T, uint64_t seed)
    : tokens_(std::move(tokens)), B_(B), T_(T), seed_(seed) {
  if (B <= 0) throw core::Error("train.batch_size", "must be positive");
  if (T <= 0) throw core::Error("model.seq_len", "must be positive");
  if (tokens_.size() < static_cast<size_t>(T) + 1)
    throw core::Error("data", "the training split has " + std::to_string(tokens_.size()) + " tokens, fewer than seq_len + 1 = " +
                            std::to_string(T + 1));
}

Batch TrainBatcher::batch(uint64_t step) const {
  Batch b;
  b.B = B_;
  b.T = T_;
  const size_t T = static_cast<size_t>(T_);
  b.inputs.resize(static_cast<size_t>(B_) * T);
  b.targets.resize(static_cast<size_t>(B_) * T);
  Rng rng(derive_seed(seed_, step));
  const uint64_t starts = tokens_.size() - T;  // window [s, s + T] must fit
  for (int i = 0; i < B_; ++i) {
    const size_t s = rng.below(starts);
    tokens_.copy(s, T, b.inputs.data() + static_cast<size_t>(i) * T);
    tokens_.copy(s + 1, T, b.targets.data() + static_cast<size_t>(i) * T);
  }
  return b;
}

EvalBatcher::EvalBatcher(TokenArray tokens, int B, int T, int32_t pad_id)
    : tokens_(std::move(tokens)), B_(B), T_(T), pad_id_(pad_id) {
  if (B <= 0) throw core::Error("eval.batch_size", "must be positive");
  if (T <= 0) throw core::Error("model.seq_len", "must be positive");
  if (tokens_.size() < 2) throw core::Error("data", "the evaluation split has fewer than 2 tokens");
  windows_ = (tokens_.size() - 1 + static_cast<size_t>(T) - 1) / static_cast<size_t>(T);
}

Batch EvalBatcher::batch(size_t i) const {
  if (i >= num_batches()) throw core::Error("eval", "batch " + std::to_string(i) + " out of range");
  const size_t first = i * static_cast<size_t>(B_);
  const size_t rows = std::min(static_cast<size_t>(B_), windows_ - first);
  const size_t T = static_cast<size_t>(T_);
  Batch b;
  b.B = static_cast<int>(rows);
  b.T = T_;
  b.inputs.assign(rows * T, pad_id_);
  b.targets.assign(rows * T, kIgnore);
  const size_t last_input = tokens_.size() - 1;  // inputs are positions 0..N-2
  for (size_t r = 0; r < rows; ++r) {
    const size_t s = (first + r) * T;
    const size_t n = std::min(T, last_input - s);
    tokens_.copy(s, n, b.inputs.data() + r * T);
    tokens_.copy(s + 1, n, b.targets.data() + r * T);
  }
  return b;
}

}  // namespace pha::data
