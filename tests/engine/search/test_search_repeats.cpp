// Repeated searches against the grid on a synthetic objective with a known best trial: the pick,
// its regret and compute, the top-2 rate as the noise grows past the gaps, the pooled seed
// spread, and rank correlations checked by hand.
#include "search/search_repeats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "core/error.h"

using pha::core::MetricGoal;
using pha::search::RepeatProblem;
using pha::search::RepeatSetup;
using pha::search::RepeatStudy;
using pha::search::run_repeats;
using pha::search::spearman;

namespace {

// A deterministic standard normal per (trial, resource, seed): splitmix64 + Box-Muller.
double normal(int trial, double resource, std::uint64_t seed) {
  std::uint64_t s = (static_cast<std::uint64_t>(trial) << 40) ^ (static_cast<std::uint64_t>(resource) << 8) ^ seed;
  auto next = [&s] {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<double>((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
  };
  const double u1 = std::max(next(), 1e-300), u2 = next();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// 9 trials; trial 4 is the best at every budget, each other trial 0.01 worse per step of |t - 4|
// and 0.001 x t more (no ties: 3 is second, 5 third); shorter budgets add the same offset to all.
double truth(int trial, double resource) {
  return 1.0 + 0.01 * std::abs(trial - 4) + 0.001 * trial + 1.0 / std::sqrt(resource);
}

RepeatSetup ladder(int replicas) {
  RepeatSetup s;
  s.budget.min = 50;
  s.budget.max = 450;
  s.budget.eta = 3;
  s.objective = {"val/bpb", pha::core::MetricGoal::Minimize};
  s.replicas = replicas;
  s.grid_trials = 9;
  s.first_seed = 1;
  return s;
}

RepeatProblem noisy(double sigma) {
  RepeatProblem p;
  p.rung_value = [sigma](int t, int, double r, std::uint64_t seed) { return truth(t, r) + sigma * normal(t, r, seed); };
  p.full_value = [](int t) { return truth(t, 450); };
  return p;
}

TEST(SearchRepeats, WithNoiseFarBelowTheGapsThePickIsAlwaysTheBest) {
  const RepeatStudy st = run_repeats(ladder(2), 10, noisy(1e-5));
  ASSERT_EQ(st.repeats.size(), 10u);
  EXPECT_EQ(st.grid_order.front(), 4);
  for (const auto& r : st.repeats) {
    EXPECT_EQ(r.pick, 4);
    EXPECT_EQ(r.pick_rank, 1);
    EXPECT_DOUBLE_EQ(r.regret, 0.0);
    // 9 x 2 seeds x 50 + 3 x 2 x 150 + the lone finalist's 1 seed x 450 (nothing left to decide).
    EXPECT_DOUBLE_EQ(r.compute, 2250.0);
    ASSERT_EQ(r.rungs.size(), 3u);
    EXPECT_EQ(r.rungs[0].trials.size(), 9u);
    EXPECT_EQ(r.rungs[1].trials.size(), 3u);
    EXPECT_EQ(r.rungs[2].seeds, 1);
    EXPECT_EQ(r.rungs[0].seeds, 2);
    EXPECT_NEAR(r.rungs[0].spearman, 1.0, 1e-12) << "the rung's order is the grid's";
  }
  EXPECT_EQ(st.repeats[1].seeds, (std::vector<std::uint64_t>{3, 4})) << "each repeat its own seeds";
  EXPECT_DOUBLE_EQ(st.grid_compute, 9 * 450.0);
  EXPECT_DOUBLE_EQ(st.top2_rate, 1.0);
  EXPECT_DOUBLE_EQ(st.median_regret, 0.0);
  EXPECT_DOUBLE_EQ(st.median_compute_fraction, 2250.0 / 4050.0);
  EXPECT_NEAR(st.seed_sd, 1e-5, 5e-6);
  EXPECT_EQ(st.equal_compute_trials, 5) << "floor(0.556 x 9) full-budget runs for the same compute";
  EXPECT_NEAR(st.equal_compute_chance_top2, 1.0 - (4.0 * 3.0) / (9.0 * 8.0), 1e-12);
}

TEST(SearchRepeats, NoiseLargerThanTheGapsLowersTheTop2RateAndThePooledSdMeasuresIt) {
  const double sigma = 0.05;  // five times the gap between neighbours
  const RepeatStudy st = run_repeats(ladder(2), 20, noisy(sigma));
  EXPECT_LT(st.top2_rate, 1.0);
  EXPECT_GT(st.median_regret, 0.0);
  EXPECT_EQ(st.rung_df[0], 20 * 9) << "9 trials x (2 - 1) per repeat at rung 0";
  EXPECT_NEAR(st.rung_pooled_sd[0], sigma, 0.2 * sigma);
  EXPECT_NEAR(st.seed_sd, st.rung_pooled_sd[1], 1e-15) << "the highest rung with replicas";
  EXPECT_LT(st.rung_spearman[0], 0.9);
  for (const auto& r : st.repeats) EXPECT_GE(r.regret, 0.0);
  // The not-worse rule keeps more trials when the noise hides the gaps, and costs compute.
  RepeatSetup tied = ladder(2);
  tied.promotion.not_worse = true;
  const RepeatStudy wide = run_repeats(tied, 20, noisy(sigma));
  EXPECT_GT(wide.median_compute_fraction, st.median_compute_fraction);
  EXPECT_GE(wide.top2_rate, st.top2_rate);
  int kept = 0;
  for (const auto& r : wide.repeats) kept += static_cast<int>(r.rungs[0].kept_close.size());
  EXPECT_GT(kept, 0);
}

TEST(SearchRepeats, AShortRungThatFavoursTheWrongTrialShowsInItsRankCorrelation) {
  // Trial 0 is the worst at the full budget but the best at 50 steps (a high learning rate).
  RepeatProblem p = noisy(0.0);
  p.rung_value = [](int t, int, double r, std::uint64_t) { return truth(t, r) - (t == 0 ? 0.2 * (50 / r) * (50 / r) : 0.0); };
  const RepeatStudy st = run_repeats(ladder(1), 1, p);
  const auto& r0 = st.repeats[0].rungs[0];
  std::vector<double> full;
  for (int t : r0.trials) full.push_back(truth(t, 450));
  EXPECT_DOUBLE_EQ(r0.spearman, spearman(r0.means, full));
  EXPECT_LT(r0.spearman, 0.7);
  EXPECT_EQ(r0.trials.front(), 0);
  EXPECT_EQ(st.repeats[0].pick, 4) << "rung 1 (150 steps) still sorts it out";
  EXPECT_TRUE(std::isnan(st.seed_sd)) << "one seed per trial: no spread measured";
}

TEST(SearchRepeats, ARandomSamplerDrawsDistinctGridTrialsPerRepeat) {
  RepeatSetup s = ladder(1);
  s.sampled_trials = 3;
  s.sampler_seed = 7;
  const RepeatStudy st = run_repeats(s, 5, noisy(0.0));
  for (const auto& r : st.repeats) {
    ASSERT_EQ(r.rungs[0].trials.size(), 3u);
    EXPECT_NE(r.rungs[0].trials[0], r.rungs[0].trials[1]);
    EXPECT_EQ(r.pick, r.rungs[0].trials.front()) << "without noise the best drawn trial";
  }
  EXPECT_NE(st.repeats[0].rungs[0].trials, st.repeats[1].rungs[0].trials);
  s.sampled_trials = 10;
  EXPECT_THROW(run_repeats(s, 1, noisy(0.0)), pha::core::Error);
  s.sampled_trials = 0;
  s.budget.brackets = 2;
  EXPECT_THROW(run_repeats(s, 1, noisy(0.0)), pha::core::Error);
}

TEST(SearchRepeats, SpearmanOnHandMadeCases) {
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  EXPECT_NEAR(spearman({1, 2, 3, 4}, {1, 3, 2, 4}), 0.8, 1e-12) << "1 - 6 x 2 / (4 x 15)";
  EXPECT_NEAR(spearman({1, 1, 2}, {1, 2, 3}), 1.5 / std::sqrt(3.0), 1e-12) << "average ranks for ties";
  EXPECT_TRUE(std::isnan(spearman({1, 1, 1}, {1, 2, 3})));
  EXPECT_DOUBLE_EQ(pha::search::median({3, 1, 2, NAN}), 2.0);
  EXPECT_DOUBLE_EQ(pha::search::median({4, 1, 2, 3}), 2.5);
}

}  // namespace
