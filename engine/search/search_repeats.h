// Is the search's pick right, and how often? N independent successive-halving searches of one
// grid of trials (each repeat its own replica seeds and, with a random sampler, its own draw of
// trials), each judged against the exhaustive grid trained at the full budget: per repeat the
// pick, its rank in the grid, its regret and the compute spent; over the repeats the median
// regret, how often the pick is in the grid's top 2, the median compute fraction, one seed's
// standard deviation (pooled over the rungs' replicas) and the Spearman rank correlation of each
// rung's ranking with the full-budget one. The objective is injected, so the same walk runs on a
// synthetic objective in a unit test and on the trainer in `pha search --repeat N`
// (search_runner/search_repeats_job.cpp). Plain C++: no torch, no I/O.
//
//   RepeatSetup s;  s.budget = spec.budget;  s.objective = spec.objectives[0];  s.replicas = 2;
//   s.grid_trials = 9;  s.promotion.not_worse = true;
//   RepeatProblem p;
//   p.rung_value = [](int trial, int rung, double resource, std::uint64_t seed) { return ...; };
//   p.rung_cost = [](int trial, int rung) { return ...; };          // one replica's steps
//   p.full_value = [](int trial) { return ...; };  p.full_cost = [](int) { return 450.0; };
//   const RepeatStudy study = run_repeats(s, 10, p);   // study.top2_rate, study.median_regret
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "search/promotion.h"
#include "search/search_spec.h"

namespace pha::search {

struct RepeatSetup {
  Budget budget;                // the ladder: successive halving (brackets 1)
  Objective objective;          // one objective
  PromotionRule promotion;
  int replicas = 1;             // seeds per trial at a rung that ranks more than one trial (else 1)
  int grid_trials = 0;          // the exhaustive grid's size; trials are its indices 0..n-1
  int sampled_trials = 0;       // 0: every grid trial in each repeat (grid sampler); else this many
                                // distinct grid trials drawn per repeat (random sampler)
  std::uint64_t sampler_seed = 0;  // repeat r draws with sampler_seed + r
  std::uint64_t first_seed = 0;    // repeat r's replica seeds: first_seed + r * replicas + j
};

struct RepeatProblem {
  // A rung run's objective value (NaN: failed); `resource` is the rung's.
  std::function<double(int trial, int rung, double resource, std::uint64_t seed)> rung_value;
  // The compute of one replica's rung run inside a search (a promoted trial's run that continues
  // the previous rung's stable phase costs only its extra steps); default: the rung's resource.
  std::function<double(int trial, int rung)> rung_cost;
  std::function<double(int trial)> full_value;  // the trial at the full budget: the grid's run
  std::function<double(int trial)> full_cost;   // that run's compute; default: budget.max
};

struct RepeatRung {
  int rung = 0;
  double resource = 0;
  int seeds = 0;                 // replicas each trial had here
  std::vector<int> trials;       // measured here, in ranking order (failed last)
  std::vector<double> means;     // their means (same order)
  std::vector<int> promoted;     // went on (the last rung: none)
  std::vector<int> kept_close;   // of those, promoted by the not-worse test beyond the top
  double spearman = 0;           // rank correlation of the means with the full-budget values; NaN: < 3 trials
  double pooled_sd = 0;          // NaN without replicas
  int df = 0;
};

struct RepeatOutcome {
  int repeat = 0;
  std::vector<std::uint64_t> seeds;
  int pick = -1;             // grid index of the search's pick (the best of the last rung); -1: none
  int pick_rank = 0;         // its 1-based rank in the grid at the full budget (0: none)
  double pick_value = 0;     // its full-budget value (the grid's run)
  double regret = 0;         // how much worse than the grid's best (>= 0; NaN: no pick)
  double compute = 0;        // the search's compute (sum over its rung runs of rung_cost)
  double compute_fraction = 0;  // compute / the grid's compute
  std::vector<RepeatRung> rungs;
};

struct RepeatStudy {
  std::vector<double> full_values;  // per grid trial
  std::vector<int> grid_order;      // grid trials best first (failed last)
  double grid_compute = 0;          // sum of full_cost over the grid
  std::vector<RepeatOutcome> repeats;
  double median_regret = 0;
  double top2_rate = 0;             // fraction of repeats whose pick is in the grid's top 2
  double median_compute_fraction = 0;
  // Per rung over every repeat: pooled sd (sqrt of the summed squares over the summed df; NaN
  // without replicas), its df, and the median over repeats of the rung's Spearman correlation
  // (over the repeats where the rung ranked 3 trials or more; NaN: none) with their count.
  std::vector<double> rung_pooled_sd;
  std::vector<int> rung_df;
  std::vector<double> rung_spearman;
  std::vector<int> rung_spearman_n;
  // One seed's standard deviation: the pooled sd of the highest rung that had replicas (the
  // closest to the full budget); NaN when no rung had any.
  double seed_sd = 0;
  // The chance that m grid trials drawn at random include one of the grid's top 2, m = the
  // full-budget runs the median compute would pay for (floor(median fraction x grid size)): a
  // random search at equal compute that picks without noise.
  int equal_compute_trials = 0;
  double equal_compute_chance_top2 = 0;
};

// Runs `repeats` searches on `problem`. Throws core::Error for a setup it cannot run (Hyperband
// brackets, no grid, sampled_trials above the grid, a missing callback).
RepeatStudy run_repeats(const RepeatSetup& setup, int repeats, const RepeatProblem& problem);

// Spearman's rank correlation (average ranks for ties; Pearson's r of the ranks); NaN for fewer
// than 2 pairs or a constant side.
double spearman(const std::vector<double>& a, const std::vector<double>& b);
// The median (the mean of the middle two for an even count) of the finite values; NaN if none.
double median(std::vector<double> values);

}  // namespace pha::search
