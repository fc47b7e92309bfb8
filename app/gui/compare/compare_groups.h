// Compare dock: seeded replicas shown as one. Compared runs of one store that share a group
// (runs.run_group, written by a project's "seeds" / "repeats") form a CompareUnit that the
// Curves tab draws as a mean curve with a band and the Metrics table shows as mean ± std (n).
// The replicas are chosen by analysis::group_runs, the rule of `pha runs list` and `pha report`
// (per group, the newest finished run of each seed), and the numbers are analysis::summarize's.
// Plain C++ on Qt value types: no widgets, no torch.
#pragma once

#include <QString>
#include <cstdint>
#include <functional>
#include <vector>

#include "analysis/stats.h"
#include "gui/compare/compare_data.h"

namespace pha::gui {

// What the Curves tab and the Metrics table show as one series / column.
struct CompareUnit {
  QString label;                     // "pha/d_model=32 (3 seeds)", or the run's label
  std::vector<std::size_t> members;  // indexes into LoadedRuns: the replicas (by seed), or the one run
  bool grouped = false;              // a group of 2 or more replicas
};

// Units in the order of their first run in `runs`. A group with 2+ replicas among the compared
// runs is one unit; every other compared run (no group, its group's only replica, not finished,
// a seed trained again, unreadable) is a unit of its own, so nothing selected disappears.
std::vector<CompareUnit> compareUnits(const LoadedRuns& runs);
// One unit per run, as the tabs drew them before groups ("each run").
std::vector<CompareUnit> singleRunUnits(const LoadedRuns& runs);

// analysis::summarize of value(member) over the unit's members (NaN values left out, counted).
analysis::Stats unitStats(const LoadedRuns& runs, const CompareUnit& unit,
                          const std::function<double(const LoadedRun&)>& value);
// "2.2345 ± 0.01234 (3)" (6 significant digits, std 4); "2.2345 (1)"; "—" when n = 0.
QString meanStdText(const analysis::Stats& s);

// One metric of one replica as read from the store (x by step, tokens, wall seconds).
struct ReplicaCurve {
  std::vector<double> step, tokens, wall, value;
};

enum class BandKind { Std, MinMax };

// The replicas of a group aligned by step: at every step any replica recorded, each replica
// that spans that step contributes its value there (linear interpolation between its two
// neighbouring points; exact where it recorded the step, as replicas of one schedule do), and
// the point is the mean over the n contributing replicas; tokens and wall time are their means.
// The band is mean ± 1 sample std (Std) or min..max (MinMax); it closes where n = 1 (a longer
// replica's tail). NaN values are left out of a point.
struct GroupCurve {
  std::vector<double> step, tokens, wall, mean, low, high;
  std::vector<int> n;
};
GroupCurve aggregateCurves(const std::vector<ReplicaCurve>& replicas, BandKind band);

}  // namespace pha::gui
