// The one rule for a run's CPU threads, part of its plan: it depends on the run (its model's size
// and its own `training.threads`) and on an explicit request (`pha --threads`, $PHA_THREADS),
// never on how many runs share the machine. A run therefore computes the same numbers alone and
// beside others (`pha train --jobs`, the window's "runs at once"): docs/performance.md, "Threads
// and jobs". No torch: the queue plans jobs with it, device::configure_run_threads applies it.
//
//   const project::RunThreads t = project::run_threads(plan, global_threads);
//   t.threads   // 1 for a model of <= 4M parameters; 0: the machine's default (all cores)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "project/project.h"

namespace pha::project {

// Models up to this many parameters train on one core (one intra-op and one BLAS thread): on the
// 2-core reference machine a tiny model gains little from a second core (transformerpp-tiny,
// T 128 B 8: 40.5 s for two runs one after the other on both cores, 21.7 s side by side on one
// core each), so the machine's cores are spent on runs side by side instead.
constexpr std::int64_t kOneCoreParams = 4'000'000;

struct RunThreads {
  int threads = 0;   // intra-op and BLAS threads; 0: the machine's default (device::configure_threads)
  std::string rule;  // why, in words (recorded in the run's provenance as threads.policy)
};

// `requested` > 0 (`--threads`): that; else `training.threads` > 0: that; else $PHA_THREADS when
// set; else 1 for a model of <= kOneCoreParams parameters; else 0 (all cores).
RunThreads run_threads(const RunPlan& plan, int requested = 0);

// Cores one run of `t` occupies on a machine of `cores` (0 in t: all of them).
int run_cores(const RunThreads& t, int cores);

// How many runs of `plans` fit side by side on `cores`: cores / the widest run's cores, at least
// 1, at most the number of runs. What `pha train` and the window use when jobs is not given.
int default_jobs(const std::vector<const RunPlan*>& plans, int requested_threads, int cores);

}  // namespace pha::project
