// Which trials of a rung go on: rank the trials by the mean of their replicas (one objective) or
// by non-dominated sorting and NSGA-II crowding distance (two objectives), promote the best
// `keep`, stop the others, and say why in words for each trial. The decision is a function of the
// set of outcomes: the order they arrive in (whatever the concurrency) does not change it.
// Directions come from the objectives (core/metric_table.h). Plain C++.
//
//   std::vector<TrialOutcome> rung = {{0, {{3.21, 3.25}}}, {1, {{3.40, 3.38}}}, {2, {}, true, "diverged"}};
//   const Decision d = promote(rung, spec.objectives, 1);
//   // d.promoted == {0}; d.why[1] == "rank 2 of 2 by mean val/bpb 3.39 (sd 0.0141, 2 seeds): stopped (top 1 promoted)"
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/metric_table.h"
#include "search/search_spec.h"

namespace pha::search {

// PromotionRule (the not-worse test): search_spec.h.

struct TrialOutcome {
  int trial = 0;
  std::vector<std::vector<double>> values;  // [objective][replica]
  bool failed = false;
  std::string reason;
};

struct Ranked {
  int trial = 0;
  std::vector<double> mean;   // per objective, over the replicas
  std::vector<double> stdev;  // sample standard deviation (n - 1); 0 for one replica
  int front = 0;              // two objectives: 1-based non-dominated front; otherwise 0
  double crowding = 0;        // two objectives: NSGA-II crowding distance in its front (inf at the ends)
  bool failed = false;
  std::string reason;         // failed: why
};

struct Decision {
  std::vector<int> promoted;       // trial indices, best first
  std::vector<int> stopped;        // the rest, in ranking order (failed last)
  std::vector<Ranked> ranking;     // best first, failed last (by trial index)
  // The rung's seed spread (PromotionRule): pooled sample standard deviation over the ranked
  // trials' replicas and its degrees of freedom (0 with one replica each: sd NaN), the critical t
  // of the not-worse test (NaN when it was not applied) and the trials it kept beyond the top.
  double pooled_sd = 0.0;
  int df = 0;
  double t_critical = 0.0;
  std::vector<int> kept_close;
  std::map<int, std::string> why;  // per trial, for people:
  // "rank 2 of 9 by mean val/bpb 3.214 (sd 0.01, 2 seeds): promoted (top 3)"
  // "rank 5 of 9, front 2 of 3 by mean val/bpb 3.3 and mean params 1.2e+06 (crowding 0.41, 2 seeds): stopped (top 3 promoted)"
  // "failed: incomplete: 1 of 2 replicas"
  // "rank 4 of 9 by mean val/bpb 3.22 (sd 0.01, 2 seeds): promoted (not significantly worse than
  //  t2: t 1.2 <= 1.86, pooled sd 0.0085, df 9)"
};

// A trial is failed when marked so, when a value is NaN or infinite, or when it has fewer
// replicas of an objective than the most any non-failed trial has ("incomplete: 1 of 2
// replicas"). Ties of the ranking go to the lower trial index. Throws core::Error for a trial
// index given twice, keep < 0, or other than 1 or 2 objectives.
Decision promote(std::vector<TrialOutcome> outcomes, const std::vector<Objective>& objectives, int keep,
                 const PromotionRule& rule = {});

// The 1-based non-dominated front of each point (a dominates b when it is no worse in every
// coordinate and better in one, each coordinate under its goal). Goals must not be None.
std::vector<int> nondominated_fronts(const std::vector<std::vector<double>>& points, const std::vector<core::MetricGoal>& goals);

// NSGA-II crowding distance of each point of one front (infinite for each coordinate's ends;
// a coordinate whose values are all equal adds nothing).
std::vector<double> crowding_distances(const std::vector<std::vector<double>>& points);

}  // namespace pha::search
