// The "search" section of a project: what a budgeted architecture search varies (config keys and
// layer patterns), its budget (successive halving / Hyperband rungs), what it optimises (one or
// two metrics, directions from core/metric_table.h), replicas per trial, how trials are drawn
// (grid or seeded random) and an optional equal-parameter constraint. Parsing only: every error
// is a core::Error naming the full field ("search.budget.eta: 1 is out of range; allowed: 2 to
// 10"). Plain C++: no torch, no I/O.
//
//   const auto spec = search::SearchSpec::from_json(project_json["search"]);
//   for (const auto& b : search::hyperband_brackets(spec.budget, spec.sampler.trials)) ...
//
// The section's keys:
//   "space":    {"training.lr": {"log_uniform": [1e-4, 3e-3]}, "training.warmup_steps": [10, 30],
//                "model.gss.state": {"int": [16, 64]}, "training.weight_decay": {"uniform": [0, 0.2]}}
//               Keys start with "model." or "training."; a list is a set of choices. Keys are
//               kept in ALPHABETICAL order (the caller passes an nlohmann::json, whose objects
//               sort their keys): that is the order of grid products and labels.
//   "patterns": {"n_layers": 8, "kinds": ["gss", "attn"], "attention": [1, 3], "first": "gss",
//                "last": null, "symmetric": false, "max": 40}  or  {"list": [["gss", "attn"], ...]}
//   "budget":   {"resource": "steps", "min": 50, "max": 450, "eta": 3, "brackets": 1, "concurrency": 2}
//   "objective": "val/bpb", {"metric": "val/bpb", "direction": "min"}, or a list of two such
//   "seeds":    N (replicas; seeds are offsets chosen by the caller) or a list [1, 2]
//   "sampler":  {"kind": "grid"} or {"kind": "random", "seed": 7, "trials": 27}
//   "equal_params": {"target": 1286172, "tolerance": 0.03} or {"preset": "pha-tiny", ...}
//   "promotion": {"rule": "not_worse", "alpha": 0.05, "max_factor": 2}: besides the top 1/eta,
//               every trial not significantly worse than the rung's leader goes on, at most
//               max_factor x the top's count (needs "seeds" >= 2; one objective); default
//               {"rule": "top"}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/metric_table.h"

namespace pha::search {

// The values one space key may take.
struct Range {
  enum class Kind { Choices, Uniform, LogUniform, Int };
  Kind kind = Kind::Choices;
  std::vector<nlohmann::json> choices;  // Choices: scalars (numbers, strings, booleans)
  double lo = 0, hi = 0;                // Uniform, LogUniform: lo < hi; Int: integers, lo <= hi
};

struct SpaceKey {
  std::string key;  // "training.lr", "model.gss.state"
  Range range;
};

// Layer patterns: generated from constraints, or listed. Kind tokens: "parallel", "sequential",
// "attn", "gss", and PHA branch subsets "gss+attn", "gss+ffn", "attn+ffn" (search_space.h).
struct PatternSpace {
  bool present = false;
  int n_layers = 0;                 // generated patterns: 1..64 (0 for a list)
  std::vector<std::string> kinds;   // the kinds a free layer may take, in this order
  int min_attention = 0;            // layers carrying attention: min..max
  int max_attention = -1;           // -1: n_layers
  std::string first, last;          // fixed kinds of the first / last layer ("" = free)
  bool symmetric = false;           // layer i == layer n-1-i
  int max = 0;                      // at most this many patterns, evenly spaced (0: all)
  std::vector<std::vector<std::string>> list;  // explicit patterns (exclusive with the above)
};

// Kinds of resource: "steps", "tokens" (integers) or "flops".
struct Budget {
  std::string resource = "steps";
  double min = 0, max = 0;  // rung 0's and the last rung's resource
  int eta = 3;              // 1/eta of the trials go on to the next rung
  int brackets = 1;         // 1: successive halving; more: Hyperband (1..s_max+1)
  int concurrency = 1;      // runs at the same time (the runner's business)
};

// floor(log_eta(max / min)) with a 1e-9 tolerance: the last rung's index in successive halving.
int max_rung(const Budget& budget);

struct Objective {
  std::string metric;  // "val/bpb"
  core::MetricGoal goal = core::MetricGoal::Minimize;
};

struct Sampler {
  std::string kind = "grid";  // grid | random
  uint64_t seed = 0;          // random
  int trials = 0;             // random: trials of successive halving (>= 1)
};

struct EqualParams {
  bool enabled = false;
  int64_t target = 0;         // parameters, or 0 when `preset` names the reference
  std::string preset;         // resolved by the caller (its vocabulary)
  double tolerance = 0.03;    // relative, (0, 0.5]
};

// Which trials go on besides the best `keep`: with `not_worse`, also every trial whose mean is
// not significantly worse than the leader's (the best mean) by a one-sided two-sample t-test on
// the rung's pooled variance: t = (mean_i - mean_leader) / (s_p sqrt(1/n_i + 1/n_leader)) in the
// metric's bad direction, s_p^2 the rung's pooled within-trial variance over every ranked trial
// (df = sum of n_i - 1), kept when t <= t(1 - alpha, df). One objective only; needs replicas
// (df > 0), else only the best `keep` go on.
// At most max_factor x keep trials go on (0: no cap), so a noisy rung cannot promote the whole
// rung: each promoted trial pays its replicas at the next, longer rung.
struct PromotionRule {
  bool not_worse = false;
  double alpha = 0.05;
  double max_factor = 2.0;
};

struct SearchSpec {
  std::vector<SpaceKey> space;  // alphabetical key order (see above)
  PatternSpace patterns;
  Budget budget;
  std::vector<Objective> objectives;  // 1 or 2
  std::vector<uint64_t> seeds;        // an explicit list, or {} for "seeds": N (offsets)
  int replicas = 1;                   // runs per trial and rung (the list's size when given)
  Sampler sampler;
  EqualParams equal_params;
  PromotionRule promotion;  // "promotion": {"rule": "top" | "not_worse", "alpha": 0.05, "max_factor": 2}
  nlohmann::json used;  // every value in effect, defaults included

  // `where` prefixes every error's field ("search.budget.eta").
  static SearchSpec from_json(const nlohmann::json& section, const std::string& where = "search");
};

// Largest grid (and largest "all patterns" set) a spec may ask for.
constexpr int64_t kMaxTrials = 100000;

}  // namespace pha::search
