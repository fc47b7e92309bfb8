// Scaling-law fits: the saturating power law L(x) = E + A * x^(-alpha) through (x, loss) points
// (x = parameters N or training FLOPs C; each point one run, several seeds may share an x), its
// bootstrap intervals and band, where two families' fitted curves cross, and where two
// piecewise-linear learning curves cross. Plain C++, no torch, no Qt. Whether a fit is identified
// by its data (sizes, bounds, interval widths, leave-one-out): analysis/scaling_identify.h.
//
// Fit (fit_power_law). Minimised: the sum of squared residuals on y itself (not on log y),
//   SSE(E, A, alpha) = sum_i (y_i - E - A * x_i^(-alpha))^2,
// every point weighted alike (a size with three seeds counts three times), subject to
//   0 <= E <= max(0, min_i y_i),   A >= 0,   0 < alpha <= 3.
// Squared error on y, because the irreducible loss E is an additive offset and seed noise on a
// loss is taken as additive with a similar spread across x; a log-residual fit would weigh the
// flat large-x end, where E is read, differently from the small-x end. Method: variable
// projection. For fixed alpha the model is linear in (E, A), so the profile
//   S(alpha) = min over the box {0 <= E <= E_max, A >= 0} of SSE(E, A, alpha)
// is exact in closed form: the unconstrained least-squares line in f_i = (x_i/x_ref)^(-alpha) if it
// lies in the box, otherwise the best of the three edges (E = 0, E = E_max, A = 0; each a 1-D least
// squares clamped to its edge), which is the constrained optimum because the problem is a convex
// quadratic on a polygon. x_ref, the geometric mean of the points' x, only conditions the numbers
// (A = A_ref * x_ref^alpha). S is scanned on the grid alpha_k = 0.01 k, k = 1..300, and refined by
// Brent's method (parabolic steps with golden-section fallback) on [alpha_{k-1}, alpha_{k+1}]
// around the best grid point k (clamped to [1e-6, 3]; Brent's result is kept when its S is below
// the grid point's, and alpha = 1e-6 is also tried when k = 1); the grid guards against the local
// minima S can have. A parameter that ends on a bound is flagged (*_on_bound): the data do not pin it
// (e.g. E = 0 when the curve shows no saturation yet).
//
// Input rules. A point with a non-finite x or y is dropped and counted in `dropped` (residual NaN).
// The fit needs at least 3 distinct x (three parameters) and every x > 0; otherwise ok = false and
// `message` says why (no exception: the data, not the caller, are at fault). Invalid options throw
// core::Error naming the option.
//
// Bootstrap (n_boot replicas, default 1000; 0 = none). Each replica resamples the fitted points
// with replacement and is refitted by the same method; a replica that cannot be fitted (fewer
// than 3 distinct x in the resample) is counted in boot_failed and skipped. Schemes (Resample):
//   kPoints (default): case resampling, n draws from all n points, so how many seeds each size
//              has varies between replicas and a replica may miss a size;
//   kWithinX:  stratified by distinct x: at each x, as many draws as it has points, from its own
//              points. It keeps the design (no replica loses the largest or smallest size, none
//              fails) but understates the variance of each size's mean by (m - 1)/m for m seeds,
//              and with a single seed per size it has no spread at all;
//   kClusters: whole distinct-x groups drawn with replacement (K draws from K sizes); with K = 5
//              about 10% of replicas keep < 3 sizes and fail, and those with 3 interpolate.
// The default was chosen by simulation (E = 1.5, A = 40, alpha = 0.3, x = 1e5..1e7 in 5 log-spaced
// sizes, Gaussian seed noise sigma = 0.01, 200 data sets x 300 replicas, nominal 95%). Coverage of
// (E, A, alpha) and of the band at x = 1e5 / 1e6 / 1e7:
//   3 seeds per size: kPoints 0.93 0.95 0.95, band 0.87 0.91 0.88; kWithinX 0.83 0.86 0.85, band
//   0.78 0.83 0.78; kClusters 0.94 0.96 0.96, band 0.86 0.78 0.82 (alpha interval 2.4x as wide).
//   2 seeds: kPoints 0.96 0.96 0.96, band 0.85 0.89 0.87; kWithinX 0.76 0.76 0.76.
//   1 seed (5 points): kPoints = kClusters 0.97 0.96 0.97, band 0.86 0.73 0.87, 10% failed.
// So the parameter intervals of kPoints are close to nominal; its pointwise band is somewhat
// narrow (about 0.85-0.9) with 5 sizes. Clustering by x does not help stability here: it
// removes whole sizes, which is what makes a 3-parameter fit unstable.
// Randomness: std::mt19937_64 seeded with `seed`, indexes drawn by rejection sampling here (not by
// std::uniform_int_distribution, whose algorithm is left to the library), so the same points,
// options and seed give the same draws on every platform and bit-identical replicas and intervals
// from one build (another libm's exp and log may change the last bits).
// Intervals: percentile intervals at level `level` (default 0.95): the (1 - level)/2 and
// (1 + level)/2 quantiles of the successful replicas' values (linear interpolation between order
// statistics, numpy's default "type 7"), for E, A and alpha separately, and for the curve at each
// x in band_x (for each query x, the quantiles of the replicas' L(x); a pointwise band, not a
// simultaneous one). Intervals are NaN when fewer than 2 replicas succeeded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace pha::analysis {

// One run's point: x = parameters (N) or training FLOPs (C), y = its loss.
struct ScalingPoint {
  double x = 0.0;
  double y = 0.0;
};

// The parameters of L(x) = E + A * x^(-alpha).
struct PowerLawParams {
  double E = 0.0;
  double A = 0.0;
  double alpha = 0.0;

  double at(double x) const;  // E + A * x^(-alpha), computed as E + exp(log A - alpha log x)
};

// A percentile interval; both NaN when there is none.
struct Interval {
  double low = std::numeric_limits<double>::quiet_NaN();
  double high = std::numeric_limits<double>::quiet_NaN();

  bool valid() const;  // both finite
};

// The fitted curve and its pointwise bootstrap band at one query x.
struct BandPoint {
  double x = 0.0;
  double fit = 0.0;  // the point fit's L(x)
  double low = 0.0;  // percentile interval of the replicas' L(x); NaN without a bootstrap
  double high = 0.0;
};

enum class Resample { kPoints, kWithinX, kClusters };
const char* resample_name(Resample r);  // "points", "within_x", "clusters"

struct FitOptions {
  std::size_t n_boot = 1000;  // bootstrap replicas; 0: point fit only
  std::uint64_t seed = 1;     // of the bootstrap's std::mt19937_64
  double level = 0.95;        // of the percentile intervals, in (0, 1)
  Resample resample = Resample::kPoints;
  std::vector<double> band_x;  // query x (> 0) for the curve band
};

struct PowerLawFit {
  bool ok = false;
  std::string message;  // why the fit failed (ok = false); empty when ok

  // The least-squares point fit.
  double E = 0.0;
  double A = 0.0;
  double alpha = 0.0;
  bool E_on_bound = false;      // E = 0 or E = min y
  bool A_on_bound = false;      // A = 0 (a flat line: alpha is then arbitrary)
  bool alpha_on_bound = false;  // alpha at 3 or at the grid's lower end (1e-6)
  std::vector<double> residuals;  // one per input point, in input order: y - L(x); NaN if dropped
  double rmse = 0.0;              // sqrt(SSE / n)
  std::size_t n = 0;              // points fitted
  std::size_t n_distinct_x = 0;
  std::size_t dropped = 0;        // points left out (non-finite x or y)

  // The bootstrap.
  Resample resample = Resample::kPoints;  // the scheme used
  double level = 0.95;
  std::size_t boot_ok = 0;      // replicas refitted
  std::size_t boot_failed = 0;  // replicas that could not be fitted, skipped
  Interval E_ci{};
  Interval A_ci{};
  Interval alpha_ci{};
  std::vector<BandPoint> band;          // one per FitOptions::band_x, in that order
  std::vector<PowerLawParams> replicas;  // the successful replicas, in draw order (for crossover)

  PowerLawParams params() const;  // {E, A, alpha}
  double at(double x) const;      // the point fit's L(x)
};

PowerLawFit fit_power_law(const std::vector<ScalingPoint>& points, const FitOptions& options = {});

// n >= 2 x values spaced evenly in log x from lo to hi (both > 0, included): the query x of a
// fitted curve's band (FitOptions::band_x) as the report and the Compare dock draw it.
std::vector<double> log_spaced(double lo, double hi, int n);

// Which of two curves is lower on a stretch of x.
enum class Lower { kA, kB, kTie };
const char* lower_name(Lower l);  // "a", "b", "tie"

// Where the fitted curves of two families cross in [x_lo, x_hi].
// Method: d(x) = L_a(x) - L_b(x) is evaluated at 1001 log-spaced x from x_lo to x_hi; each sign
// change between neighbouring samples is a crossing, located by bisection in log x to a relative
// width of 1e-12 (an exact zero at a sample is a crossing when the sign on its two sides differs;
// a touch without a sign change is not). Two crossings closer than one scan step (a factor
// (x_hi/x_lo)^(1/1000)) are missed. `x` is the lowest crossing; `all` lists every one.
// Bootstrap: replica k of a is paired with replica k of b (the families' data are independent,
// so each pair is a draw from the joint bootstrap distribution; pairs = the smaller replica
// count). For each pair the same scan gives its crossing nearest in log x to the point fits'
// crossing (its lowest one when the point fits do not cross). `fraction_crossing` is the share of
// pairs that cross in range; `ci` is the percentile interval (at `level`, quantiles taken on
// log x) of the crossing over the pairs that do, so it is conditional on crossing and is to be
// read with that fraction. In the header's simulation setting (two families with alpha = 0.3
// crossing at x = 1e6, 3 seeds x 5 sizes each, sigma = 0.005, kPoints) the interval covered the
// true crossing in 0.86 of 150 data sets: like the band, somewhat narrow.
struct Crossover {
  bool found = false;
  std::string message;  // "no crossover in range [lo, hi]", or a sentence describing the crossing
  double x_lo = 0.0;
  double x_hi = 0.0;
  double x = 0.0;           // the lowest crossing of the point fits; NaN when none
  std::vector<double> all;  // every crossing of the point fits in range, ascending
  Lower lower_below = Lower::kTie;  // lower just below x (without a crossing: lower on the range)
  Lower lower_above = Lower::kTie;  // lower just above x (without a crossing: the same as below)
  std::size_t n_pairs = 0;          // bootstrap pairs compared
  std::size_t n_crossing = 0;       // pairs whose curves cross in range
  double fraction_crossing = 0.0;   // n_crossing / n_pairs; NaN without pairs
  Interval ci{};                    // of the crossing x over the crossing pairs; NaN if < 2 cross
};

// a and b must be ok fits (otherwise found = false and the message says which failed);
// 0 < x_lo < x_hi, finite, and level in (0, 1), else core::Error naming "x_lo", "x_hi" or "level".
Crossover crossover(const PowerLawFit& a, const PowerLawFit& b, double x_lo, double x_hi, double level = 0.95);

// The x where two piecewise-linear curves (points (x, y), x strictly ascending; e.g. loss against
// tokens) cross on their common x range [max(a.x0, b.x0), min(a.xn, b.xn)], ascending. Each curve
// is linearly interpolated at the other's breakpoints, so d = a - b is linear between the merged
// breakpoints and a crossing inside a segment is its linear root. A crossing is a change of the
// sign of d: where d is 0 at breakpoints between a positive and a negative stretch, the first
// such x is reported (where the curves meet); a touch (d reaches 0 and keeps its sign) and a
// start or end at d = 0 are not crossings. Points with a non-finite x or y are dropped; a curve
// with fewer than 2 points, or no common range, gives no crossings. A decreasing or repeated x
// throws core::Error ("a" or "b").
std::vector<double> curve_crossings(const std::vector<std::pair<double, double>>& a,
                                    const std::vector<std::pair<double, double>>& b);

}  // namespace pha::analysis
