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
  // Standard error of `micro` over the sequences (a ratio estimator: positions of one sequence
  // are not independent); NaN with fewer than 2 sequences.
  double micro_se = 0.0;
};

// The standard error of R = sum(num) / sum(den) over n units (sequences, windows): the ratio
// estimator's sqrt(sum((num_i - R den_i)^2) / (n (n - 1))) / mean(den) (Cochran 1977, 6.3).
// NaN for fewer than 2 units or a zero denominator.
double ratio_standard_error(const std::vector<double>& num, const std::vector<double>& den);

// T: sequence length (predictions.size() must be a multiple of it). NaN-free: an empty set
// gives zeros with counted == 0.
AccuracyReport accuracy(const std::vector<int32_t>& predictions, const std::vector<int32_t>& targets, int T);

double micro_accuracy(const std::vector<int32_t>& predictions, const std::vector<int32_t>& targets);
double macro_accuracy(const std::vector<int32_t>& predictions, const std::vector<int32_t>& targets);
double exact_match(const std::vector<int32_t>& predictions, const std::vector<int32_t>& targets, int T);

}  // namespace pha::data
