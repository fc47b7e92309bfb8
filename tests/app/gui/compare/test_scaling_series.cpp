// The Scaling tab's data without a window (app/gui/compare/scaling_series.h): series per variant,
// each size at its best setting with its seeds' spread, a fit from 3 sizes, the crossover of two
// fitted series and the summary's lines.
#include <cmath>

#include <gtest/gtest.h>

#include "gui/compare/scaling_series.h"

using pha::gui::ScalingInput;
using pha::gui::scalingView;

TEST(ScalingSeries, EachSizeAtItsBestSettingFittedFromThreeSizesAndTheCrossoverFound) {
  std::vector<ScalingInput> in;
  // a: L = 1.5 + 40 N^-0.3, b: L = 1.9 + 10 N^-0.3, two seeds each (+/- 0.002): they cross at
  // N = 75^(1/0.3) = 1.75e6. c: two sizes, drawn and not fitted.
  for (double n : {1e4, 3e4, 1e5, 3e5, 1e6})
    for (double noise : {-0.002, 0.002}) {
      in.push_back({"a", "a-" + std::to_string(n), n, 1.5 + 40 * std::pow(n, -0.3) + noise});
      in.push_back({"b", "b-" + std::to_string(n), n, 1.9 + 10 * std::pow(n, -0.3) - noise});
    }
  in.push_back({"c", "c-1", 1e4, 3.0});
  in.push_back({"c", "c-2", 3e4, 2.9});
  const auto view = scalingView(in, "val/loss");
  ASSERT_EQ(view.series.size(), 3u);
  EXPECT_EQ(view.fitted, 2);
  EXPECT_EQ(view.series[0].name, "a");
  EXPECT_EQ(view.series[1].first_input, 1u) << "b starts at the second input (its colour's run)";
  ASSERT_EQ(view.series[0].x.size(), 5u);
  EXPECT_NEAR(view.series[0].mean[0], 1.5 + 40 * std::pow(1e4, -0.3), 1e-12);
  EXPECT_NEAR(view.series[0].err[0], 0.002 * std::sqrt(2.0), 1e-9) << "the two seeds' std";
  EXPECT_TRUE(view.series[0].fit.ok);
  EXPECT_NEAR(view.series[0].fit.alpha, 0.3, 0.05);
  EXPECT_FALSE(view.series[2].fit.ok);
  EXPECT_EQ(view.series[2].err[0], 0.0) << "one seed: no bar";
  EXPECT_DOUBLE_EQ(view.x_lo, 1e4);
  EXPECT_DOUBLE_EQ(view.x_hi, 1e6);
  std::string all;
  for (const auto& l : view.lines) all += l + "\n";
  EXPECT_NE(all.find("a vs b: fitted curves cross at 1.7"), std::string::npos) << all;
  EXPECT_NE(all.find("c: 2 size(s); a fit needs 3 or more"), std::string::npos) << all;
  EXPECT_EQ(all.find("settings (a learning-rate grid)"), std::string::npos) << "one setting per size: no note";
}

TEST(ScalingSeries, SettingsOfOneSizeAreNotAveragedTheBestIsDrawnAndTheOthersNamed) {
  // Two learning rates at each size, two seeds each: the point is the better rate's mean.
  std::vector<ScalingInput> in;
  for (double n : {1e4, 1e5})
    for (double noise : {-0.01, 0.01}) {
      in.push_back({"pha", "lr=0.001", n, 3.0 + noise});
      in.push_back({"pha", "lr=0.01", n, 2.0 + noise});
    }
  const auto view = scalingView(in, "val/loss");
  ASSERT_EQ(view.series.size(), 1u);
  EXPECT_EQ(view.series[0].mean, (std::vector<double>{2.0, 2.0}));
  std::string all;
  for (const auto& l : view.lines) all += l + "\n";
  EXPECT_NE(all.find("pha at 1e+04: 2 settings; the point is the best on final val/loss, lr=0.01 2 (n=2); not used: "
                     "lr=0.001 3 (n=2)"),
            std::string::npos)
      << all;
}
