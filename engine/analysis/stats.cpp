// Replica statistics: summaries, Student's t distribution (through the regularized incomplete
// beta function, continued fraction as in Numerical Recipes 6.4) and Welch's interval.
#include "analysis/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pha::analysis {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Continued fraction of the incomplete beta function (modified Lentz).
double beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  const double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0, d = 1.0 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < 1e-15) break;
  }
  return h;
}

// I_x(a, b), the regularized incomplete beta function.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                                b * std::log1p(-x));
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_fraction(a, b, x) / a;
  return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

}  // namespace

bool Stats::has_interval() const { return n >= 2; }

double student_t_cdf(double t, double df) {
  const double tail = 0.5 * incomplete_beta(0.5 * df, 0.5, df / (df + t * t));
  return t >= 0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (!(p > 0.0 && p < 1.0) || !(df > 0.0)) return kNaN;
  if (p < 0.5) return -student_t_quantile(1.0 - p, df);
  double lo = 0.0, hi = 1.0;
  while (student_t_cdf(hi, df) < p && hi < 1e12) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, hi); ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

Stats summarize(const std::vector<double>& values) {
  Stats s;
  std::vector<double> v;
  for (double x : values) {
    if (std::isfinite(x)) {
      v.push_back(x);
    } else {
      ++s.nan;
    }
  }
  s.n = v.size();
  if (v.empty()) {
    s.mean = s.std = s.ci_low = s.ci_high = s.min = s.max = kNaN;
    return s;
  }
  double sum = 0.0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(s.n);
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  if (s.n < 2) {
    s.std = s.ci_low = s.ci_high = kNaN;
    return s;
  }
  if (s.min == s.max) {  // identical values: exactly no spread (the sum would round: 3 x 0.7 / 3)
    s.mean = s.min;
    s.std = 0.0;
    s.ci_low = s.ci_high = s.mean;
    return s;
  }
  double ss = 0.0;  // two-pass: no cancellation for values far from 0 (perplexities)
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(ss / static_cast<double>(s.n - 1));
  const double half = student_t_quantile(0.975, static_cast<double>(s.n - 1)) * s.std / std::sqrt(static_cast<double>(s.n));
  s.ci_low = s.mean - half;
  s.ci_high = s.mean + half;
  return s;
}

Difference welch_difference(const Stats& a, const Stats& b) {
  Difference d;
  d.mean = a.mean - b.mean;
  if (a.n < 2 || b.n < 2) {
    d.low = d.high = kNaN;
    return d;
  }
  d.valid = true;
  const double va = a.std * a.std / static_cast<double>(a.n), vb = b.std * b.std / static_cast<double>(b.n);
  const double se2 = va + vb;
  if (se2 == 0.0) {  // no spread on either side: the difference is exact
    d.low = d.high = d.mean;
    return d;
  }
  d.df = se2 * se2 / (va * va / static_cast<double>(a.n - 1) + vb * vb / static_cast<double>(b.n - 1));
  const double half = student_t_quantile(0.975, d.df) * std::sqrt(se2);
  d.low = d.mean - half;
  d.high = d.mean + half;
  return d;
}

}  // namespace pha::analysis
