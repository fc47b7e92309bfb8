// Rungs of a budgeted search: successive halving (one bracket) or Hyperband (Li et al. 2018,
// several brackets trading the number of trials against the resource each starts with). A rung
// is a resource level (steps, tokens or FLOPs of training) and how many trials reach it; what
// goes on from one rung to the next is promotion.h's decision. Plain C++.
//
//   Budget b;  b.min = 50;  b.max = 450;  b.eta = 3;
//   for (const Bracket& br : hyperband_brackets(b, 9))    // one bracket, s = 2:
//     for (const Rung& r : br.rungs) ...                  // (50, 9), (150, 3), (450, 1)
#pragma once

#include <vector>

#include "search/search_spec.h"

namespace pha::search {

struct Rung {
  int index = 0;        // k, from 0
  double resource = 0;  // what each trial has had by the end of the rung (cumulative)
  int trials = 0;       // how many trials run to this rung
};

struct Bracket {
  int index = 0;  // s: the bracket has s + 1 rungs
  int trials = 0; // trials started at rung 0
  std::vector<Rung> rungs;
};

// brackets == 1 (successive halving): one bracket of index K = max_rung(budget) starting
// `sh_trials` (>= 1) trials; rung k has resource min * eta^k for k < K and exactly max for
// k = K (so when max / min is not a power of eta the last step grows by less than eta, e.g.
// 100, 300, 1000), and max(1, floor(n_{k-1} / eta)) trials.
// brackets B > 1 (Hyperband): s = K, K-1, ..., K-B+1; bracket s starts
// n_s = ceil((K+1) / (s+1) * eta^s) trials (computed in integers) at r_s = max * eta^-s, rung i
// has resource r_s * eta^i (the last exactly max) and max(1, floor(n_s / eta^i)) trials;
// `sh_trials` is not used. Resources in "steps" and "tokens" are rounded to the nearest integer,
// never below 1; "flops" stay as computed.
std::vector<Bracket> hyperband_brackets(const Budget& budget, int sh_trials);

}  // namespace pha::search
