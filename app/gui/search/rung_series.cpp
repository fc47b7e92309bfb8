#include "gui/search/rung_series.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace pha::gui {

using search_runner::SearchTrialState;

std::string searchTrialIdText(const SearchTrialState& t) {
  return t.search + ":b" + std::to_string(t.bracket) + ":t" + std::to_string(t.trial);
}

std::string searchTrialNameText(const SearchTrialState& t, bool withSearch, bool withBracket) {
  const std::string trial = "t" + std::to_string(t.trial);
  const std::string name = withBracket ? "b" + std::to_string(t.bracket) + " " + trial : trial;
  return withSearch ? t.search + " " + name : name;
}

RungSeries rungSeries(const search_runner::SearchSummary& summary, const std::vector<std::string>& selected) {
  RungSeries out;
  out.by_search = summary.searches.size() > 1;
  std::set<int> brackets;
  for (const auto& t : summary.trials) brackets.insert(t.bracket);
  std::set<double> rungs;
  for (const SearchTrialState& t : summary.trials) {
    RungLine line;
    line.trial = searchTrialIdText(t);
    line.name = searchTrialNameText(t, out.by_search, brackets.size() > 1);
    line.label = t.label;
    line.state = t.state;
    line.search = t.search;
    for (const auto& p : t.history) {
      rungs.insert(p.resource);
      if (p.mean.empty() || !std::isfinite(p.mean[0])) continue;
      line.x.push_back(p.resource);
      line.y.push_back(p.mean[0]);
    }
    if (line.x.empty()) continue;
    const bool stopped = line.state == "stopped" || line.state == "failed";
    line.bold = line.state == "finished" || line.state == "promoted";
    line.selected = std::find(selected.begin(), selected.end(), line.trial) != selected.end();
    line.faded = !line.selected && stopped;
    line.end = stopped ? RungLine::End::Stopped : line.state == "finished" ? RungLine::End::Finished : RungLine::End::None;
    line.named = line.selected || line.bold;
    line.color_index = t.trial + 7 * t.bracket;
    out.stopped_markers += stopped ? 1 : 0;
    out.lines.push_back(std::move(line));
  }
  // Faded lines first, then plain, bold and selected ones over them (QCustomPlot stacks in order).
  const auto layer = [](const RungLine& l) {
    if (l.selected) return 3;
    if (l.bold) return 2;
    return l.state == "stopped" || l.state == "failed" ? 0 : 1;
  };
  std::stable_sort(out.lines.begin(), out.lines.end(),
                   [&](const RungLine& a, const RungLine& b) { return layer(a) < layer(b); });
  out.rungs.assign(rungs.begin(), rungs.end());
  return out;
}

}  // namespace pha::gui
