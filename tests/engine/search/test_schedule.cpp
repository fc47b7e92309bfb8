// Rungs: successive halving and the Hyperband table of Li et al. (2018), computed by hand.
#include "search/schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "core/error.h"

using pha::search::Bracket;
using pha::search::Budget;

namespace {

Budget budget(double min, double max, int eta, int brackets = 1) {
  Budget b;
  b.min = min, b.max = max, b.eta = eta, b.brackets = brackets;
  return b;
}

// (resource, trials) per rung.
std::vector<std::pair<double, int>> rungs(const Bracket& b) {
  std::vector<std::pair<double, int>> out;
  for (const auto& r : b.rungs) out.emplace_back(r.resource, r.trials);
  return out;
}

using Rungs = std::vector<std::pair<double, int>>;

TEST(Schedule, SuccessiveHalving) {
  auto b = pha::search::hyperband_brackets(budget(50, 450, 3), 9);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].index, 2);
  EXPECT_EQ(b[0].trials, 9);
  EXPECT_EQ(rungs(b[0]), (Rungs{{50, 9}, {150, 3}, {450, 1}}));
  EXPECT_EQ(b[0].rungs[2].index, 2);
  b = pha::search::hyperband_brackets(budget(100, 1000, 3), 9);
  EXPECT_EQ(rungs(b[0]), (Rungs{{100, 9}, {300, 3}, {1000, 1}})) << "the last rung is capped at max";
  b = pha::search::hyperband_brackets(budget(50, 450, 3), 2);
  EXPECT_EQ(rungs(b[0]), (Rungs{{50, 2}, {150, 1}, {450, 1}})) << "never fewer than one trial";
  b = pha::search::hyperband_brackets(budget(50, 50, 3), 4);
  EXPECT_EQ(rungs(b[0]), (Rungs{{50, 4}})) << "min == max: one rung";
  b = pha::search::hyperband_brackets(budget(10, 1000, 10), 27);
  EXPECT_EQ(rungs(b[0]), (Rungs{{10, 27}, {100, 2}, {1000, 1}}));
  EXPECT_THROW(pha::search::hyperband_brackets(budget(50, 450, 3), 0), pha::core::Error);
}

TEST(Schedule, HyperbandTableOfThePaper) {
  const auto b = pha::search::hyperband_brackets(budget(1, 81, 3, 5), 0);
  ASSERT_EQ(b.size(), 5u);
  EXPECT_EQ(b[0].index, 4);
  EXPECT_EQ(rungs(b[0]), (Rungs{{1, 81}, {3, 27}, {9, 9}, {27, 3}, {81, 1}}));
  EXPECT_EQ(b[1].index, 3);
  EXPECT_EQ(rungs(b[1]), (Rungs{{3, 34}, {9, 11}, {27, 3}, {81, 1}}));
  EXPECT_EQ(rungs(b[2]), (Rungs{{9, 15}, {27, 5}, {81, 1}}));
  EXPECT_EQ(rungs(b[3]), (Rungs{{27, 8}, {81, 2}}));
  EXPECT_EQ(b[4].index, 0);
  EXPECT_EQ(rungs(b[4]), (Rungs{{81, 5}}));
  EXPECT_EQ(b[1].trials, 34);
  const auto two = pha::search::hyperband_brackets(budget(1, 81, 3, 2), 0);
  ASSERT_EQ(two.size(), 2u) << "the most exploratory brackets first";
  EXPECT_EQ(two[1].index, 3);
}

TEST(Schedule, ResourcesAreIntegersForStepsAndTokensOnly) {
  Budget b = budget(10, 100, 3, 2);  // s_max = 2: r = 100 / 9, 100 / 3
  auto brackets = pha::search::hyperband_brackets(b, 0);
  EXPECT_EQ(rungs(brackets[0]), (Rungs{{11, 9}, {33, 3}, {100, 1}}));
  EXPECT_EQ(rungs(brackets[1]), (Rungs{{33, 5}, {100, 1}}));
  b.resource = "flops";
  brackets = pha::search::hyperband_brackets(b, 0);
  EXPECT_DOUBLE_EQ(brackets[0].rungs[0].resource, 100.0 / 9);
  EXPECT_DOUBLE_EQ(brackets[0].rungs[2].resource, 100.0);
  b = budget(0.2, 0.6, 3);
  b.resource = "tokens";
  EXPECT_EQ(rungs(pha::search::hyperband_brackets(b, 3)[0]), (Rungs{{1, 3}, {1, 1}})) << "never 0";
}

TEST(Schedule, RefusesMoreBracketsThanRungs) {
  EXPECT_EQ(pha::search::max_rung(budget(50, 450, 3)), 2);
  EXPECT_EQ(pha::search::max_rung(budget(1, 81, 3)), 4);
  try {
    pha::search::hyperband_brackets(budget(50, 450, 3, 4), 0);
    ADD_FAILURE() << "no error";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), "search.budget.brackets");
    EXPECT_NE(std::string(e.what()).find("allowed: 1 to 3"), std::string::npos) << e.what();
  }
}

}  // namespace
