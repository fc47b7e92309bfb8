// Groups of seeded replicas as the store records them (runs.run_group): which runs form a group
// and which of them are its replicas (the newest finished run of each seed), for listings such
// as `pha runs list` and the window's run table. Plain C++ over store types.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/stats.h"
#include "store/types.h"

namespace pha::analysis {

struct RunGroup {
  std::string project;
  std::string name;      // runs.run_group; for a run without a group (a profile), its own name
  bool grouped = true;   // false: a run without a group, listed alone
  std::vector<store::RunListEntry> runs;  // every run of the group, oldest first
  std::vector<std::size_t> replicas;      // indexes into runs: the newest finished run of each seed
};

// Groups list_runs() entries (any order) by (project, group), in the order of each group's first
// run. A seed trained twice counts once (its newest finished run): CPU runs are bit-reproducible,
// so counting both would claim a spread that is not there.
std::vector<RunGroup> group_runs(const std::vector<store::RunListEntry>& entries);

// Whether a listing shows the group as one line of mean ± std (n) over its replicas: when its
// runs have at least two distinct seeds. A group of one seed (a run trained again with the same
// seed) has no spread to summarize: its runs are listed each on its own line. `pha runs list`
// and the window's run table both follow this rule.
bool summarizes_replicas(const RunGroup& group);

// The final values (MetricSummary::last) of summary key `index` over a group's replicas; a
// replica without that key contributes NaN (left out and counted by summarize()).
Stats replica_stats(const RunGroup& group, std::size_t index);

}  // namespace pha::analysis
