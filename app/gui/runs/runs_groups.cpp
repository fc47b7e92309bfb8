// The run table's replica groups: group rows built from analysis::group_runs (the store's
// runs.run_group and seed), their mean +- std (n) cells, collapsing, and the sort that keeps a
// group's members under its group row. The statistics are analysis::summarize over the
// replicas (the newest finished run of each seed), the same as `pha runs list` and the report.
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "analysis/groups.h"
#include "core/metric_table.h"
#include "widgets/number_format.h"
#include "gui/runs/runs_model.h"
#include "gui/runs/runs_model_internal.h"

namespace pha::gui {

using namespace runs_detail;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// "2.091 ± 0.012 (3)", "87.5 ± 1.2 % (3)"; one replica: its value and "(1)"; none: empty.
QString statsText(const analysis::Stats& s, bool accuracy) {
  if (s.n == 0) return {};
  if (s.n == 1) return valText(s.mean, accuracy) + " (1)";
  if (accuracy)
    return QString("%1 \u00b1 %2 % (%3)").arg(100 * s.mean, 0, 'f', 1).arg(100 * s.std, 0, 'f', 1).arg(s.n);
  return QString("%1 \u00b1 %2 (%3)").arg(s.mean, 0, 'f', 3).arg(s.std, 0, 'f', 3).arg(s.n);
}

QString statsToolTip(const QString& what, const analysis::Stats& s, bool accuracy) {
  if (s.n == 0) return QObject::tr("%1: no replica recorded it").arg(what);
  const auto v = [accuracy](double x) { return valText(x, accuracy); };
  QString tip = QObject::tr("%1 over %2 replica(s) (the newest finished run of each seed): mean %3")
                    .arg(what).arg(s.n).arg(v(s.mean));
  if (s.n >= 2)
    tip += QObject::tr(", sample std %1, 95% interval of the mean %2 to %3 (Student t)")
               .arg(accuracy ? valText(s.std, true) : QString::number(s.std, 'f', 4), v(s.ci_low), v(s.ci_high));
  tip += QObject::tr(", min %1, max %2").arg(v(s.min), v(s.max));
  if (s.nan > 0) tip += QObject::tr("; %1 replica(s) without it left out").arg(s.nan);
  return tip;
}

// "3 finished" or "2 finished, 1 running", in the order the statuses first appear.
QString statusCounts(const std::vector<const store::RunListEntry*>& runs) {
  std::vector<std::pair<std::string, int>> counts;
  for (const auto* e : runs) {
    const std::string s = store::to_string(e->run.status);
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == s; });
    if (it == counts.end()) counts.emplace_back(s, 1);
    else ++it->second;
  }
  QStringList parts;
  for (const auto& [s, n] : counts) parts << QString("%1 %2").arg(n).arg(QString::fromStdString(s));
  return parts.join(", ");
}

}  // namespace

// Groups with at least two distinct seeds get a row; a group of one seed (a run trained again
// with the same seed) stays plain rows: there is no spread to summarize.
void RunsModel::buildGroups() {
  m_groups.clear();
  m_groupOf.assign(m_runs.size(), -1);
  std::unordered_map<std::int64_t, int> rowOfId;
  for (size_t i = 0; i < m_runs.size(); ++i) rowOfId[m_runs[i].run.id] = static_cast<int>(i);
  for (const analysis::RunGroup& g : analysis::group_runs(m_runs)) {
    if (!analysis::summarizes_replicas(g)) continue;
    std::set<std::int64_t> seeds;
    for (const auto& e : g.runs) seeds.insert(e.run.seed);
    GroupRow row;
    row.name = QString::fromStdString(g.name);
    std::vector<const store::RunListEntry*> runs;
    for (const auto& e : g.runs) {
      row.members.push_back(rowOfId.at(e.run.id));
      runs.push_back(&m_runs[static_cast<size_t>(row.members.back())]);
    }
    for (size_t i : g.replicas) row.replicas.push_back(row.members[i]);
    const auto has = [&](SummaryIndex k) {
      return std::any_of(runs.begin(), runs.end(), [&](const auto* e) { return summaryAt(*e, k).has_value(); });
    };
    row.accuracy = !has(kValLoss) && has(kValAccuracy);
    const SummaryIndex val = row.accuracy ? kValAccuracy : kValLoss;
    row.last = analysis::replica_stats(g, val);
    row.train = analysis::replica_stats(g, kTrainLoss);
    std::vector<double> best, tokens, duration;
    for (int r : row.replicas) {
      const store::RunListEntry& e = m_runs[static_cast<size_t>(r)];
      const auto& s = summaryAt(e, val);
      best.push_back(s ? (core::higher_is_better(s->key) ? s->max : s->min) : kNaN);
      const std::int64_t t = m_tokens[static_cast<size_t>(r)];
      tokens.push_back(t < 0 ? kNaN : static_cast<double>(t));
      const double d = runSeconds(r);
      duration.push_back(d < 0 ? kNaN : d);
    }
    row.best = analysis::summarize(best);
    row.tokens = analysis::summarize(tokens);
    row.duration = analysis::summarize(duration);
    row.variant = QString::fromStdString(runs.front()->run.variant);
    row.params = runs.front()->run.n_params;
    row.status = statusCounts(runs);
    QStringList seedList;
    for (std::int64_t s : seeds) seedList << (s < 0 ? QString("?") : QString::number(s));
    row.seeds = seedList.join(", ");
    for (const auto* e : runs) {
      row.newestId = std::max(row.newestId, e->run.id);
      if (e->run.started_at > 0 && (row.started == 0 || e->run.started_at < row.started)) row.started = e->run.started_at;
      if (row.created == 0 || e->run.created_at < row.created) row.created = e->run.created_at;
      if (row.variant != QString::fromStdString(e->run.variant)) row.variant = tr("mixed");
      if (row.device.isEmpty()) row.device = QString::fromStdString(e->run.device);
      const QString precision = precisionText(e->run.env_json);
      if (row.precision.isEmpty()) row.precision = precision;
      else if (row.precision != precision) row.precision = tr("mixed");
      row.worldSize = e->run.world_size;
      row.backend = e->run.backend;
    }
    const int groupRow = static_cast<int>(m_runs.size() + m_groups.size());
    for (int m : row.members) m_groupOf[static_cast<size_t>(m)] = groupRow;
    m_groups.push_back(std::move(row));
  }
}

const RunsModel::GroupRow* RunsModel::group(int row) const {
  const int g = row - runCount();
  return row >= runCount() && g < static_cast<int>(m_groups.size()) ? &m_groups[static_cast<size_t>(g)] : nullptr;
}

int RunsModel::groupRowOf(int runRow) const {
  return runRow >= 0 && runRow < runCount() ? m_groupOf[static_cast<size_t>(runRow)] : -1;
}

bool RunsModel::isExpanded(int groupRow) const {
  const GroupRow* g = group(groupRow);
  return g && m_expanded.contains(g->name);
}

bool RunsModel::isRowExpandedIn(int row) const {
  const int g = groupRowOf(row);
  return g < 0 || isExpanded(g);
}

void RunsModel::setExpanded(int groupRow, bool expanded) {
  const GroupRow* g = group(groupRow);
  if (!g || isExpanded(groupRow) == expanded) return;
  if (expanded) m_expanded.insert(g->name);
  else m_expanded.remove(g->name);
  emit dataChanged(index(groupRow, 0), index(groupRow, ColumnCount - 1));
}

// Display text, or (sort) the value the group sorts by among the other rows: the mean of a
// metric, the newest id, the earliest start.
QVariant RunsModel::groupValue(const GroupRow& g, int column, bool sort, bool expanded) const {
  const auto stats = [&](const analysis::Stats& s, bool accuracy) {
    return sort ? QVariant(s.n ? s.mean : qInf()) : QVariant(statsText(s, accuracy));
  };
  switch (column) {
    case Id: return sort ? QVariant::fromValue<qint64>(g.newestId) : QVariant();
    case Name: return sort ? g.name : QString(expanded ? "\u25be " : "\u25b8 ") + g.name;
    case Variant: return g.variant;
    case Status: return g.status;
    case Parameters: return sort ? QVariant::fromValue<qint64>(g.params) : QVariant(widgets::formatCount(g.params));
    case BestVal: return stats(g.best, g.accuracy);
    case LastVal: return stats(g.last, g.accuracy);
    case FinalTrainLoss: return stats(g.train, false);
    case TokensSeen:
      if (sort) return g.tokens.n ? g.tokens.mean : -1.0;
      return g.tokens.n ? widgets::formatCount(g.tokens.mean) : QString();
    case Duration:
      if (sort) return g.duration.n ? g.duration.mean : -1.0;
      return g.duration.n ? formatDuration(g.duration.mean) : QString();
    case Started: return sort ? QVariant::fromValue<qint64>(g.started) : QVariant(shortTime(g.started));
    case Created: return sort ? QVariant::fromValue<qint64>(g.created) : QVariant(longTime(g.created));
    case Kind: return QString(store::to_string(store::RunKind::Train));
    case Device: return g.device;
    case Processes: return processesText(g.worldSize, g.backend, sort);
    case Precision: return g.precision;
    case Seed: {
      const int n = static_cast<int>(g.seeds.count(',') + 1);
      return sort ? QVariant(n) : QVariant(tr("%1 seeds").arg(n));
    }
  }
  return {};
}

QString RunsModel::groupToolTip(const GroupRow& g, int column) const {
  const QString val = g.accuracy ? "val/accuracy" : "val/loss";
  switch (column) {
    case BestVal: return statsToolTip(tr("Best %1").arg(val), g.best, g.accuracy);
    case LastVal: return statsToolTip(tr("Last %1").arg(val), g.last, g.accuracy);
    case FinalTrainLoss: return statsToolTip(tr("Last train/loss"), g.train, false);
    case TokensSeen:
    case Duration: return tr("Mean over %1 replica(s)").arg(g.replicas.size());
    default: break;
  }
  return tr("Replica group \"%1\": %2 run(s), %3 replica(s), seeds %4. Click the arrow (or double-click the row) "
            "to show or hide its runs; select it and press Compare selected to compare its replicas.")
      .arg(g.name)
      .arg(g.members.size())
      .arg(g.replicas.size())
      .arg(g.seeds);
}

void RunsFilterModel::refilter() { invalidateFilter(); }

// Rows sort by their anchor (a member by its group row, any other row by itself), the group
// row before its members in either order, members among themselves by the column. Equal
// anchors of different groups are told apart by their row, so that no other row lands inside
// a group; plain rows of equal value keep their order (the sort is stable).
bool RunsFilterModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const auto* m = static_cast<const RunsModel*>(sourceModel());
  const auto anchorOf = [m](int row) {
    const int g = m->groupRowOf(row);
    return g >= 0 ? g : row;
  };
  const int la = anchorOf(left.row()), ra = anchorOf(right.row());
  if (la != ra) {
    const QModelIndex al = left.sibling(la, left.column()), ar = right.sibling(ra, right.column());
    if (QSortFilterProxyModel::lessThan(al, ar)) return true;
    if (QSortFilterProxyModel::lessThan(ar, al)) return false;
    const int lg = m->group(la) ? la : 0, rg = m->group(ra) ? ra : 0;
    return lg < rg;
  }
  const bool ascending = sortOrder() == Qt::AscendingOrder;
  if (left.row() == la && right.row() != la) return ascending;
  if (right.row() == ra && left.row() != ra) return !ascending;
  return QSortFilterProxyModel::lessThan(left, right);
}

}  // namespace pha::gui
