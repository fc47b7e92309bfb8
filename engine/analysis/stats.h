// Statistics of replicas: the summary of a set of per-seed values (mean, sample standard
// deviation, Student-t 95% interval, min, max) and the Welch interval of a difference of two
// means. Plain C++, no torch, no Qt. Method and verdict rules: docs/report.md.
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

// The 95% interval of mean(a) - mean(b) from two summaries, Welch's unequal-variance t interval
// with the Welch-Satterthwaite degrees of freedom. Valid when both have n >= 2; when both
// standard deviations are 0 the interval is the point difference.
struct Difference {
  bool valid = false;  // a.n >= 2 and b.n >= 2
  double mean = 0.0;   // mean(a) - mean(b)
  double low = 0.0;
  double high = 0.0;
  double df = 0.0;     // Welch-Satterthwaite degrees of freedom (0 when both stds are 0)
};

Difference welch_difference(const Stats& a, const Stats& b);

}  // namespace pha::analysis
