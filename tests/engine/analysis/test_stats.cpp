// Replica statistics against values computed by hand (t quantiles from the incomplete beta
// function, checked with mpmath to 30 digits): n = 1, n = 2, n = 4, NaN handling, Welch, the
// paired difference, p-values, Wilson's interval, the minimum detectable effect and the seeds
// needed (mpmath scripts of the same formulas; df = 2 and 1 have closed forms).
#include <gtest/gtest.h>

#include "nan.h"

#include <cmath>
#include <limits>

#include "analysis/stats.h"

namespace pa = pha::analysis;

namespace {
}

TEST(Stats, StudentTQuantilesMatchTheTables) {
  EXPECT_NEAR(pa::student_t_quantile(0.975, 1), 12.7062047361747, 1e-8);
  EXPECT_NEAR(pa::student_t_quantile(0.975, 2), 4.30265272974946, 1e-9);
  EXPECT_NEAR(pa::student_t_quantile(0.975, 3), 3.18244630528371, 1e-9);
  EXPECT_NEAR(pa::student_t_quantile(0.975, 10), 2.22813885198627, 1e-9);
  EXPECT_NEAR(pa::student_t_quantile(0.975, 1000), 1.96233908082641, 1e-9);
  EXPECT_NEAR(pa::student_t_quantile(0.975, 50.0 / 17.0), 3.21875861453288, 1e-9) << "a fractional (Welch) df";
  EXPECT_NEAR(pa::student_t_quantile(0.025, 3), -3.18244630528371, 1e-9);
  EXPECT_NEAR(pa::student_t_cdf(0.0, 5), 0.5, 1e-15);
  EXPECT_TRUE(std::isnan(pa::student_t_quantile(0.975, 0)));
}

TEST(Stats, FourValuesGiveMeanSampleStdAndTheStudentInterval) {
  const pa::Stats s = pa::summarize({1, 2, 3, 4});
  EXPECT_EQ(s.n, 4u);
  EXPECT_EQ(s.nan, 0u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.std, 1.29099444873581, 1e-12);  // sqrt(5/3): divides by n - 1
  EXPECT_NEAR(s.ci_low, 0.445739743239478, 1e-9);
  EXPECT_NEAR(s.ci_high, 4.55426025676052, 1e-9);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 4);
  EXPECT_TRUE(s.has_interval());
}

TEST(Stats, OneValueHasNoSpreadAndNoInterval) {
  const pa::Stats s = pa::summarize({5});
  EXPECT_EQ(s.n, 1u);
  EXPECT_EQ(s.mean, 5);
  EXPECT_EQ(s.min, 5);
  EXPECT_EQ(s.max, 5);
  EXPECT_TRUE(std::isnan(s.std));
  EXPECT_TRUE(std::isnan(s.ci_low));
  EXPECT_TRUE(std::isnan(s.ci_high));
  EXPECT_FALSE(s.has_interval());
}

TEST(Stats, TwoValuesUseTwelvePointSevenStandardErrors) {
  const pa::Stats s = pa::summarize({1, 3});
  EXPECT_DOUBLE_EQ(s.mean, 2);
  EXPECT_NEAR(s.std, std::sqrt(2.0), 1e-15);
  // half width t(0.975, 1) * sqrt(2) / sqrt(2) = 12.706...
  EXPECT_NEAR(s.ci_low, 2 - 12.7062047361747, 1e-8);
  EXPECT_NEAR(s.ci_high, 2 + 12.7062047361747, 1e-8);
}

TEST(Stats, NanAndInfinitiesAreLeftOutAndCounted) {
  const pa::Stats s = pa::summarize({1, kNaN, 3, INFINITY});
  EXPECT_EQ(s.n, 2u);
  EXPECT_EQ(s.nan, 2u);
  EXPECT_DOUBLE_EQ(s.mean, 2);
  EXPECT_NEAR(s.std, std::sqrt(2.0), 1e-15);
  const pa::Stats none = pa::summarize({kNaN});
  EXPECT_EQ(none.n, 0u);
  EXPECT_EQ(none.nan, 1u);
  EXPECT_TRUE(std::isnan(none.mean));
  EXPECT_TRUE(std::isnan(none.min));
  EXPECT_TRUE(std::isnan(pa::summarize({}).mean));
}

TEST(Stats, IdenticalValuesHaveAZeroWidthInterval) {
  const pa::Stats s = pa::summarize({0.7, 0.7, 0.7});
  EXPECT_EQ(s.std, 0);
  EXPECT_EQ(s.ci_low, 0.7);
  EXPECT_EQ(s.ci_high, 0.7);
}

TEST(Stats, WelchDifferenceUsesTheSatterthwaiteDegreesOfFreedom) {
  // a: mean 2, variance 1; b: mean 6, variance 4; df = (5/3)^2 / ((1/3)^2/2 + (4/3)^2/2) = 50/17.
  const pa::Difference d = pa::welch_difference(pa::summarize({1, 2, 3}), pa::summarize({4, 6, 8}));
  ASSERT_TRUE(d.valid);
  EXPECT_DOUBLE_EQ(d.mean, -4);
  EXPECT_NEAR(d.df, 50.0 / 17.0, 1e-12);
  EXPECT_NEAR(d.low, -8.15539950318251, 1e-9);
  EXPECT_NEAR(d.high, 0.155399503182506, 1e-9);
}

TEST(Stats, WelchNeedsTwoOnEachSideAndIsExactWithoutSpread) {
  EXPECT_FALSE(pa::welch_difference(pa::summarize({1}), pa::summarize({1, 2})).valid);
  const pa::Difference d = pa::welch_difference(pa::summarize({1, 1}), pa::summarize({0.5, 0.5}));
  ASSERT_TRUE(d.valid);
  EXPECT_EQ(d.low, 0.5);
  EXPECT_EQ(d.high, 0.5);
}

TEST(Stats, TwoSidedPValuesMatchTheClosedForms) {
  // df = 2: P(|T| >= t) = 1 - t / sqrt(2 + t^2); df = 1: 1 - (2/pi) atan(t).
  EXPECT_NEAR(pa::two_sided_p(2 * std::sqrt(3.0), 2), 1 - 2 * std::sqrt(3.0) / std::sqrt(14.0), 1e-12);
  EXPECT_NEAR(pa::two_sided_p(-2 * std::sqrt(3.0), 2), 0.0741799002274485, 1e-12);
  EXPECT_NEAR(pa::two_sided_p(1.0, 1), 0.5, 1e-12);
  EXPECT_EQ(pa::two_sided_p(INFINITY, 3), 0.0);
  EXPECT_EQ(pa::two_sided_p(0.0, 3), 1.0);
  EXPECT_TRUE(std::isnan(pa::two_sided_p(kNaN, 3)));
  EXPECT_NEAR(pa::two_sided_normal_p(1.959963984540054), 0.05, 1e-12);
}

TEST(Stats, WelchDifferenceHasItsPValue) {
  // Equal spreads and sizes: df = 2 (n - 1) = 4, t = -2 / sqrt(2/3) = -2.4495 (mpmath p).
  const pa::Difference d = pa::welch_difference(pa::summarize({1, 2, 3}), pa::summarize({3, 4, 5}));
  EXPECT_NEAR(d.df, 4.0, 1e-12);
  EXPECT_NEAR(d.se, std::sqrt(2.0 / 3.0), 1e-12);
  EXPECT_NEAR(d.p, 0.0704839969102199, 1e-10);
  const pa::Difference exact = pa::welch_difference(pa::summarize({1, 1, 1}), pa::summarize({0.5, 0.5, 0.5}));
  EXPECT_EQ(exact.p, 0.0) << "no spread: the difference is exact";
}

TEST(Stats, PairedDifferenceIsTheOneSampleIntervalOfPerSeedDifferences) {
  // Differences 0.5, 1.0, 1.5: mean 1, sd 0.5, se 0.5 / sqrt(3), t = 2 sqrt(3), df 2.
  const std::vector<double> a = {1.0, 2.0, 3.5}, b = {0.5, 1.0, 2.0};
  const pa::Difference d = pa::paired_difference(a, b);
  ASSERT_TRUE(d.valid);
  EXPECT_EQ(d.n, 3u);
  EXPECT_DOUBLE_EQ(d.mean, 1.0);
  EXPECT_NEAR(d.sd, 0.5, 1e-12);
  EXPECT_NEAR(d.se, 0.5 / std::sqrt(3.0), 1e-12);
  EXPECT_EQ(d.df, 2.0);
  EXPECT_NEAR(d.low, 1 - 4.30265272974946 * 0.5 / std::sqrt(3.0), 1e-9);
  EXPECT_NEAR(d.high, 1 + 4.30265272974946 * 0.5 / std::sqrt(3.0), 1e-9);
  EXPECT_NEAR(d.p, 0.0741799002274485, 1e-12);
  // The same values unpaired: the between-seed spread (sd 1.26 and 0.76) swamps the effect.
  const pa::Difference w = pa::welch_difference(pa::summarize(a), pa::summarize(b));
  EXPECT_DOUBLE_EQ(w.mean, 1.0);
  EXPECT_NEAR(w.p, 0.317219077288343, 1e-9);
  // A pair with a NaN side is left out; fewer than 2 pairs is no test.
  EXPECT_EQ(pa::paired_difference({1, kNaN, 3, 4}, {0, 1, 1, 2}).n, 3u);
  EXPECT_FALSE(pa::paired_difference({1, kNaN}, {0, 1}).valid);
  EXPECT_NEAR(pa::one_sample_p(pa::summarize({0.5, 1.0, 1.5})), 0.0741799002274485, 1e-12);
}

TEST(Stats, WilsonIntervalsMatchKnownValues) {
  const pa::Proportion all3 = pa::wilson_interval(3, 3);
  EXPECT_NEAR(all3.low, 0.438502968244954, 1e-9);
  EXPECT_EQ(all3.high, 1.0);
  const pa::Proportion none5 = pa::wilson_interval(0, 5);
  EXPECT_EQ(none5.low, 0.0);
  EXPECT_NEAR(none5.high, 0.434482464783175, 1e-9);
  const pa::Proportion seven10 = pa::wilson_interval(7, 10);
  EXPECT_NEAR(seven10.low, 0.396778147461145, 1e-9);
  EXPECT_NEAR(seven10.high, 0.892208732593699, 1e-9);
  EXPECT_NEAR(pa::wilson_interval(4, 4).low, 0.510109163545403, 1e-9) << "4 of 4 is the fewest that excludes 1/2";
  EXPECT_TRUE(std::isnan(pa::wilson_interval(0, 0).low));
  // The score test is the one the interval inverts: p < 0.05 exactly when 1/2 is outside.
  EXPECT_NEAR(pa::score_test_p(5, 5), 0.0253473186774683, 1e-12);
  EXPECT_NEAR(pa::score_test_p(4, 4), 0.0455002638963584, 1e-12);
  EXPECT_GT(pa::score_test_p(3, 3), 0.05);
  EXPECT_EQ(pa::score_test_p(3, 6), 1.0);
}

TEST(Stats, MinimumDetectableEffectAgainstAHandComputedCase) {
  // (t(0.975, 4) + t(0.8, 4)) * 0.1 = (2.776445 + 0.940965) * 0.1.
  EXPECT_NEAR(pa::minimum_detectable_effect(0.1, 4, 0.05, 0.8), 0.371740968243298, 1e-9);
  EXPECT_EQ(pa::minimum_detectable_effect(0.0, 0, 0.05, 0.8), 0.0) << "no spread: any effect is detected";
  EXPECT_GT(pa::minimum_detectable_effect(0.1, 4, 0.05 / 3, 0.8), 0.3717) << "a smaller level needs a larger effect";
}

TEST(Stats, SeedsNeededHoldTheSpreadAndGrowNUntilTheEffectIsDetectable) {
  // Paired, sd of differences 1, effect 1: n = 10 ((2.262 + 0.883) / sqrt(10) = 0.995), 9 does not.
  const pa::TestSpread paired{pa::TTest::Paired, 1.0, 0.0, 2};
  EXPECT_EQ(pa::seeds_needed(paired, 1.0, 0.05, 0.8), 10u);
  EXPECT_EQ(pa::seeds_needed(paired, -1.0, 0.05, 0.8), 10u) << "the effect's size, either sign";
  // Welch with sd 1 and 1: df = 2 (n - 1), se = sqrt(2 / n): 17 seeds per side.
  EXPECT_EQ(pa::seeds_needed({pa::TTest::Welch, 1.0, 1.0, 2}, 1.0, 0.05, 0.8), 17u);
  // Welch with sd 2 and 1 at level 0.05 / 3 (mpmath search over n): 55.
  EXPECT_EQ(pa::seeds_needed({pa::TTest::Welch, 2.0, 1.0, 2}, 1.0, 0.05 / 3, 0.8), 55u);
  EXPECT_EQ(pa::seeds_needed(paired, 0.0, 0.05, 0.8), 0u) << "no effect: no number of seeds";
  EXPECT_EQ(pa::seeds_needed(paired, 0.01, 0.05, 0.8), 0u) << "more than 1000";
  double se = 0, df = 0;
  pa::se_and_df({pa::TTest::Pooled, 1.0, 0.0, 4}, 5, se, df);
  EXPECT_NEAR(se, std::sqrt(2.0 / 5.0), 1e-15);
  EXPECT_EQ(df, 16.0);
}
