// Accuracy metrics on plain vectors of predictions and targets (row-major (N, T)); positions
// whose target is kIgnore (-100) do not count.
#pragma once

#include <cstdint>
#include <vector>

namespace pha::data {

struct AccuracyReport {
  double micro = 0.0;        // correct / counted positions
  double macro = 0.0;        // mean over target classes of per-class accuracy (MAD)
  double exact_match = 0.0;  // sequences with every counted position right / sequences with any counted
  int64_t counted = 0;
  int64_t sequences = 0;     // sequences with at least one counted position
  int64_t classes = 0;
};

// T: sequence length (predictions.size() must be a multiple of it). NaN-free: an empty set
// gives zeros with counted == 0.
AccuracyReport accuracy(const std::vector<int32_t>& predictions, const std::vector<int32_t>& targets, int T);

double micro_accuracy(const std::vector<int32_t>& predictions, const std::vector<int32_t>& targets);
double macro_accuracy(const std::vector<int32_t>& predictions, const std::vector<int32_t>& targets);
double exact_match(const std::vector<int32_t>& predictions, const std::vector<int32_t>& targets, int T);

}  // namespace pha::data
