// Whether a scaling-law fit (analysis/scaling_fit.h) is identified by its data: the design (how
// many sizes, over how many decades of x), the parameters that end on a bound, the bootstrap
// intervals that reach a bound or span a wide factor, and leave-one-out predictions: the largest
// size predicted by a refit on the others (the test a scaling law is used for), and every size
// held out in turn (the worst reported). Plain C++, no torch, no Qt.
//
// Rules (IdentifyOptions holds the numbers; every raised rule is one sentence in `flags`):
//   - fewer than `min_sizes` (5) distinct x, or a span log10(x_max / x_min) below `min_decades`
//     (1.5): too few sizes or too narrow a range for three parameters (Chinchilla fits 9+ sizes
//     over 2+ decades; Porian et al. 2024 at least 5 over 1.5);
//   - E, A or alpha on its bound (PowerLawFit::*_on_bound): the data do not pin it;
//   - E's interval reaching 0 (its low end at E's lower bound): the saturation is not measured;
//   - alpha's interval wider than a factor `alpha_ratio` (2: high / low > 2), or reaching its
//     bounds (0 or 3): the exponent is not measured. By simulation (E = 1.5, A = 40, alpha = 0.3,
//     sizes log-spaced from 1e4, 2 seeds, Gaussian noise sigma = 0.01, 300 replicas, 40 data
//     sets): 6 sizes over 1.5 decades give a ratio of 1.19 (median; 90th percentile 1.28), 4
//     over 1 decade 1.58 (2.08), 4 over half a decade 2.87 (4.26);
//   - the largest size predicted by the refit without it off by more than `tolerance` (1%)
//     relative to its measured mean, or not predicted (fewer than 3 other sizes).
// In that simulation the largest size's leave-one-out error was within 1% in 36 of 40 data sets
// with 6 sizes over 1.5 decades (median |error| 0.54%), 23 of 40 with 4 over 1 decade.
// Every size held out in turn is reported (HeldOut per size, the worst by |relative error|),
// not flagged: the smallest sizes are often off the law (pre-asymptotic), which says less about
// an extrapolation to larger ones.
// Leave-one-out refits use the same method and options as the fit (FitOptions: bootstrap, seed,
// resampling); the largest size's refit also gives the bootstrap percentile interval of its
// prediction (the band of the refit at that x), the per-size refits are point fits only.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "analysis/scaling_fit.h"

namespace pha::analysis {

struct IdentifyOptions {
  std::size_t min_sizes = 5;  // fewer distinct x: flagged
  double min_decades = 1.5;   // a narrower span of log10 x: flagged
  double alpha_ratio = 2.0;   // alpha's interval high / low above this: flagged
  double tolerance = 0.01;    // the largest size's leave-one-out |relative error| goal
};

// One size held out: the fit on the other sizes' points, and its prediction at that size.
struct HeldOut {
  bool ok = false;      // the refit succeeded (it needs 3 other distinct x)
  std::string message;  // why there is no prediction (ok = false)
  double x = std::numeric_limits<double>::quiet_NaN();          // the size held out
  std::size_t n_points = 0;                                      // its points (seeds)
  double measured = std::numeric_limits<double>::quiet_NaN();   // mean y of its points
  double measured_sd = std::numeric_limits<double>::quiet_NaN(); // their sample std (NaN below 2)
  double predicted = std::numeric_limits<double>::quiet_NaN();  // the refit's L(x)
  Interval predicted_ci{};     // the refit's bootstrap interval at x (the largest size only)
  double rel_error = std::numeric_limits<double>::quiet_NaN();  // (predicted - measured) / measured
  bool within = false;         // |rel_error| <= tolerance
  PowerLawParams refit{};
};

struct Identifiability {
  bool checked = false;        // false: the fit failed, nothing to check
  std::size_t n_sizes = 0;     // distinct x fitted
  double x_min = 0.0, x_max = 0.0;
  double decades = 0.0;        // log10(x_max / x_min)
  bool few_sizes = false;      // n_sizes < min_sizes
  bool narrow_span = false;    // decades < min_decades
  bool E_ci_reaches_zero = false;
  bool alpha_ci_wide = false;  // high / low > alpha_ratio, or the interval reaches 0 or 3
  double alpha_ratio = std::numeric_limits<double>::quiet_NaN();  // alpha_ci high / low (NaN: none)
  double tolerance = 0.01;
  double level = 0.95;         // of the fit's intervals
  HeldOut largest;             // the largest size held out
  std::vector<HeldOut> each;   // every size held out in turn, ascending x
  std::size_t worst = 0;       // index into `each` of the largest |rel_error| among those ok
  std::vector<std::string> flags;  // the raised rules, in words, in the order of the header

  bool identified() const { return checked && flags.empty(); }
};

// The checks of `fit`, the fit of `points` with `options` (the same points and options: the
// leave-one-out refits reuse them). A fit that is not ok gives checked = false.
Identifiability identify_fit(const std::vector<ScalingPoint>& points, const PowerLawFit& fit,
                             const FitOptions& options, const IdentifyOptions& limits = {});

// "-1.23%" of a relative error; "-" for NaN.
std::string percent_text(double rel);

}  // namespace pha::analysis
