// Scaling-law fits on synthetic points from a known L(x) = E + A x^-alpha: exact recovery without
// noise, truth inside the bootstrap intervals and band with noise (fixed seeds), bounds, failure
// messages, determinism, crossovers against the analytic crossing, and piecewise-linear crossings
// on hand cases.
#include <gtest/gtest.h>

#include "nan.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "analysis/scaling_fit.h"
#include "core/error.h"

namespace pa = pha::analysis;

namespace {


double law(double E, double A, double alpha, double x) { return E + A * std::pow(x, -alpha); }

// Five sizes from 1e5 to 1e7, log-spaced.
std::vector<double> sizes() { return {1e5, std::pow(10.0, 5.5), 1e6, std::pow(10.0, 6.5), 1e7}; }

// Gaussian noise by Box-Muller on mt19937_64 (std::normal_distribution's algorithm is the
// library's, so the same seed would give other points under another standard library).
struct Noise {
  std::mt19937_64 g;
  explicit Noise(std::uint64_t seed) : g(seed) {}
  double uniform() { return (static_cast<double>(g() >> 11) + 0.5) * 0x1.0p-53; }
  double gaussian() {
    const double u1 = uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
};

// `seeds` points per size from the law plus N(0, sigma^2) noise.
std::vector<pa::ScalingPoint> synthetic(double E, double A, double alpha, int seeds, double sigma,
                                        std::uint64_t noise_seed) {
  Noise noise(noise_seed);
  std::vector<pa::ScalingPoint> pts;
  for (double x : sizes())
    for (int s = 0; s < seeds; ++s) pts.push_back({x, law(E, A, alpha, x) + sigma * noise.gaussian()});
  return pts;
}

void expect_within(const pa::Interval& iv, double truth, const char* what) {
  ASSERT_TRUE(iv.valid()) << what;
  EXPECT_LE(iv.low, truth) << what << " interval [" << iv.low << ", " << iv.high << "]";
  EXPECT_GE(iv.high, truth) << what << " interval [" << iv.low << ", " << iv.high << "]";
}

}  // namespace

TEST(ScalingFit, NoiseFreePointsRecoverTheParameters) {
  pa::FitOptions opt;
  opt.n_boot = 0;
  const pa::PowerLawFit fit = pa::fit_power_law(synthetic(1.5, 40.0, 0.3, 3, 0.0, 1), opt);
  ASSERT_TRUE(fit.ok) << fit.message;
  EXPECT_TRUE(fit.message.empty());
  EXPECT_NEAR(fit.E, 1.5, 1.5e-3);
  EXPECT_NEAR(fit.A, 40.0, 40e-3);
  EXPECT_NEAR(fit.alpha, 0.3, 0.3e-3);
  EXPECT_LT(fit.rmse, 1e-8);
  EXPECT_EQ(fit.n, 15u);
  EXPECT_EQ(fit.n_distinct_x, 5u);
  EXPECT_EQ(fit.dropped, 0u);
  ASSERT_EQ(fit.residuals.size(), 15u);
  for (double r : fit.residuals) EXPECT_NEAR(r, 0.0, 1e-8);
  EXPECT_FALSE(fit.E_on_bound || fit.A_on_bound || fit.alpha_on_bound);
  EXPECT_EQ(fit.boot_ok, 0u);
  EXPECT_FALSE(fit.E_ci.valid());
  EXPECT_NEAR(fit.at(1e6), law(1.5, 40.0, 0.3, 1e6), 1e-9);

  // Other exponents and scales, one point per size (three distinct x is the minimum).
  const double cases[][3] = {{2.0, 500.0, 0.5}, {0.8, 3.0, 0.08}, {1.0, 1e12, 2.2}};
  for (const auto& c : cases) {
    std::vector<pa::ScalingPoint> pts;
    for (double x : {1e5, 1e6, 1e7, 1e8}) pts.push_back({x, law(c[0], c[1], c[2], x)});
    const pa::PowerLawFit f = pa::fit_power_law(pts, opt);
    ASSERT_TRUE(f.ok) << f.message;
    EXPECT_NEAR(f.E / c[0], 1.0, 1e-3) << "E = " << c[0];
    EXPECT_NEAR(f.A / c[1], 1.0, 1e-3) << "A = " << c[1];
    EXPECT_NEAR(f.alpha / c[2], 1.0, 1e-3) << "alpha = " << c[2];
  }
}

// One fixed data set (noise seed 2). Each interval misses the truth for some data sets (5-13%
// for a pointwise band at the ends, see the header), so with 8 intervals checked together some
// noise seeds fail this test (seeds 1 and 7 do, at the band's x = 1e5); calibration is tested by
// BootstrapIntervalsCoverTheTruthAtAboutTheirLevel below.
TEST(ScalingFit, NoisyPointsLieWithinTheBootstrapIntervalsAndBand) {
  const double E = 1.5, A = 40.0, alpha = 0.3;
  pa::FitOptions opt;
  opt.band_x = {1e5, 3e5, 1e6, 3e6, 1e7};
  const pa::PowerLawFit fit = pa::fit_power_law(synthetic(E, A, alpha, 3, 0.01, 2), opt);
  ASSERT_TRUE(fit.ok) << fit.message;
  EXPECT_EQ(fit.resample, pa::Resample::kPoints) << "the default";
  EXPECT_EQ(fit.boot_ok, 1000u);
  EXPECT_EQ(fit.boot_failed, 0u);
  EXPECT_EQ(fit.replicas.size(), 1000u);
  EXPECT_DOUBLE_EQ(fit.level, 0.95);
  expect_within(fit.E_ci, E, "E");
  expect_within(fit.A_ci, A, "A");
  expect_within(fit.alpha_ci, alpha, "alpha");
  expect_within(fit.E_ci, fit.E, "E (point fit)");
  expect_within(fit.alpha_ci, fit.alpha, "alpha (point fit)");
  EXPECT_LT(fit.rmse, 0.02);
  ASSERT_EQ(fit.band.size(), opt.band_x.size());
  for (const pa::BandPoint& b : fit.band) {
    EXPECT_LE(b.low, law(E, A, alpha, b.x)) << "x = " << b.x;
    EXPECT_GE(b.high, law(E, A, alpha, b.x)) << "x = " << b.x;
    EXPECT_LE(b.low, b.fit);
    EXPECT_GE(b.high, b.fit);
    EXPECT_LT(b.high - b.low, 0.05) << "x = " << b.x;
  }
  // Every replica respects the bounds.
  for (const pa::PowerLawParams& q : fit.replicas) {
    EXPECT_GE(q.E, 0.0);
    EXPECT_GE(q.A, 0.0);
    EXPECT_GT(q.alpha, 0.0);
    EXPECT_LE(q.alpha, 3.0);
  }

  // Stratified by size: every replica has all 5 sizes, so none fails.
  opt.resample = pa::Resample::kWithinX;
  const pa::PowerLawFit within = pa::fit_power_law(synthetic(E, A, alpha, 3, 0.01, 2), opt);
  EXPECT_EQ(within.resample, pa::Resample::kWithinX);
  EXPECT_EQ(within.boot_ok, 1000u);
  EXPECT_EQ(within.boot_failed, 0u);
  expect_within(within.E_ci, within.E, "E (within x, point fit)");
}

// The intervals' coverage over many data sets (the header's simulation, smaller): near 95% for
// the parameters, somewhat less for the pointwise band.
TEST(ScalingFit, BootstrapIntervalsCoverTheTruthAtAboutTheirLevel) {
  const double E = 1.5, A = 40.0, alpha = 0.3;
  const int sets = 60;
  int cover_e = 0, cover_a = 0, cover_alpha = 0, cover_band = 0;
  pa::FitOptions opt;
  opt.n_boot = 200;
  opt.band_x = {1e6};
  for (int k = 0; k < sets; ++k) {
    opt.seed = 100 + k;
    const pa::PowerLawFit f = pa::fit_power_law(synthetic(E, A, alpha, 3, 0.01, 500 + k), opt);
    ASSERT_TRUE(f.ok) << f.message;
    cover_e += f.E_ci.low <= E && E <= f.E_ci.high;
    cover_a += f.A_ci.low <= A && A <= f.A_ci.high;
    cover_alpha += f.alpha_ci.low <= alpha && alpha <= f.alpha_ci.high;
    const double truth = law(E, A, alpha, 1e6);
    cover_band += f.band[0].low <= truth && truth <= f.band[0].high;
  }
  EXPECT_GE(cover_e, 51) << "of " << sets;  // 0.85
  EXPECT_GE(cover_a, 51) << "of " << sets;
  EXPECT_GE(cover_alpha, 51) << "of " << sets;
  EXPECT_GE(cover_band, 45) << "of " << sets;  // 0.75
}

TEST(ScalingFit, ResamplingSchemes) {
  const auto three_seeds = synthetic(1.5, 40.0, 0.3, 3, 0.01, 3);
  pa::FitOptions opt;
  opt.n_boot = 400;
  // One point per size: within-x resampling has nothing to draw from but the point itself.
  opt.resample = pa::Resample::kWithinX;
  const pa::PowerLawFit one = pa::fit_power_law(synthetic(1.5, 40.0, 0.3, 1, 0.01, 3), opt);
  EXPECT_EQ(one.boot_ok, 400u);
  EXPECT_NEAR(one.alpha_ci.high - one.alpha_ci.low, 0.0, 1e-9);
  // Case resampling of 5 points: replicas with fewer than 3 distinct x are counted and skipped.
  opt.resample = pa::Resample::kPoints;
  const pa::PowerLawFit one_points = pa::fit_power_law(synthetic(1.5, 40.0, 0.3, 1, 0.01, 3), opt);
  EXPECT_GT(one_points.boot_failed, 0u);
  EXPECT_EQ(one_points.boot_ok + one_points.boot_failed, 400u);
  // Whole sizes drawn with replacement: with 5 sizes some replicas keep fewer than 3 (counted, skipped).
  opt.resample = pa::Resample::kClusters;
  const pa::PowerLawFit clusters = pa::fit_power_law(three_seeds, opt);
  EXPECT_EQ(clusters.resample, pa::Resample::kClusters);
  EXPECT_GT(clusters.boot_failed, 0u);
  EXPECT_EQ(clusters.boot_ok + clusters.boot_failed, 400u);
  EXPECT_EQ(clusters.replicas.size(), clusters.boot_ok);
  EXPECT_STREQ(pa::resample_name(pa::Resample::kWithinX), "within_x");
}

TEST(ScalingFit, TheSameSeedGivesIdenticalIntervals) {
  const auto pts = synthetic(1.5, 40.0, 0.3, 3, 0.02, 11);
  pa::FitOptions opt;
  opt.n_boot = 300;
  opt.seed = 42;
  opt.band_x = {2e5, 5e6};
  for (pa::Resample r : {pa::Resample::kWithinX, pa::Resample::kPoints}) {
    opt.resample = r;
    const pa::PowerLawFit f1 = pa::fit_power_law(pts, opt), f2 = pa::fit_power_law(pts, opt);
    EXPECT_EQ(f1.E_ci.low, f2.E_ci.low);
    EXPECT_EQ(f1.E_ci.high, f2.E_ci.high);
    EXPECT_EQ(f1.A_ci.low, f2.A_ci.low);
    EXPECT_EQ(f1.A_ci.high, f2.A_ci.high);
    EXPECT_EQ(f1.alpha_ci.low, f2.alpha_ci.low);
    EXPECT_EQ(f1.alpha_ci.high, f2.alpha_ci.high);
    for (std::size_t k = 0; k < f1.band.size(); ++k) {
      EXPECT_EQ(f1.band[k].low, f2.band[k].low);
      EXPECT_EQ(f1.band[k].high, f2.band[k].high);
    }
    ASSERT_EQ(f1.replicas.size(), f2.replicas.size());
    for (std::size_t k = 0; k < f1.replicas.size(); ++k) EXPECT_EQ(f1.replicas[k].alpha, f2.replicas[k].alpha);
    opt.seed = 43;
    const pa::PowerLawFit f3 = pa::fit_power_law(pts, opt);
    EXPECT_NE(f1.alpha_ci.low, f3.alpha_ci.low) << "another seed draws other replicas";
    opt.seed = 42;
  }
}

TEST(ScalingFit, FewerThanThreeDistinctXCannotBeFitted) {
  const std::vector<pa::ScalingPoint> two = {{1e5, 3.0}, {1e5, 3.1}, {1e6, 2.5}, {1e6, 2.4}};
  const pa::PowerLawFit fit = pa::fit_power_law(two);
  EXPECT_FALSE(fit.ok);
  EXPECT_EQ(fit.message, "needs at least 3 distinct x to fit E, A and alpha; got 2 (x = 1e+05, 1e+06)");
  EXPECT_EQ(fit.n_distinct_x, 2u);
  EXPECT_EQ(fit.boot_ok, 0u);

  // A third x that is NaN is dropped, so still two.
  auto with_nan = two;
  with_nan.push_back({kNaN, 2.0});
  with_nan.push_back({1e7, kNaN});
  const pa::PowerLawFit f2 = pa::fit_power_law(with_nan);
  EXPECT_FALSE(f2.ok);
  EXPECT_EQ(f2.dropped, 2u);
  EXPECT_NE(f2.message.find("after dropping 2 non-finite points"), std::string::npos) << f2.message;

  EXPECT_FALSE(pa::fit_power_law({}).ok);
  EXPECT_EQ(pa::fit_power_law({}).message, "needs at least 3 distinct x to fit E, A and alpha; got 0");

  const pa::PowerLawFit neg = pa::fit_power_law({{1e5, 3.0}, {0.0, 2.5}, {1e7, 2.0}});
  EXPECT_FALSE(neg.ok);
  EXPECT_EQ(neg.message, "x must be > 0 (L = E + A x^-alpha); the point at index 1 has x = 0");
}

TEST(ScalingFit, NonFinitePointsAreDroppedAndCounted) {
  auto pts = synthetic(1.5, 40.0, 0.3, 3, 0.0, 1);
  pts.insert(pts.begin() + 2, {1e6, kNaN});
  pts.push_back({std::numeric_limits<double>::infinity(), 1.0});
  pa::FitOptions opt;
  opt.n_boot = 50;
  const pa::PowerLawFit fit = pa::fit_power_law(pts, opt);
  ASSERT_TRUE(fit.ok) << fit.message;
  EXPECT_EQ(fit.n, 15u);
  EXPECT_EQ(fit.dropped, 2u);
  ASSERT_EQ(fit.residuals.size(), 17u);
  EXPECT_TRUE(std::isnan(fit.residuals[2]));
  EXPECT_TRUE(std::isnan(fit.residuals[16]));
  EXPECT_NEAR(fit.residuals[3], 0.0, 1e-8);
  EXPECT_NEAR(fit.alpha, 0.3, 3e-4);
  // Noise-free replicas all give the same curve: the intervals shrink onto the point fit.
  EXPECT_NEAR(fit.alpha_ci.low, 0.3, 3e-4);
  EXPECT_NEAR(fit.alpha_ci.high, 0.3, 3e-4);
}

TEST(ScalingFit, ParametersStayInTheirBounds) {
  // Loss rising with x: no decreasing law fits; the fit ends on a bound (E = min y here).
  std::vector<pa::ScalingPoint> rising;
  for (double x : sizes()) rising.push_back({x, 2.0 + 0.01 * std::log10(x)});
  pa::FitOptions opt;
  opt.n_boot = 0;
  const pa::PowerLawFit up = pa::fit_power_law(rising, opt);
  ASSERT_TRUE(up.ok);
  EXPECT_TRUE(up.E_on_bound || up.A_on_bound);
  EXPECT_LE(up.E, 2.05);
  EXPECT_GE(up.A, 0.0);
  // All y equal: the flat line, A = 0 or E = y.
  std::vector<pa::ScalingPoint> flat;
  for (double x : sizes()) flat.push_back({x, 2.5});
  const pa::PowerLawFit fl = pa::fit_power_law(flat, opt);
  ASSERT_TRUE(fl.ok);
  EXPECT_NEAR(fl.at(1e5), 2.5, 1e-12);
  EXPECT_NEAR(fl.at(1e7), 2.5, 1e-12);
  EXPECT_LT(fl.rmse, 1e-12);

  // A straight line in log x (no saturation): E is pushed to 0 or alpha to its lower end.
  std::vector<pa::ScalingPoint> loglinear;
  for (double x : sizes()) loglinear.push_back({x, 10.0 - 0.5 * std::log10(x)});
  const pa::PowerLawFit ll = pa::fit_power_law(loglinear, opt);
  ASSERT_TRUE(ll.ok);
  EXPECT_GE(ll.E, 0.0);
  EXPECT_LE(ll.E, 10.0 - 0.5 * 7.0);
  EXPECT_GT(ll.alpha, 0.0);
  EXPECT_TRUE(ll.E_on_bound || ll.alpha_on_bound);

  // A steep drop onto E: alpha beyond 3 is clamped to 3.
  std::vector<pa::ScalingPoint> steep;
  for (double x : {1.0, 2.0, 4.0, 8.0}) steep.push_back({x, 1.0 + 5.0 * std::pow(x, -4.0)});
  const pa::PowerLawFit st = pa::fit_power_law(steep, opt);
  ASSERT_TRUE(st.ok);
  EXPECT_EQ(st.alpha, 3.0);
  EXPECT_TRUE(st.alpha_on_bound);
  EXPECT_LE(st.E, 1.0 + 5.0 * std::pow(8.0, -4.0));
}

TEST(ScalingFit, InvalidOptionsThrow) {
  const auto pts = synthetic(1.5, 40.0, 0.3, 1, 0.0, 1);
  pa::FitOptions opt;
  opt.level = 1.0;
  try {
    pa::fit_power_law(pts, opt);
    FAIL() << "level 1 accepted";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), "level");
  }
  opt.level = 0.9;
  opt.band_x = {1e6, -1.0};
  try {
    pa::fit_power_law(pts, opt);
    FAIL() << "a negative band x accepted";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), "band_x");
  }
}

namespace {
// Two families with the same alpha: a (E 1.5, A 40) and b (E 1.3, A 40 + 0.2 * 1e6^0.3) cross
// where 0.2 = (A_b - A_a) x^-0.3, at x = 1e6 exactly; a is lower below (smaller A), b above.
constexpr double kEa = 1.5, kAa = 40.0, kEb = 1.3, kAlpha = 0.3;
double a_b() { return kAa + 0.2 * std::pow(1e6, kAlpha); }
}  // namespace

TEST(ScalingCrossover, FindsTheAnalyticCrossing) {
  const double analytic = std::pow((a_b() - kAa) / (kEa - kEb), 1.0 / kAlpha);
  ASSERT_NEAR(analytic, 1e6, 1e-3);
  pa::FitOptions opt;
  opt.n_boot = 0;
  const pa::PowerLawFit fa = pa::fit_power_law(synthetic(kEa, kAa, kAlpha, 3, 0.0, 1), opt);
  const pa::PowerLawFit fb = pa::fit_power_law(synthetic(kEb, a_b(), kAlpha, 3, 0.0, 2), opt);
  const pa::Crossover c = pa::crossover(fa, fb, 1e4, 1e8);
  ASSERT_TRUE(c.found) << c.message;
  EXPECT_NEAR(c.x / analytic, 1.0, 1e-3);
  ASSERT_EQ(c.all.size(), 1u);
  EXPECT_EQ(c.lower_below, pa::Lower::kA);
  EXPECT_EQ(c.lower_above, pa::Lower::kB);
  EXPECT_EQ(c.n_pairs, 0u);
  EXPECT_TRUE(std::isnan(c.fraction_crossing));
  EXPECT_FALSE(c.ci.valid());
  EXPECT_NE(c.message.find("the fits cross at x = 1e+06 in [1e+04, 1e+08]: a is lower below, b above"),
            std::string::npos)
      << c.message;
  // Swapping the families swaps the sides.
  const pa::Crossover s = pa::crossover(fb, fa, 1e4, 1e8);
  ASSERT_TRUE(s.found);
  EXPECT_EQ(s.lower_below, pa::Lower::kB);
  EXPECT_EQ(s.lower_above, pa::Lower::kA);

  // With noise and the bootstrap: the crossing near 1e6, its interval holding the analytic one.
  pa::FitOptions boot;
  boot.n_boot = 500;
  const pa::PowerLawFit na = pa::fit_power_law(synthetic(kEa, kAa, kAlpha, 3, 0.005, 21), boot);
  const pa::PowerLawFit nb = pa::fit_power_law(synthetic(kEb, a_b(), kAlpha, 3, 0.005, 22), boot);
  const pa::Crossover n = pa::crossover(na, nb, 1e4, 1e8);
  ASSERT_TRUE(n.found) << n.message;
  EXPECT_LT(std::fabs(std::log(n.x / analytic)), std::log(2.0)) << n.x;
  EXPECT_EQ(n.n_pairs, 500u);
  EXPECT_GT(n.fraction_crossing, 0.95);
  expect_within(n.ci, analytic, "crossing");
  expect_within(n.ci, n.x, "crossing (point fit)");
  EXPECT_EQ(n.lower_below, pa::Lower::kA);
  EXPECT_EQ(n.lower_above, pa::Lower::kB);
  EXPECT_NE(n.message.find("bootstrap pairs cross in range, 95% interval ["), std::string::npos) << n.message;
}

TEST(ScalingCrossover, NoneWhenTheCurvesDoNotCrossInRange) {
  pa::FitOptions opt;
  opt.n_boot = 200;
  const pa::PowerLawFit fa = pa::fit_power_law(synthetic(kEa, kAa, kAlpha, 3, 0.005, 1), opt);
  const pa::PowerLawFit up = pa::fit_power_law(synthetic(kEa + 0.3, kAa, kAlpha, 3, 0.005, 2), opt);
  const pa::Crossover c = pa::crossover(fa, up, 1e5, 1e7);
  EXPECT_FALSE(c.found);
  EXPECT_EQ(c.message, "no crossover in range [1e+05, 1e+07]");
  EXPECT_TRUE(std::isnan(c.x));
  EXPECT_TRUE(c.all.empty());
  EXPECT_EQ(c.lower_below, pa::Lower::kA);
  EXPECT_EQ(c.lower_above, pa::Lower::kA);
  EXPECT_EQ(c.n_pairs, 200u);
  EXPECT_LT(c.fraction_crossing, 0.05);

  // The crossing at 1e6 lies outside [1e4, 1e5].
  opt.n_boot = 0;
  const pa::PowerLawFit fb = pa::fit_power_law(synthetic(kEb, a_b(), kAlpha, 3, 0.0, 2), opt);
  const pa::PowerLawFit fa0 = pa::fit_power_law(synthetic(kEa, kAa, kAlpha, 3, 0.0, 1), opt);
  const pa::Crossover out = pa::crossover(fa0, fb, 1e4, 1e5);
  EXPECT_FALSE(out.found);
  EXPECT_EQ(out.message, "no crossover in range [1e+04, 1e+05]");
  EXPECT_EQ(out.lower_below, pa::Lower::kA);

  // A failed fit and a bad range.
  const pa::PowerLawFit bad = pa::fit_power_law({{1e5, 3.0}, {1e6, 2.0}});
  const pa::Crossover cb = pa::crossover(fa, bad, 1e5, 1e7);
  EXPECT_FALSE(cb.found);
  EXPECT_EQ(cb.message.rfind("fit b failed: needs at least 3 distinct x", 0), 0u) << cb.message;
  EXPECT_THROW(pa::crossover(fa, up, 0.0, 1e7), pha::core::Error);
  EXPECT_THROW(pa::crossover(fa, up, 1e7, 1e5), pha::core::Error);
  EXPECT_THROW(pa::crossover(fa, up, 1e5, 1e7, 1.5), pha::core::Error);
}

TEST(CurveCrossings, OneCrossing) {
  // a falls from 3 to 1, b from 2 to 1.5 over [0, 10]: a - b = 1 - 0.15 x, zero at 20/3.
  const std::vector<std::pair<double, double>> a = {{0, 3}, {10, 1}};
  const std::vector<std::pair<double, double>> b = {{0, 2}, {5, 1.75}, {10, 1.5}};
  const auto x = pa::curve_crossings(a, b);
  ASSERT_EQ(x.size(), 1u);
  EXPECT_NEAR(x[0], 20.0 / 3.0, 1e-12);
}

TEST(CurveCrossings, NoneAndOnlyOnTheCommonRange) {
  const std::vector<std::pair<double, double>> a = {{0, 3}, {10, 2}, {20, 1}};
  const std::vector<std::pair<double, double>> b = {{0, 1}, {10, 0.5}, {30, 0.4}};
  EXPECT_TRUE(pa::curve_crossings(a, b).empty());
  // b crosses a only after x = 20, past a's last point: no crossing on the common range.
  const std::vector<std::pair<double, double>> late = {{5, 2.0}, {20, 0.9}, {40, 5.0}};
  EXPECT_TRUE(pa::curve_crossings(a, late).empty());
  // No common range, or a curve of one point.
  EXPECT_TRUE(pa::curve_crossings(a, {{30, 1}, {40, 2}}).empty());
  EXPECT_TRUE(pa::curve_crossings(a, {{5, 1}}).empty());
}

TEST(CurveCrossings, TouchingIsNotACrossingButCrossingAtABreakpointIs) {
  // b touches a at x = 10 from below and goes back down: d = a - b is +, 0, +.
  const std::vector<std::pair<double, double>> a = {{0, 2}, {10, 2}, {20, 2}};
  const std::vector<std::pair<double, double>> touch = {{0, 1}, {10, 2}, {20, 1}};
  EXPECT_TRUE(pa::curve_crossings(a, touch).empty());
  // Through a at x = 10: +, 0, - is one crossing, at the breakpoint.
  const std::vector<std::pair<double, double>> through = {{0, 1}, {10, 2}, {20, 3}};
  const auto x = pa::curve_crossings(a, through);
  ASSERT_EQ(x.size(), 1u);
  EXPECT_DOUBLE_EQ(x[0], 10.0);
  // Coinciding on [10, 15] and then passing: one crossing, where they meet.
  const std::vector<std::pair<double, double>> along = {{0, 1}, {10, 2}, {15, 2}, {20, 3}};
  const auto y = pa::curve_crossings(a, along);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_DOUBLE_EQ(y[0], 10.0);
  // Starting together is not a crossing.
  EXPECT_TRUE(pa::curve_crossings(a, {{0, 2}, {20, 1}}).empty());
  // Two crossings, different breakpoints, NaN points dropped.
  const std::vector<std::pair<double, double>> wave = {{0, 1}, {4, 3}, {7, kNaN}, {8, 1}};
  const auto w = pa::curve_crossings(a, wave);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NEAR(w[0], 2.0, 1e-12);
  EXPECT_NEAR(w[1], 6.0, 1e-12);
}

TEST(CurveCrossings, UnorderedXThrows) {
  try {
    pa::curve_crossings({{0, 1}, {1, 2}}, {{0, 1}, {2, 2}, {1, 3}});
    FAIL() << "descending x accepted";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), "b");
  }
}
