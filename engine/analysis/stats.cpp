// Replica statistics: summaries, Student's t distribution (through the regularized incomplete
// beta function, continued fraction as in Numerical Recipes 6.4), Welch's and the paired
// interval with their p-values, Wilson's interval and the power of a t test.
#include "analysis/stats.h"
#include "core/numbers.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pha::analysis {

namespace {

using core::kNaN;

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

double two_sided_p(double t, double df) {
  if (std::isnan(t) || !(df > 0.0)) return kNaN;
  if (std::isinf(t)) return 0.0;
  // P(|T| >= |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2): no cancellation for large |t|.
  return incomplete_beta(0.5 * df, 0.5, df / (df + t * t));
}

double two_sided_normal_p(double z) { return std::isnan(z) ? kNaN : std::erfc(std::fabs(z) / std::sqrt(2.0)); }

namespace {

// p = 0 for an exact nonzero difference, 1 for an exact zero (no spread, nothing to test).
double exact_p(double mean) { return mean != 0.0 ? 0.0 : 1.0; }

// The standard normal quantile (bisection on erfc, as the t quantile).
double normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) return kNaN;
  double lo = -40.0, hi = 40.0;
  for (int i = 0; i < 200 && hi - lo > 1e-14; ++i) {
    const double mid = 0.5 * (lo + hi);
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

Difference welch_difference(const Stats& a, const Stats& b) {
  Difference d;
  d.mean = a.mean - b.mean;
  if (a.n < 2 || b.n < 2) {
    d.low = d.high = d.se = d.p = kNaN;
    return d;
  }
  d.valid = true;
  const double va = a.std * a.std / static_cast<double>(a.n), vb = b.std * b.std / static_cast<double>(b.n);
  const double se2 = va + vb;
  d.se = std::sqrt(se2);
  if (se2 == 0.0) {  // no spread on either side: the difference is exact
    d.low = d.high = d.mean;
    d.p = exact_p(d.mean);
    return d;
  }
  d.df = se2 * se2 / (va * va / static_cast<double>(a.n - 1) + vb * vb / static_cast<double>(b.n - 1));
  const double half = student_t_quantile(0.975, d.df) * d.se;
  d.low = d.mean - half;
  d.high = d.mean + half;
  d.p = two_sided_p(d.mean / d.se, d.df);
  return d;
}

Difference paired_difference(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> diff;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    if (std::isfinite(a[i]) && std::isfinite(b[i])) diff.push_back(a[i] - b[i]);
  const Stats s = summarize(diff);
  Difference d;
  d.n = s.n;
  d.mean = s.mean;
  if (s.n < 2) {
    d.low = d.high = d.se = d.p = d.sd = kNaN;
    return d;
  }
  d.valid = true;
  d.sd = s.std;
  d.se = s.std / std::sqrt(static_cast<double>(s.n));
  d.low = s.ci_low;
  d.high = s.ci_high;
  if (d.se == 0.0) {
    d.p = exact_p(d.mean);
    return d;
  }
  d.df = static_cast<double>(s.n - 1);
  d.p = two_sided_p(d.mean / d.se, d.df);
  return d;
}

double one_sample_p(const Stats& s) {
  if (s.n < 2) return kNaN;
  if (s.std == 0.0) return exact_p(s.mean);
  return two_sided_p(s.mean / (s.std / std::sqrt(static_cast<double>(s.n))), static_cast<double>(s.n - 1));
}

Proportion wilson_interval(std::size_t k, std::size_t n, double alpha) {
  Proportion w;
  w.k = k;
  w.n = n;
  if (n == 0 || k > n) {
    w.low = w.high = kNaN;
    return w;
  }
  const double z = normal_quantile(1.0 - alpha / 2.0), z2 = z * z, nn = static_cast<double>(n);
  const double phat = static_cast<double>(k) / nn;
  const double centre = (phat + z2 / (2.0 * nn)) / (1.0 + z2 / nn);
  const double half = z / (1.0 + z2 / nn) * std::sqrt(phat * (1.0 - phat) / nn + z2 / (4.0 * nn * nn));
  w.low = k == 0 ? 0.0 : std::max(0.0, centre - half);  // exact ends: the formula rounds near them
  w.high = k == n ? 1.0 : std::min(1.0, centre + half);
  return w;
}

double score_test_p(std::size_t k, std::size_t n) {
  if (n == 0 || k > n) return kNaN;
  const double nn = static_cast<double>(n);
  return two_sided_normal_p((static_cast<double>(k) - nn / 2.0) / (std::sqrt(nn) / 2.0));
}

double minimum_detectable_effect(double se, double df, double level, double power) {
  if (!(se >= 0.0) || !(level > 0.0 && level < 1.0) || !(power > 0.0 && power < 1.0)) return kNaN;
  if (se == 0.0) return 0.0;
  if (!(df > 0.0)) return kNaN;
  return (student_t_quantile(1.0 - level / 2.0, df) + student_t_quantile(power, df)) * se;
}

void se_and_df(const TestSpread& spread, std::size_t n, double& se, double& df) {
  const double nn = static_cast<double>(n), a2 = spread.sd_a * spread.sd_a, b2 = spread.sd_b * spread.sd_b;
  switch (spread.test) {
    case TTest::Paired:
      se = spread.sd_a / std::sqrt(nn);
      df = nn - 1.0;
      return;
    case TTest::Pooled:
      se = spread.sd_a * std::sqrt(2.0 / nn);
      df = static_cast<double>(spread.groups) * (nn - 1.0);
      return;
    case TTest::Welch:
      se = std::sqrt((a2 + b2) / nn);
      // Welch-Satterthwaite with n on both sides: (n - 1) (sa^2 + sb^2)^2 / (sa^4 + sb^4).
      df = a2 + b2 == 0.0 ? 0.0 : (nn - 1.0) * (a2 + b2) * (a2 + b2) / (a2 * a2 + b2 * b2);
      return;
  }
}

std::size_t seeds_needed(const TestSpread& spread, double effect, double level, double power, std::size_t max_n) {
  if (!std::isfinite(effect) || effect == 0.0 || max_n < 3) return 0;
  auto detects = [&](std::size_t n) {
    double se = 0.0, df = 0.0;
    se_and_df(spread, n, se, df);
    const double mde = minimum_detectable_effect(se, df, level, power);
    return std::isfinite(mde) && mde <= std::fabs(effect);
  };
  if (!detects(max_n)) return 0;
  // MDE(n) falls with n (the standard error falls, the degrees of freedom grow): bisect.
  std::size_t lo = 2, hi = max_n;  // detects(hi); lo: below the range or not detecting
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    (detects(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace pha::analysis
