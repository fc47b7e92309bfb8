#include "widgets/smoothing.h"

#include <cmath>
#include <gtest/gtest.h>

using pha::widgets::debiasedEma;
using pha::widgets::Series;
using pha::widgets::thinMinMax;

TEST(DebiasedEma, ConstantInputStaysConstantFromTheFirstPoint) {
  // Without the debias the first values would be pulled towards 0 (0.1, 0.19, ...).
  auto s = debiasedEma(std::vector<double>(20, 5.0), 0.9);
  for (double v : s) EXPECT_NEAR(v, 5.0, 1e-12);
}

TEST(DebiasedEma, MatchesTheRecurrence) {
  std::vector<double> x = {1, 3, 2, 8, 4};
  const double w = 0.6;
  auto s = debiasedEma(x, w);
  double acc = 0, debias = 1;
  for (size_t i = 0; i < x.size(); ++i) {
    acc = w * acc + (1 - w) * x[i];
    debias *= w;
    EXPECT_NEAR(s[i], acc / (1 - debias), 1e-12) << i;
  }
}

TEST(DebiasedEma, ZeroWeightIsTheRawCurveAndNanIsSkipped) {
  std::vector<double> x = {1, 2, 3};
  EXPECT_EQ(debiasedEma(x, 0.0), x);
  auto s = debiasedEma({NAN, 2.0, NAN, 4.0}, 0.5);
  EXPECT_TRUE(std::isnan(s[0]));
  EXPECT_DOUBLE_EQ(s[1], 2.0);
  EXPECT_DOUBLE_EQ(s[2], 2.0);
  EXPECT_NEAR(s[3], (0.5 * 0.5 * 2.0 + 0.5 * 4.0) / (1 - 0.25), 1e-12);
}

TEST(ThinMinMax, KeepsSpikesAndTheLastPoint) {
  Series in;
  for (int i = 0; i < 100000; ++i) {
    in.x.push_back(i);
    in.y.push_back(i == 54321 ? 100.0 : (i == 7777 ? -50.0 : 1.0));
  }
  in.y.back() = 2.0;
  auto out = thinMinMax(in, 1000);
  EXPECT_LE(out.x.size(), 1001u);
  EXPECT_DOUBLE_EQ(*std::max_element(out.y.begin(), out.y.end()), 100.0);
  EXPECT_DOUBLE_EQ(*std::min_element(out.y.begin(), out.y.end()), -50.0);
  EXPECT_DOUBLE_EQ(out.x.back(), 99999.0);
  EXPECT_DOUBLE_EQ(out.y.back(), 2.0);
  EXPECT_TRUE(std::is_sorted(out.x.begin(), out.x.end()));
}

TEST(ThinMinMax, SmallInputIsReturnedAsIs) {
  Series in{{1, 2, 3}, {4, 5, 6}};
  auto out = thinMinMax(in, 100);
  EXPECT_EQ(out.x, in.x);
  EXPECT_EQ(out.y, in.y);
}
