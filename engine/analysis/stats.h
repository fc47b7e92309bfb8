// Statistics of replicas: the summary of a set of per-seed values (mean, sample standard
// deviation, Student-t 95% interval, min, max), the difference of two groups' means (Welch's
// unpaired interval, or the one-sample interval of per-seed differences when the seeds pair),
// two-sided p-values, Wilson's score interval of a success rate, and the power of a t test
// (minimum detectable effect, seeds needed). Plain C++, no torch, no Qt. Method and verdict
// rules: docs/report.md.
#pragma once

#include <cstddef>
#include <vector>

namespace pha::analysis {

// The summary of one metric over the replicas of one group. NaN values (a metric a run did not
// reach, or a NaN it recorded) are left out and counted in `nan`; every other field is over the
// n finite values. With n = 0 every number is NaN; with n = 1 std and the interval are NaN.
struct Stats {
  std::size_t n = 0;    // finite values
  std::size_t nan = 0;  // values left out (NaN or infinite)
  double mean = 0.0;
  double std = 0.0;     // sample standard deviation (divides by n - 1)
  double ci_low = 0.0;  // 95% interval of the mean, Student t with n - 1 degrees of freedom:
  double ci_high = 0.0; //   mean -+ t(0.975, n - 1) * std / sqrt(n); NaN when n < 2
  double min = 0.0;
  double max = 0.0;

  bool has_interval() const;  // n >= 2 (an interval exists)
};

// From n >= this many replicas a group's own interval is printed in tables (with n = 2 the
// t factor is 12.7: the interval is mostly a statement about having two seeds).
inline constexpr std::size_t kMinReplicasForShownInterval = 3;

Stats summarize(const std::vector<double>& values);

// The p-quantile of Student's t distribution with `df` degrees of freedom (df > 0, need not be
// an integer: Welch's df is not); p in (0, 1). Exact to ~1e-10 (bisection on the CDF, which is
// the regularized incomplete beta function).
double student_t_quantile(double p, double df);
// P(T <= t) for Student's t with df degrees of freedom.
double student_t_cdf(double t, double df);

// The two-sided p-value of a t statistic: P(|T| >= |t|) with df degrees of freedom. t = +-inf
// (an effect without spread) gives 0; NaN gives NaN.
double two_sided_p(double t, double df);
// P(|Z| >= |z|) for a standard normal Z.
double two_sided_normal_p(double z);

// The 95% interval of mean(a) - mean(b) and the two-sided t test of "no difference". Valid when
// both sides have n >= 2 (welch) or there are 2 or more pairs (paired); when there is no spread
// the interval is the point difference and p is 0 (1 when the difference is 0 too).
struct Difference {
  bool valid = false;  // welch: a.n >= 2 and b.n >= 2; paired: 2 or more finite pairs
  double mean = 0.0;   // mean(a) - mean(b)
  double low = 0.0;
  double high = 0.0;
  double df = 0.0;     // degrees of freedom (Welch-Satterthwaite, or pairs - 1; 0 when there is no spread)
  double se = 0.0;     // standard error of the difference
  double p = 0.0;      // two-sided p of the t test (NaN when not valid)
  std::size_t n = 0;   // paired: the pairs used
  double sd = 0.0;     // paired: the sample standard deviation of the differences
};

// Welch's unequal-variance t interval, with the Welch-Satterthwaite degrees of freedom.
Difference welch_difference(const Stats& a, const Stats& b);
// Paired by position: the one-sample t interval of a[i] - b[i] over the pairs where both are
// finite (df pairs - 1). a and b have the same length (one entry per seed).
Difference paired_difference(const std::vector<double>& a, const std::vector<double>& b);
// The one-sample t test of mean 0 for a summary (n >= 2): its two-sided p.
double one_sample_p(const Stats& s);

// Wilson's (1927) score interval of a success rate k/n at the two-sided level 1 - alpha (95%
// by default); both ends NaN when n = 0.
struct Proportion {
  std::size_t k = 0, n = 0;
  double low = 0.0, high = 0.0;
};
Proportion wilson_interval(std::size_t k, std::size_t n, double alpha = 0.05);
// The two-sided score test of "rate = 1/2" (z = (k - n/2) / (sqrt(n)/2)), the test the Wilson
// interval inverts: p < 0.05 exactly when the 95% Wilson interval excludes 1/2.
double score_test_p(std::size_t k, std::size_t n);

// Power of a two-sided t test at level `level` (e.g. alpha / m): the minimum detectable effect
// (t(1 - level/2, df) + t(power, df)) * se (Cohen 1988's normal approximation with t quantiles).
double minimum_detectable_effect(double se, double df, double level, double power);

// Which t test a comparison used, with the spreads it measured: the seeds per side needed to
// detect an effect are found with these spreads held fixed.
enum class TTest { Paired, Welch, Pooled };
struct TestSpread {
  TTest test = TTest::Welch;
  double sd_a = 0.0;   // paired: the standard deviation of the differences; pooled: the pooled sd
  double sd_b = 0.0;   // welch: the second side's sd
  std::size_t groups = 2;  // pooled: groups sharing the variance (df = groups * (n - 1))
};
// The standard error and degrees of freedom of the test with n seeds per side.
void se_and_df(const TestSpread& spread, std::size_t n, double& se, double& df);
// The smallest n in [3, max_n] with MDE(n) <= |effect|; 0 when none is (or the effect is 0).
std::size_t seeds_needed(const TestSpread& spread, double effect, double level, double power, std::size_t max_n = 1000);

}  // namespace pha::analysis
