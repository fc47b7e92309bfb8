#include "gui/search/search_state.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <QObject>

#include "core/metric_table.h"
#include "gui/search/rung_series.h"

namespace pha::gui {

using search_runner::SearchRungPoint;
using search_runner::SearchSummary;
using search_runner::SearchTrialState;

namespace {

bool sameTrial(const SearchTrialState& a, const SearchTrialState& b) {
  return a.search == b.search && a.bracket == b.bracket && a.trial == b.trial;
}

QString number(double v) {
  // Four decimals, as `pha search --status` rounds them; trailing zeros dropped.
  QString s = QString::number(std::round(v * 1e4) / 1e4, 'f', 4);
  while (s.contains('.') && (s.endsWith('0') || s.endsWith('.'))) s.chop(1);
  return s;
}

}  // namespace

QString searchTrialId(const SearchTrialState& t) { return QString::fromStdString(searchTrialIdText(t)); }

QString searchTrialName(const SearchTrialState& t, bool withSearch, bool withBracket) {
  return QString::fromStdString(searchTrialNameText(t, withSearch, withBracket));
}

SearchSummary mergeSearchSummary(const SearchSummary& base, const SearchSummary& live) {
  SearchSummary out = live;
  if (out.searches.empty()) out.searches = base.searches;
  if (out.objectives.empty()) out.objectives = base.objectives;
  if (out.resource.empty()) out.resource = base.resource;
  if (out.steps_total == 0) out.steps_total = base.steps_total;
  if (out.rungs.empty()) out.rungs = base.rungs;
  out.trials.clear();
  for (const SearchTrialState& b : base.trials) {
    auto it = std::find_if(live.trials.begin(), live.trials.end(), [&](const auto& l) { return sameTrial(l, b); });
    out.trials.push_back(it == live.trials.end() ? b : *it);
  }
  for (const SearchTrialState& l : live.trials)  // a trial the base did not know (another section)
    if (std::none_of(base.trials.begin(), base.trials.end(), [&](const auto& b) { return sameTrial(l, b); }))
      out.trials.push_back(l);
  return out;
}

bool markSearchRunStarted(SearchSummary& summary, const QString& job) {
  search_runner::SearchJobId id;
  try {
    id = search_runner::SearchJobId::parse(job.toStdString());
  } catch (const std::exception&) {
    return false;
  }
  for (SearchTrialState& t : summary.trials) {
    if (t.search != id.search || t.bracket != id.bracket || t.trial != id.trial) continue;
    double resource = t.rung == id.rung ? t.resource : 0.0;
    for (const auto& r : summary.rungs)  // the section's ladder (search_status plans every rung)
      if (r.search == t.search && r.bracket == t.bracket && r.rung == id.rung) resource = r.resource;
    for (const SearchTrialState& o : summary.trials)  // a live summary without the ladder
      if (resource <= 0 && o.search == t.search && o.bracket == t.bracket)
        for (const SearchRungPoint& p : o.history)
          if (p.rung == id.rung) resource = p.resource;
    t.rung = id.rung;
    if (resource > 0) t.resource = resource;
    t.state = "running";
    t.why = QObject::tr("training rung %1 now").arg(id.rung).toStdString();
    while (!t.history.empty() && t.history.back().rung >= id.rung) t.history.pop_back();
    SearchRungPoint point;
    point.rung = id.rung;
    point.resource = t.resource;
    point.state = "running";
    t.history.push_back(point);
    t.mean.clear();
    t.stdev.clear();
    return true;
  }
  return false;
}

std::vector<int> searchLeaderboardOrder(const SearchSummary& s) {
  std::vector<int> out;
  std::map<std::string, int> searchIndex;
  for (std::size_t i = 0; i < s.searches.size(); ++i) searchIndex[s.searches[i]] = static_cast<int>(i);
  const auto indexOf = [&](const std::string& name) {
    auto it = searchIndex.find(name);
    return it == searchIndex.end() ? static_cast<int>(searchIndex.size()) : it->second;
  };
  for (std::size_t i = 0; i < s.trials.size(); ++i) out.push_back(static_cast<int>(i));
  // By search (in the project's order), then the engine's leaderboard order (no copy of it here).
  std::stable_sort(out.begin(), out.end(), [&](int ia, int ib) {
    const SearchTrialState& a = s.trials[static_cast<std::size_t>(ia)];
    const SearchTrialState& b = s.trials[static_cast<std::size_t>(ib)];
    if (indexOf(a.search) != indexOf(b.search)) return indexOf(a.search) < indexOf(b.search);
    return leaderboard_before(s, a, b);
  });
  return out;
}

const SearchRungPoint* latestMeasured(const SearchTrialState& t) {
  for (auto it = t.history.rbegin(); it != t.history.rend(); ++it)
    if (!it->mean.empty() && std::isfinite(it->mean[0])) return &*it;
  return nullptr;
}

QList<qint64> searchTrialRuns(const SearchTrialState& t) {
  QList<qint64> ids;
  for (auto it = t.history.rbegin(); it != t.history.rend() && ids.isEmpty(); ++it)
    for (std::int64_t id : it->run_ids)
      if (id > 0) ids << id;
  if (ids.isEmpty())
    for (std::int64_t id : t.run_ids)
      if (id > 0) ids << id;
  return ids;
}

QStringList searchTrialPattern(const SearchTrialState& t) {
  QStringList out;
  if (!t.values.is_object() || !t.values.contains("pattern") || !t.values["pattern"].is_array()) return out;
  for (const auto& k : t.values["pattern"])
    if (k.is_string()) out << QString::fromStdString(k.get<std::string>());
  return out;
}

QString searchMeanText(const std::vector<double>& mean, const std::vector<double>& stdev, std::size_t k) {
  if (k >= mean.size() || !std::isfinite(mean[k])) return {};
  QString s = number(mean[k]);
  if (k < stdev.size() && std::isfinite(stdev[k]) && stdev[k] > 0) s += QString::fromUtf8(" ± ") + number(stdev[k]);
  return s;
}

QString searchStandingText(const SearchSummary& s) {
  std::map<std::string, int> counts;
  for (const auto& t : s.trials) ++counts[t.state];
  QStringList parts;
  for (const char* state :
       {"finished", "promoted", "trained", "running", "cancelled", "interrupted", "pending", "stopped", "failed"})
    if (counts[state] > 0) parts << QString("%1 %2").arg(counts[state]).arg(QString::fromLatin1(state));
  QString text = QObject::tr("%n trial(s)", nullptr, static_cast<int>(s.trials.size()));
  if (!parts.isEmpty()) text += ": " + parts.join(", ");
  text += s.complete ? QObject::tr("; complete") : QObject::tr("; not complete (Start continues it)");
  return text;
}

}  // namespace pha::gui
