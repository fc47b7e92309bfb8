#include "data/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "core/error.h"
#include "data/batch.h"

namespace pha::data {

namespace {
void check_sizes(const std::vector<int32_t>& p, const std::vector<int32_t>& t, int T) {
  if (p.size() != t.size())
    throw core::Error("metrics", "predictions (" + std::to_string(p.size()) + ") and targets (" + std::to_string(t.size()) +
                               ") differ in size");
  if (T <= 0 || t.size() % static_cast<size_t>(T) != 0)
    throw core::Error("metrics", "size " + std::to_string(t.size()) + " is not a multiple of T = " + std::to_string(T));
}
}  // namespace

AccuracyReport accuracy(const std::vector<int32_t>& predictions, const std::vector<int32_t>& targets, int T) {
  check_sizes(predictions, targets, T);
  AccuracyReport r;
  int64_t correct = 0, exact = 0;
  std::map<int32_t, std::pair<int64_t, int64_t>> per_class;  // class -> (correct, total)
  std::vector<double> seq_correct, seq_counted;               // per sequence with counted positions
  const size_t n = targets.size() / static_cast<size_t>(T);
  for (size_t s = 0; s < n; ++s) {
    bool any = false, all = true;
    const int64_t correct_before = correct, counted_before = r.counted;
    for (size_t t = s * static_cast<size_t>(T); t < (s + 1) * static_cast<size_t>(T); ++t) {
      if (targets[t] == kIgnore) continue;
      any = true;
      const bool ok = predictions[t] == targets[t];
      correct += ok;
      all = all && ok;
      auto& c = per_class[targets[t]];
      c.first += ok;
      c.second += 1;
      ++r.counted;
    }
    if (any) {
      ++r.sequences;
      exact += all;
      seq_correct.push_back(static_cast<double>(correct - correct_before));
      seq_counted.push_back(static_cast<double>(r.counted - counted_before));
    }
  }
  r.micro_se = ratio_standard_error(seq_correct, seq_counted);
  if (r.counted > 0) r.micro = static_cast<double>(correct) / static_cast<double>(r.counted);
  if (r.sequences > 0) r.exact_match = static_cast<double>(exact) / static_cast<double>(r.sequences);
  double sum = 0;
  for (const auto& [cls, c] : per_class) sum += static_cast<double>(c.first) / static_cast<double>(c.second);
  r.classes = static_cast<int64_t>(per_class.size());
  if (!per_class.empty()) r.macro = sum / static_cast<double>(per_class.size());
  return r;
}

double ratio_standard_error(const std::vector<double>& num, const std::vector<double>& den) {
  const size_t n = std::min(num.size(), den.size());
  if (n < 2) return std::numeric_limits<double>::quiet_NaN();
  double sn = 0, sd = 0;
  for (size_t i = 0; i < n; ++i) sn += num[i], sd += den[i];
  if (sd == 0) return std::numeric_limits<double>::quiet_NaN();
  const double ratio = sn / sd, mean_den = sd / static_cast<double>(n);
  double ss = 0;
  for (size_t i = 0; i < n; ++i) ss += (num[i] - ratio * den[i]) * (num[i] - ratio * den[i]);
  return std::sqrt(ss / (static_cast<double>(n) * static_cast<double>(n - 1))) / mean_den;
}

double micro_accuracy(const std::vector<int32_t>& p, const std::vector<int32_t>& t) {
  return accuracy(p, t, t.empty() ? 1 : static_cast<int>(t.size())).micro;
}

double macro_accuracy(const std::vector<int32_t>& p, const std::vector<int32_t>& t) {
  return accuracy(p, t, t.empty() ? 1 : static_cast<int>(t.size())).macro;
}

double exact_match(const std::vector<int32_t>& p, const std::vector<int32_t>& t, int T) {
  return accuracy(p, t, T).exact_match;
}

}  // namespace pha::data
