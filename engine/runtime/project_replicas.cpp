// project.json's "seeds" / "repeats" (each run becomes seeded replicas of one group) and
// "claims" (analysis/claims.h), the top-level keys of studies (docs/project-format.md).
#include "runtime/project_replicas.h"

#include <algorithm>

#include "analysis/claims.h"
#include "core/error.h"
#include "core/limits.h"

namespace pha::runtime::detail {

// "seeds": [0, 1, 2] (the training seeds of every run's replicas) or "repeats": N (seeds
// training.seed + 0 .. N-1 of each run): each run becomes seeded replicas of one group.
void read_seeds(ConfigReader& r, Project& p) {
  if (r.has("seeds") && r.has("repeats"))
    throw Error("repeats", "is given with \"seeds\"; allowed: one of \"seeds\" (a list of training seeds) and "
                           "\"repeats\" (N seeds counted from training.seed)");
  if (r.has("seeds")) {
    const auto list = r.get_int_list("seeds", {}, 0, int64_t{1} << 53, 1, limits::kMaxReplicas, limits::kNote);
    for (size_t i = 0; i < list.size(); ++i) {
      const auto earlier = list.begin() + static_cast<std::ptrdiff_t>(i);
      if (std::find(list.begin(), earlier, list[i]) != earlier)
        throw Error("seeds[" + std::to_string(i) + "]",
                    std::to_string(list[i]) + " is listed twice; allowed: distinct seeds");
      p.seeds.push_back(static_cast<uint64_t>(list[i]));
    }
  } else if (r.has("repeats")) {
    const int64_t n = r.get_int("repeats", 1, 1, limits::kMaxReplicas, limits::kNote);
    for (int64_t i = 0; i < n; ++i) p.seeds.push_back(static_cast<uint64_t>(i));
    p.repeats = true;
  } else {
    r.ignore("seeds");
    r.ignore("repeats");
  }
}

// "claims": checked against the runs the project has (variant and group names) and its data.
void read_project_claims(ConfigReader& r, Project& p, const DataSpec& dataspec) {
  if (!r.has("claims")) {
    r.ignore("claims");
    return;
  }
  analysis::ClaimContext ctx;
  ctx.is_task = dataspec.is_task;
  if (dataspec.is_task && !dataspec.test_tasks.empty()) ctx.first_test_set = dataspec.test_tasks.front().first;
  for (const RunPlan& plan : p.runs)
    for (const std::string* n : {&plan.entry, &plan.group})
      if (std::find(ctx.runs.begin(), ctx.runs.end(), *n) == ctx.runs.end()) ctx.runs.push_back(*n);
  p.claims = analysis::read_claims(r.at("claims"), "claims", ctx);
}

}  // namespace pha::runtime::detail
