// Successive halving and Hyperband rungs (schedule.h): integer arithmetic for the trial counts,
// the last rung's resource exactly the budget's max.
#include "search/schedule.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace pha::search {

namespace {

double rounded(const Budget& b, double resource) {
  if (b.resource == "flops") return resource;
  return std::max(1.0, std::round(resource));
}

int64_t power(int64_t base, int exponent) {
  int64_t p = 1;
  for (int i = 0; i < exponent; ++i) p *= base;
  return p;
}

// `trials` start at `first` and go through `count` rungs; the last rung's resource is max.
Bracket bracket(const Budget& b, int s, int trials, double first, int count) {
  Bracket out;
  out.index = s;
  out.trials = trials;
  int n = trials;
  double resource = first;
  for (int k = 0; k < count; ++k) {
    out.rungs.push_back({k, rounded(b, k + 1 == count ? b.max : resource), n});
    n = std::max(1, n / b.eta);
    resource *= b.eta;
  }
  return out;
}

}  // namespace

std::vector<Bracket> hyperband_brackets(const Budget& b, int sh_trials) {
  if (!(b.min > 0) || !(b.max >= b.min) || b.eta < 2)
    throw core::Error("search.budget", "needs min > 0, max >= min and eta >= 2; got min " + std::to_string(b.min) + ", max " +
                                     std::to_string(b.max) + ", eta " + std::to_string(b.eta));
  const int k_max = max_rung(b);
  if (b.brackets < 1 || b.brackets > k_max + 1)
    throw core::Error("search.budget.brackets", std::to_string(b.brackets) + " is out of range; allowed: 1 to " + std::to_string(k_max + 1));
  if (b.brackets == 1) {
    if (sh_trials < 1) throw core::Error("search.sampler.trials", std::to_string(sh_trials) + " trials; allowed: 1 or more");
    return {bracket(b, k_max, sh_trials, b.min, k_max + 1)};
  }
  std::vector<Bracket> out;
  for (int s = k_max; s > k_max - b.brackets; --s) {
    if (std::pow(static_cast<double>(b.eta), s) * (k_max + 1) / (s + 1) > static_cast<double>(kMaxTrials))
      throw core::Error("search.budget.brackets", "bracket s = " + std::to_string(s) + " would start more than " +
                                                std::to_string(kMaxTrials) + " trials; allowed: fewer brackets, or a smaller max / min");
    const int64_t top = (k_max + 1) * power(b.eta, s);
    const auto n = static_cast<int>((top + s) / (s + 1));  // ceil(top / (s + 1))
    out.push_back(bracket(b, s, n, b.max / static_cast<double>(power(b.eta, s)), s + 1));
  }
  return out;
}

}  // namespace pha::search
