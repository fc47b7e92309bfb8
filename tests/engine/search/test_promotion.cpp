// Promotion: means over seeds under the metric's direction, failures never promoted, the same
// decision whatever the order of the outcomes, fronts and crowding for two objectives.
#include "search/promotion.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

using pha::core::MetricGoal;
using pha::search::Decision;
using pha::search::Objective;
using pha::search::TrialOutcome;
using pha::search::promote;

namespace {

const std::vector<Objective> kBpb = {{"val/bpb", pha::core::MetricGoal::Minimize}};
const double kInf = std::numeric_limits<double>::infinity();

TrialOutcome outcome(int trial, std::vector<double> replicas) { return {trial, {std::move(replicas)}, false, ""}; }

std::vector<int> order(const Decision& d) {
  std::vector<int> out;
  for (const auto& r : d.ranking) out.push_back(r.trial);
  return out;
}

TEST(Promotion, RanksByMeanWithTiesToTheLowerIndex) {
  const Decision d = promote({outcome(0, {3.0}), outcome(3, {2.5}), outcome(1, {2.5}), outcome(2, {4.0})}, kBpb, 2);
  EXPECT_EQ(order(d), (std::vector<int>{1, 3, 0, 2}));
  EXPECT_EQ(d.promoted, (std::vector<int>{1, 3}));
  EXPECT_EQ(d.stopped, (std::vector<int>{0, 2}));
  EXPECT_EQ(d.why.at(1), "rank 1 of 4 by val/bpb 2.5 (1 seed): promoted (top 2)");
  EXPECT_EQ(d.why.at(2), "rank 4 of 4 by val/bpb 4 (1 seed): stopped (top 2 promoted)");
  EXPECT_EQ(d.ranking[0].front, 0);
}

TEST(Promotion, FollowsTheMetricDirection) {
  const std::vector<Objective> accuracy = {{"val/accuracy", pha::core::MetricGoal::Maximize}};
  const Decision d = promote({outcome(0, {0.3}), outcome(1, {0.9}), outcome(2, {0.5})}, accuracy, 1);
  EXPECT_EQ(order(d), (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(d.promoted, (std::vector<int>{1}));
}

TEST(Promotion, FailedTrialsAreNeverPromoted) {
  std::vector<TrialOutcome> outs = {outcome(0, {3.0}), {1, {{0.1}}, true, "diverged"}, outcome(2, {std::nan("")}),
                                    outcome(3, {kInf}), {4, {}, false, ""}};
  const Decision d = promote(outs, kBpb, 3);
  EXPECT_EQ(d.promoted, (std::vector<int>{0})) << "fewer than keep when fewer did not fail";
  EXPECT_EQ(order(d), (std::vector<int>{0, 1, 2, 3, 4})) << "failed last, by index";
  EXPECT_EQ(d.stopped, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(d.why.at(1), "failed: diverged");
  EXPECT_EQ(d.why.at(2), "failed: val/bpb is nan in replica 1");
  EXPECT_EQ(d.why.at(3), "failed: val/bpb is inf in replica 1");
  EXPECT_EQ(d.why.at(4), "failed: no value of val/bpb");
  EXPECT_TRUE(d.ranking[1].failed);
  EXPECT_EQ(d.ranking[1].reason, "diverged");
}

TEST(Promotion, SeedMeansDecideAgainstOneLuckySeed) {
  const Decision d = promote({outcome(0, {3.0, 3.6}), outcome(1, {3.2, 3.2}), outcome(2, {3.1})}, kBpb, 1);
  EXPECT_EQ(d.promoted, (std::vector<int>{1})) << "trial 0 has the best single run but the worse mean";
  EXPECT_EQ(order(d), (std::vector<int>{1, 0, 2}));
  EXPECT_DOUBLE_EQ(d.ranking[1].mean[0], 3.3);
  EXPECT_NEAR(d.ranking[1].stdev[0], std::sqrt(0.18), 1e-12) << "sample standard deviation";
  EXPECT_EQ(d.ranking[0].stdev[0], 0.0);
  EXPECT_EQ(d.why.at(1), "rank 1 of 2 by mean val/bpb 3.2 (sd 0, 2 seeds): promoted (top 1)");
  EXPECT_EQ(d.why.at(0), "rank 2 of 2 by mean val/bpb 3.3 (sd 0.4243, 2 seeds): stopped (top 1 promoted)");
  EXPECT_EQ(d.why.at(2), "failed: incomplete: 1 of 2 replicas");
}

TEST(Promotion, TheOrderOfTheOutcomesDoesNotMatter) {
  std::vector<TrialOutcome> outs = {outcome(0, {3.0, 3.1}), outcome(1, {2.9, 3.3}), outcome(2, {3.2, 3.2}),
                                    outcome(3, {3.1}),      outcome(4, {3.0, 3.1}), {5, {{1.0, 1.0}}, true, "killed"}};
  const Decision reference = promote(outs, kBpb, 2);
  EXPECT_EQ(reference.promoted, (std::vector<int>{0, 4})) << "equal means: the lower index first";
  std::vector<size_t> perm = {0, 1, 2, 3, 4, 5};
  int checked = 0;
  while (std::next_permutation(perm.begin(), perm.end())) {
    std::vector<TrialOutcome> shuffled;
    for (size_t i : perm) shuffled.push_back(outs[i]);
    const Decision d = promote(shuffled, kBpb, 2);
    ASSERT_EQ(d.promoted, reference.promoted);
    ASSERT_EQ(d.stopped, reference.stopped);
    ASSERT_EQ(order(d), order(reference));
    ASSERT_EQ(d.why, reference.why);
    for (size_t i = 0; i < d.ranking.size(); ++i) ASSERT_EQ(d.ranking[i].mean, reference.ranking[i].mean);
    ++checked;
  }
  EXPECT_EQ(checked, 719);
}

TEST(Promotion, RefusesDuplicatesAndBadArguments) {
  EXPECT_THROW(promote({outcome(1, {3.0}), outcome(1, {3.1})}, kBpb, 1), pha::core::Error);
  EXPECT_THROW(promote({outcome(1, {3.0})}, kBpb, -1), pha::core::Error);
  EXPECT_THROW(promote({outcome(1, {3.0})}, {}, 1), pha::core::Error);
  const Decision none = promote({outcome(0, {3.0})}, kBpb, 0);
  EXPECT_TRUE(none.promoted.empty());
  EXPECT_EQ(none.why.at(0), "rank 1 of 1 by val/bpb 3 (1 seed): stopped (none promoted)");
}

// A(1,5) B(2,3) C(3,2.5) D(5,1) are non-dominated; E(2.5,4) is dominated by B; F(4,4) by B and E.
const std::vector<std::vector<double>> kPoints = {{1, 5}, {2, 3}, {3, 2.5}, {5, 1}, {2.5, 4}, {4, 4}};

TEST(Fronts, NonDominatedSortingOfAHandMadeSet) {
  EXPECT_EQ(pha::search::nondominated_fronts(kPoints, {pha::core::MetricGoal::Minimize, pha::core::MetricGoal::Minimize}),
            (std::vector<int>{1, 1, 1, 1, 2, 3}));
  // Maximising y: A beats everyone; then B and E; then C and F (E beats F, B beats C); then D.
  EXPECT_EQ(pha::search::nondominated_fronts(kPoints, {pha::core::MetricGoal::Minimize, pha::core::MetricGoal::Maximize}),
            (std::vector<int>{1, 2, 3, 4, 2, 3}));
  EXPECT_EQ(pha::search::nondominated_fronts({{1, 1}, {1, 1}}, {pha::core::MetricGoal::Minimize, pha::core::MetricGoal::Minimize}),
            (std::vector<int>{1, 1})) << "equal points do not dominate each other";
  EXPECT_THROW(pha::search::nondominated_fronts(kPoints, {pha::core::MetricGoal::Minimize, pha::core::MetricGoal::None}), pha::core::Error);
}

TEST(Fronts, CrowdingDistanceOfTheFirstFront) {
  // x: A1 B2 C3 D5 (span 4): B (3-1)/4, C (5-2)/4; y: D1 C2.5 B3 A5 (span 4): C (3-1)/4, B (5-2.5)/4.
  const auto d = pha::search::crowding_distances({kPoints[0], kPoints[1], kPoints[2], kPoints[3]});
  EXPECT_EQ(d[0], kInf);
  EXPECT_DOUBLE_EQ(d[1], 0.5 + 0.625);
  EXPECT_DOUBLE_EQ(d[2], 0.75 + 0.5);
  EXPECT_EQ(d[3], kInf);
  EXPECT_EQ(pha::search::crowding_distances({{1, 2}, {3, 4}}), (std::vector<double>{kInf, kInf}));
}

TEST(Fronts, TwoObjectivesRankByFrontThenCrowdingThenIndex) {
  const std::vector<Objective> two = {{"val/bpb", pha::core::MetricGoal::Minimize}, {"params", pha::core::MetricGoal::Minimize}};
  std::vector<TrialOutcome> outs;
  for (size_t i = 0; i < kPoints.size(); ++i)
    outs.push_back({static_cast<int>(i), {{kPoints[i][0]}, {kPoints[i][1]}}, false, ""});
  const Decision d = promote(outs, two, 3);
  EXPECT_EQ(order(d), (std::vector<int>{0, 3, 2, 1, 4, 5})) << "the ends, then C (1.25) before B (1.125)";
  EXPECT_EQ(d.promoted, (std::vector<int>{0, 3, 2}));
  EXPECT_EQ(d.ranking[2].front, 1);
  EXPECT_DOUBLE_EQ(d.ranking[2].crowding, 1.25);
  EXPECT_EQ(d.ranking[4].front, 2);
  EXPECT_EQ(d.why.at(2), "rank 3 of 6, front 1 of 3 by val/bpb 3 and params 2.5 (crowding 1.25, 1 seed): promoted (top 3)");
  EXPECT_EQ(d.why.at(5), "rank 6 of 6, front 3 of 3 by val/bpb 4 and params 4 (crowding inf, 1 seed): stopped (top 3 promoted)");
}

}  // namespace

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// sd 0.01414 within every trial (pairs 0.02 apart), pooled over 4 trials: df 4, t(0.95, 4) = 2.132.
std::vector<TrialOutcome> close_rung() {
  return {outcome(0, {1.00, 1.02}), outcome(1, {1.01, 1.03}), outcome(2, {1.50, 1.52}), outcome(3, {1.02, 1.00})};
}

TEST(PromotionNotWorse, KeepsEveryTrialNotSignificantlyWorseThanTheLeader) {
  pha::search::PromotionRule rule;
  rule.not_worse = true;
  rule.max_factor = 0;  // no cap
  const Decision d = promote(close_rung(), kBpb, 1, rule);
  EXPECT_EQ(d.promoted, (std::vector<int>{0, 3, 1})) << "the top 1, then the tie and t1 (t 0.71) in rank order";
  EXPECT_EQ(d.kept_close, (std::vector<int>{3, 1}));
  EXPECT_EQ(d.stopped, (std::vector<int>{2}));
  EXPECT_EQ(d.df, 4);
  EXPECT_NEAR(d.pooled_sd, std::sqrt(0.0002), 1e-12);
  EXPECT_NEAR(d.t_critical, 2.131847, 1e-5);
  EXPECT_TRUE(has(d.why.at(1), "promoted (not significantly worse than t0: t 0.7071 <= 2.132, pooled sd 0.01414, df 4)"))
      << d.why.at(1);
  EXPECT_TRUE(has(d.why.at(2), "stopped (top 1 promoted) (significantly worse than t0: t 35.36 > 2.132)")) << d.why.at(2);
  EXPECT_EQ(d.why.at(0), "rank 1 of 4 by mean val/bpb 1.01 (sd 0.01414, 2 seeds): promoted (top 1)");
}

TEST(PromotionNotWorse, AtMostMaxFactorTimesTheTopGoOn) {
  pha::search::PromotionRule rule;
  rule.not_worse = true;  // max_factor 2 by default: 2 x the top 1
  const Decision d = promote(close_rung(), kBpb, 1, rule);
  EXPECT_EQ(d.promoted, (std::vector<int>{0, 3}));
  EXPECT_EQ(d.kept_close, (std::vector<int>{3}));
  EXPECT_EQ(d.stopped, (std::vector<int>{1, 2}));
  EXPECT_TRUE(has(d.why.at(1), "stopped (top 1 promoted) (not significantly worse than t0: t 0.7071 <= 2.132, but at most 2 go on)"))
      << d.why.at(1);
}

TEST(PromotionNotWorse, OffByDefaultWithoutReplicasAndFollowsTheDirection) {
  EXPECT_EQ(promote(close_rung(), kBpb, 1).promoted, (std::vector<int>{0})) << "the rule is opt-in";
  pha::search::PromotionRule rule;
  rule.not_worse = true;
  const Decision one_seed = promote({outcome(0, {1.0}), outcome(1, {1.0001})}, kBpb, 1, rule);
  EXPECT_EQ(one_seed.promoted, (std::vector<int>{0})) << "no replicas, no spread to test against";
  EXPECT_EQ(one_seed.df, 0);
  EXPECT_TRUE(std::isnan(one_seed.pooled_sd));
  const std::vector<Objective> accuracy = {{"val/accuracy", pha::core::MetricGoal::Maximize}};
  const Decision d = promote({outcome(0, {0.90, 0.92}), outcome(1, {0.89, 0.91}), outcome(2, {0.50, 0.52})}, accuracy, 1, rule);
  EXPECT_EQ(d.promoted, (std::vector<int>{0, 1})) << "t1 is 0.01 below the leader, within the spread";
  rule.alpha = 0.0;
  EXPECT_THROW(promote(close_rung(), kBpb, 1, rule), pha::core::Error);
}

}  // namespace
