// Holm's step-down adjustment and Dunnett's many-to-one comparisons (Monte Carlo of the
// multivariate t with a seeded generator of our own, so the draws do not depend on the
// standard library's distributions).
#include "analysis/internal/multiplicity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "analysis/stats.h"
#include "core/numbers.h"

namespace pha::analysis {

namespace {

using core::kNaN;
constexpr double kPi = 3.14159265358979323846;

// splitmix64 (Steele, Lea and Flood 2014): small, fast, and the same on every platform.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // In (0, 1): 53 random bits, never 0 (log and the gamma's power need that).
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  // Box-Muller, both values used.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(uniform())), a = 2.0 * kPi * uniform();
    spare_ = r * std::sin(a);
    has_spare_ = true;
    return r * std::cos(a);
  }
  // Gamma(shape, 1), Marsaglia and Tsang (2000); shape < 1 through Gamma(shape + 1) U^(1/shape).
  double gamma(double shape) {
    if (shape < 1.0) return gamma(shape + 1.0) * std::pow(uniform(), 1.0 / shape);
    const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      double x = 0.0, v = 0.0;
      do {
        x = normal();
        v = 1.0 + c * x;
      } while (v <= 0.0);
      v = v * v * v;
      const double u = uniform();
      if (u < 1.0 - 0.0331 * x * x * x * x || std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
    }
  }

 private:
  uint64_t state_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

}  // namespace

std::vector<double> holm_adjust(const std::vector<double>& p) {
  std::vector<size_t> order;
  for (size_t i = 0; i < p.size(); ++i)
    if (std::isfinite(p[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> out(p.size(), kNaN);
  const double m = static_cast<double>(order.size());
  double running = 0.0;  // step-down: an adjusted p never falls below an earlier one
  for (size_t j = 0; j < order.size(); ++j) {
    running = std::max(running, std::min(1.0, (m - static_cast<double>(j)) * p[order[j]]));
    out[order[j]] = running;
  }
  return out;
}

std::vector<double> bonferroni_adjust(const std::vector<double>& p) {
  const double m = static_cast<double>(std::count_if(p.begin(), p.end(), [](double v) { return std::isfinite(v); }));
  std::vector<double> out(p.size(), kNaN);
  for (size_t i = 0; i < p.size(); ++i)
    if (std::isfinite(p[i])) out[i] = std::min(1.0, m * p[i]);
  return out;
}

std::vector<double> dunnett_adjust(const std::vector<double>& abs_t, const std::vector<std::size_t>& n_treatment,
                                   std::size_t n_control, double df, std::size_t draws, uint64_t seed) {
  const size_t k = abs_t.size();
  std::vector<double> out(k, kNaN);
  if (k == 0 || n_treatment.size() != k || n_control == 0 || !(df > 0.0) || draws == 0) return out;
  Random rng(seed);
  const double n0 = static_cast<double>(n_control);
  std::vector<double> scale(k);
  for (size_t i = 0; i < k; ++i) scale[i] = std::sqrt(1.0 / static_cast<double>(n_treatment[i]) + 1.0 / n0);
  std::vector<double> maxima(draws);
  for (size_t d = 0; d < draws; ++d) {
    const double s = std::sqrt(2.0 * rng.gamma(0.5 * df) / df);  // S^2 ~ chi^2(df) / df
    const double m0 = rng.normal() / std::sqrt(n0);
    double most = 0.0;
    for (size_t i = 0; i < k; ++i) {
      const double mi = rng.normal() / std::sqrt(static_cast<double>(n_treatment[i]));
      most = std::max(most, std::fabs((mi - m0) / (s * scale[i])));
    }
    maxima[d] = most;
  }
  std::sort(maxima.begin(), maxima.end());
  for (size_t i = 0; i < k; ++i) {
    if (std::isnan(abs_t[i])) continue;
    const double raw = two_sided_p(abs_t[i], df);
    const double share = static_cast<double>(maxima.end() - std::lower_bound(maxima.begin(), maxima.end(), abs_t[i])) /
                         static_cast<double>(draws);
    const double sidak = 1.0 - std::pow(1.0 - raw, static_cast<double>(k));
    out[i] = std::clamp(share, raw, std::max(raw, sidak));
  }
  return out;
}

DunnettResult dunnett(const std::vector<double>& control, const std::vector<std::vector<double>>& treatments,
                      std::size_t draws, uint64_t seed) {
  DunnettResult r;
  std::vector<Stats> groups = {summarize(control)};
  for (const auto& t : treatments) groups.push_back(summarize(t));
  double ss = 0.0, n_all = 0.0;
  for (const Stats& g : groups) {
    if (g.n < 2) return r;
    ss += g.std * g.std * static_cast<double>(g.n - 1);
    n_all += static_cast<double>(g.n);
  }
  r.valid = true;
  r.df = n_all - static_cast<double>(groups.size());
  r.pooled_sd = std::sqrt(ss / r.df);
  const double q = student_t_quantile(0.975, r.df);
  std::vector<double> abs_t;
  std::vector<std::size_t> n_treatment;
  for (size_t i = 1; i < groups.size(); ++i) {
    const double effect = groups[i].mean - groups[0].mean;
    const double se = r.pooled_sd * std::sqrt(1.0 / static_cast<double>(groups[i].n) + 1.0 / static_cast<double>(groups[0].n));
    r.effect.push_back(effect);
    r.se.push_back(se);
    r.low.push_back(se == 0.0 ? effect : effect - q * se);
    r.high.push_back(se == 0.0 ? effect : effect + q * se);
    // No spread anywhere: an exact difference (p 0), or none (p 1).
    abs_t.push_back(se == 0.0 ? (effect == 0.0 ? 0.0 : INFINITY) : std::fabs(effect / se));
    r.p.push_back(se == 0.0 ? (effect == 0.0 ? 1.0 : 0.0) : two_sided_p(abs_t.back(), r.df));
    n_treatment.push_back(groups[i].n);
  }
  r.p_adjusted = dunnett_adjust(abs_t, n_treatment, groups[0].n, r.df, draws, seed);
  for (size_t i = 0; i < r.p.size(); ++i)
    if (r.p[i] == 1.0 || r.p[i] == 0.0) r.p_adjusted[i] = r.p[i];
  return r;
}

}  // namespace pha::analysis
