#include <cmath>
// Accuracy metrics: micro, macro (mean over classes) and exact match, on hand-made cases.
#include <gtest/gtest.h>

#include "core/error.h"
#include "data/batch.h"
#include "data/metrics.h"

using pha::data::kIgnore;

TEST(Metrics, MicroMacroAndExactMatchDiffer) {
  // Two sequences of T = 4. Class 7 appears 3 times (all right), class 9 once (wrong).
  std::vector<int32_t> targets = {7, kIgnore, 7, kIgnore, 7, 9, kIgnore, kIgnore};
  std::vector<int32_t> preds = {7, 1, 7, 2, 7, 8, 3, 3};
  auto r = pha::data::accuracy(preds, targets, 4);
  EXPECT_EQ(r.counted, 4);
  EXPECT_DOUBLE_EQ(r.micro, 3.0 / 4.0);
  EXPECT_DOUBLE_EQ(r.macro, (1.0 + 0.0) / 2.0);
  EXPECT_DOUBLE_EQ(r.exact_match, 0.5);
  EXPECT_EQ(r.classes, 2);
  EXPECT_DOUBLE_EQ(pha::data::micro_accuracy(preds, targets), 0.75);
  EXPECT_DOUBLE_EQ(pha::data::macro_accuracy(preds, targets), 0.5);
  EXPECT_DOUBLE_EQ(pha::data::exact_match(preds, targets, 4), 0.5);
}

TEST(Metrics, IgnoredPositionsNeverCount) {
  std::vector<int32_t> targets = {kIgnore, kIgnore, 3};
  std::vector<int32_t> preds = {5, 5, 3};
  EXPECT_DOUBLE_EQ(pha::data::micro_accuracy(preds, targets), 1.0);
  auto r = pha::data::accuracy(preds, targets, 1);
  EXPECT_EQ(r.sequences, 1) << "sequences with nothing counted are left out of exact match";
  EXPECT_DOUBLE_EQ(r.exact_match, 1.0);
}

TEST(Metrics, SizeMismatchIsAnError) {
  EXPECT_THROW(pha::data::accuracy({1, 2}, {1}, 1), pha::core::Error);
  EXPECT_THROW(pha::data::accuracy({1, 2, 3}, {1, 2, 3}, 2), pha::core::Error);
}

// The ratio estimator's standard error (Cochran 1977, 6.3), computed by hand below.
TEST(Metrics, RatioStandardErrorMatchesTheHandComputedFormula) {
  const std::vector<double> num{1, 2, 3}, den{2, 2, 2};
  // R = 6 / 6 = 1; residuals num - R den = {-1, 0, 1}; sum of squares 2; n (n - 1) = 6;
  // sqrt(2 / 6) / mean(den) = 0.57735 / 2.
  EXPECT_NEAR(pha::data::ratio_standard_error(num, den), std::sqrt(2.0 / 6.0) / 2.0, 1e-12);
  EXPECT_TRUE(std::isnan(pha::data::ratio_standard_error({1}, {2})));
  EXPECT_TRUE(std::isnan(pha::data::ratio_standard_error({1, 2}, {0, 0})));
  EXPECT_EQ(pha::data::ratio_standard_error({1, 2}, {1, 2}), 0.0) << "every unit at the same ratio";
}

// Accuracy's standard error is over sequences, not positions: two sequences, one all right and
// one all wrong (4 counted positions each): micro 0.5, SE sqrt((2^2 + 2^2) / 2) / 4 = 0.5.
TEST(Metrics, AccuracyStandardErrorIsOverSequences) {
  const std::vector<int32_t> targets{1, 2, 3, 4, 1, 2, 3, 4};
  const std::vector<int32_t> predictions{1, 2, 3, 4, 0, 0, 0, 0};
  const auto r = pha::data::accuracy(predictions, targets, 4);
  EXPECT_DOUBLE_EQ(r.micro, 0.5);
  EXPECT_NEAR(r.micro_se, 0.5, 1e-12);
}
