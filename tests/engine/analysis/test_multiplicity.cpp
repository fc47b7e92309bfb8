// Holm's adjusted p-values against a hand-worked list, and Dunnett's Monte Carlo against the
// exact many-to-one probabilities (numerical integration of the multivariate t with mpmath:
// 0.05021 at |t| = 2.50 with two treatments of 5 against 5, df 12, Dunnett's table value), its
// bounds (raw p <= adjusted <= Bonferroni) and its determinism.
#include <gtest/gtest.h>

#include "nan.h"

#include <cmath>
#include <limits>

#include "analysis/internal/multiplicity.h"
#include "analysis/stats.h"

namespace pa = pha::analysis;

namespace {
}

TEST(Multiplicity, HolmStepsDownAndNeverLetsALaterAdjustedPFall) {
  // Sorted 0.01, 0.03, 0.04, 0.5 with m = 4: 0.04, 0.09, max(0.09, 0.08) = 0.09, 0.5.
  const std::vector<double> adjusted = pa::holm_adjust({0.01, 0.04, 0.03, kNaN, 0.5});
  ASSERT_EQ(adjusted.size(), 5u);
  EXPECT_NEAR(adjusted[0], 0.04, 1e-15);
  EXPECT_NEAR(adjusted[1], 0.09, 1e-15);
  EXPECT_NEAR(adjusted[2], 0.09, 1e-15);
  EXPECT_TRUE(std::isnan(adjusted[3])) << "a row without a test is not in the family";
  EXPECT_NEAR(adjusted[4], 0.5, 1e-15);
  EXPECT_EQ(pa::holm_adjust({0.6, 0.7})[0], 1.0) << "capped at 1 (2 x 0.6)";
  const std::vector<double> bonferroni = pa::bonferroni_adjust({0.01, kNaN, 0.3});
  EXPECT_NEAR(bonferroni[0], 0.02, 1e-15);
  EXPECT_EQ(bonferroni[2], 0.6);
}

TEST(Multiplicity, DunnettMatchesTheExactManyToOneProbability) {
  const double equal = pa::dunnett_adjust({2.50}, {5}, 5, 12)[0];  // k = 1: the t test itself
  EXPECT_NEAR(equal, pa::two_sided_p(2.50, 12), 0.002);
  const std::vector<double> two = pa::dunnett_adjust({2.50, 1.0}, {5, 5}, 5, 12);
  EXPECT_NEAR(two[0], 0.0502119601528566, 0.002) << "Dunnett's table: 2.50 at k = 2, df 12";
  const std::vector<double> unequal = pa::dunnett_adjust({2.1, 2.1}, {4, 6}, 5, 12);
  EXPECT_NEAR(unequal[0], 0.101452357141525, 0.003) << "unequal sizes: the maximum over both";
  EXPECT_EQ(unequal[0], unequal[1]);
  const std::vector<double> three = pa::dunnett_adjust({2.2, 2.2, 2.2}, {3, 3, 3}, 3, 8);
  EXPECT_NEAR(three[0], 0.136811870251482, 0.003);
}

TEST(Multiplicity, DunnettLiesBetweenRawAndBonferroniAndIsDeterministic) {
  const std::vector<double> control = {3.0, 3.5, 2.8, 3.2}, t1 = {2.0, 2.3, 1.4, 2.1}, t2 = {2.9, 3.3, 2.6, 3.4},
                            t3 = {3.6, 3.1, 2.4, 3.9};
  const pa::DunnettResult a = pa::dunnett(control, {t1, t2, t3});
  ASSERT_TRUE(a.valid);
  EXPECT_EQ(a.df, 16 - 4);
  // Pooled over the four groups: sum of squares / (N - groups).
  double ss = 0;
  for (const auto* g : {&control, &t1, &t2, &t3}) {
    const pa::Stats s = pa::summarize(*g);
    ss += s.std * s.std * 3;
  }
  EXPECT_NEAR(a.pooled_sd, std::sqrt(ss / 12), 1e-12);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(a.p[i], pa::two_sided_p(a.effect[i] / a.se[i], 12), 1e-12);
    EXPECT_GE(a.p_adjusted[i], a.p[i]) << i;
    EXPECT_LE(a.p_adjusted[i], std::min(1.0, 3 * a.p[i])) << i;
  }
  EXPECT_GT(a.p_adjusted[0], a.p[0]) << "three comparisons cost something";
  EXPECT_LT(a.p_adjusted[0], 3 * a.p[0]) << "and less than Bonferroni (the t's are correlated)";
  const pa::DunnettResult b = pa::dunnett(control, {t1, t2, t3});
  EXPECT_EQ(a.p_adjusted, b.p_adjusted) << "seeded: the same p on every run";
  const pa::DunnettResult other = pa::dunnett(control, {t1, t2, t3}, pa::kDunnettDraws, 7);
  EXPECT_NE(other.p_adjusted[1], a.p_adjusted[1]) << "the seed matters (the draws are not a constant)";
  EXPECT_NEAR(other.p_adjusted[1], a.p_adjusted[1], 0.005);
  EXPECT_FALSE(pa::dunnett(control, {{1.0}}).valid) << "a group of one value has no variance";
}
