#include "gui/compare/compare_groups.h"

#include <QHash>
#include <QObject>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "analysis/groups.h"

namespace pha::gui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Per store, the compared runs that are replicas of a group with 2+ of them: run index -> the
// group's key ("store\nproject\ngroup") and the indexes of its replicas.
struct GroupOf {
  QString key, name, project;
  std::vector<std::size_t> replicas;
};

std::map<std::size_t, GroupOf> replicaGroups(const LoadedRuns& runs) {
  std::map<QString, std::vector<std::size_t>> byStore;
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (runs[i].ok() && !runs[i].info.group.empty()) byStore[runs[i].ref.storePath].push_back(i);
  std::map<std::size_t, GroupOf> out;
  for (const auto& [store, indexes] : byStore) {
    std::vector<store::RunListEntry> entries;
    for (std::size_t i : indexes) entries.push_back(store::RunListEntry{runs[i].info, {}});
    for (const analysis::RunGroup& g : analysis::group_runs(entries)) {
      if (!g.grouped || g.replicas.size() < 2) continue;
      GroupOf group{store + '\n' + QString::fromStdString(g.project) + '\n' + QString::fromStdString(g.name),
                    QString::fromStdString(g.name), QString::fromStdString(g.project), {}};
      std::set<std::int64_t> ids;
      for (std::size_t r : g.replicas) ids.insert(g.runs[r].run.id);
      // The first compared copy of each replica (a run compared twice counts once), by seed.
      for (std::size_t i : indexes)
        if (ids.erase(runs[i].info.id)) group.replicas.push_back(i);
      std::stable_sort(group.replicas.begin(), group.replicas.end(),
                       [&runs](std::size_t x, std::size_t y) { return runs[x].info.seed < runs[y].info.seed; });
      for (std::size_t i : group.replicas) out[i] = group;
    }
  }
  return out;
}

}  // namespace

std::vector<CompareUnit> compareUnits(const LoadedRuns& runs) {
  const std::map<std::size_t, GroupOf> groups = replicaGroups(runs);
  std::vector<CompareUnit> units;
  std::vector<QString> projects;  // per unit, to tell equal group names of two projects apart
  std::set<QString> placed;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto it = groups.find(i);
    if (it == groups.end()) {
      units.push_back(CompareUnit{runs[i].label, {i}, false});
      projects.push_back(QString());
      continue;
    }
    if (!placed.insert(it->second.key).second) continue;
    const GroupOf& g = it->second;
    units.push_back(CompareUnit{QObject::tr("%1 (%2 seeds)").arg(g.name).arg(g.replicas.size()), g.replicas, true});
    projects.push_back(g.project);
  }
  QHash<QString, int> uses;
  for (const auto& u : units) uses[u.label] += 1;
  for (std::size_t u = 0; u < units.size(); ++u)
    if (units[u].grouped && uses.value(units[u].label) > 1)
      units[u].label = QObject::tr("%1 (%2, %3 seeds)")
                           .arg(QString::fromStdString(runs[units[u].members.front()].info.group), projects[u])
                           .arg(units[u].members.size());
  return units;
}

std::vector<CompareUnit> singleRunUnits(const LoadedRuns& runs) {
  std::vector<CompareUnit> units;
  for (std::size_t i = 0; i < runs.size(); ++i) units.push_back(CompareUnit{runs[i].label, {i}, false});
  return units;
}

analysis::Stats unitStats(const LoadedRuns& runs, const CompareUnit& unit,
                          const std::function<double(const LoadedRun&)>& value) {
  std::vector<double> values;
  for (std::size_t i : unit.members) values.push_back(value(runs[i]));
  return analysis::summarize(values);
}

QString meanStdText(const analysis::Stats& s) {
  if (s.n == 0) return QStringLiteral("—");
  if (s.n == 1) return QStringLiteral("%1 (1)").arg(QString::number(s.mean, 'g', 6));
  return QStringLiteral("%1 ± %2 (%3)").arg(QString::number(s.mean, 'g', 6), QString::number(s.std, 'g', 4)).arg(s.n);
}

namespace {

// A replica's value of `ys` at step s (linear between its neighbouring points), NaN outside
// its steps. `at` is the replica's cursor: grid steps come in increasing order.
double valueAt(const ReplicaCurve& c, const std::vector<double>& ys, double s, std::size_t at) {
  if (c.step.empty() || s < c.step.front() || s > c.step.back()) return kNaN;
  if (c.step[at] == s) return ys[at];
  const double x0 = c.step[at], x1 = c.step[at + 1];
  return ys[at] + (ys[at + 1] - ys[at]) * (s - x0) / (x1 - x0);
}

}  // namespace

GroupCurve aggregateCurves(const std::vector<ReplicaCurve>& replicas, BandKind band) {
  std::vector<double> grid;
  for (const auto& r : replicas) grid.insert(grid.end(), r.step.begin(), r.step.end());
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  GroupCurve out;
  std::vector<std::size_t> cursor(replicas.size(), 0);
  for (double s : grid) {
    std::vector<double> values, tokens, wall;
    for (std::size_t r = 0; r < replicas.size(); ++r) {
      const ReplicaCurve& c = replicas[r];
      // The last point at or before s.
      while (cursor[r] + 1 < c.step.size() && c.step[cursor[r] + 1] <= s) ++cursor[r];
      const double v = valueAt(c, c.value, s, cursor[r]);
      if (std::isnan(v)) continue;
      values.push_back(v);
      tokens.push_back(valueAt(c, c.tokens, s, cursor[r]));
      wall.push_back(valueAt(c, c.wall, s, cursor[r]));
    }
    if (values.empty()) continue;
    const analysis::Stats st = analysis::summarize(values);
    if (st.n == 0) continue;  // every value infinite
    out.step.push_back(s);
    out.tokens.push_back(analysis::summarize(tokens).mean);
    out.wall.push_back(analysis::summarize(wall).mean);
    out.mean.push_back(st.mean);
    const double spread = st.n >= 2 ? st.std : 0.0;
    out.low.push_back(band == BandKind::Std ? st.mean - spread : st.min);
    out.high.push_back(band == BandKind::Std ? st.mean + spread : st.max);
    out.n.push_back(static_cast<int>(st.n));
  }
  return out;
}

}  // namespace pha::gui
