// Grouping list_runs() entries into replica groups.
#include "analysis/groups.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace pha::analysis {

std::vector<RunGroup> group_runs(const std::vector<store::RunListEntry>& entries) {
  std::vector<store::RunListEntry> sorted = entries;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.run.id < b.run.id; });
  std::vector<RunGroup> out;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const auto& e : sorted) {
    const bool grouped = !e.run.group.empty();
    std::size_t at = out.size();
    if (grouped) {
      auto [it, fresh] = index.emplace(std::make_pair(e.run.project, e.run.group), out.size());
      at = it->second;
      if (fresh) out.push_back(RunGroup{e.run.project, e.run.group, true, {}, {}});
    } else {
      out.push_back(RunGroup{e.run.project, e.run.name, false, {}, {}});
    }
    out[at].runs.push_back(e);
  }
  for (auto& g : out) {
    std::map<std::int64_t, std::size_t> newest;  // seed -> index of its newest finished run
    for (std::size_t i = 0; i < g.runs.size(); ++i)
      if (g.runs[i].run.status == store::RunStatus::Finished) newest[g.runs[i].run.seed] = i;
    for (const auto& [seed, i] : newest) g.replicas.push_back(i);
    std::sort(g.replicas.begin(), g.replicas.end());
  }
  return out;
}

bool summarizes_replicas(const RunGroup& group) {
  if (!group.grouped) return false;
  std::set<std::int64_t> seeds;
  for (const auto& e : group.runs) seeds.insert(e.run.seed);
  return seeds.size() >= 2;
}

Stats replica_stats(const RunGroup& group, std::size_t index) {
  std::vector<double> values;
  for (std::size_t i : group.replicas) {
    const auto& s = group.runs[i].summaries;
    values.push_back(index < s.size() && s[index] ? s[index]->last : std::numeric_limits<double>::quiet_NaN());
  }
  return summarize(values);
}

}  // namespace pha::analysis
