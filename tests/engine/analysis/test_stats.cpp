// Replica statistics against values computed by hand (t quantiles from the incomplete beta
// function, checked with mpmath to 30 digits): n = 1, n = 2, n = 4, NaN handling, Welch.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analysis/stats.h"

namespace pa = pha::analysis;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
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
