#include "gui/search/search_leaderboard.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <cmath>
#include <limits>
#include <set>

#include "widgets/number_format.h"
#include "gui/search/search_state.h"

namespace pha::gui {

using search_runner::SearchTrialState;

SearchLeaderboardModel::SearchLeaderboardModel(QObject* parent) : QAbstractTableModel(parent) {}

void SearchLeaderboardModel::setSummary(const search_runner::SearchSummary& summary) {
  beginResetModel();
  m_summary = summary;
  m_order = searchLeaderboardOrder(m_summary);
  m_rank.clear();
  std::set<std::string> searches;
  std::set<int> brackets;
  std::string last;
  int rank = 0;
  for (int i : m_order) {
    const SearchTrialState& t = m_summary.trials[static_cast<std::size_t>(i)];
    rank = t.search == last ? rank + 1 : 1;
    last = t.search;
    m_rank.push_back(rank);
    searches.insert(t.search);
    brackets.insert(t.bracket);
  }
  m_manySearches = searches.size() > 1;
  m_manyBrackets = brackets.size() > 1;
  endResetModel();
}

int SearchLeaderboardModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_order.size());
}

int SearchLeaderboardModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : whyColumn() + 1;
}

const SearchTrialState* SearchLeaderboardModel::trialAt(int row) const {
  if (row < 0 || row >= static_cast<int>(m_order.size())) return nullptr;
  return &m_summary.trials[static_cast<std::size_t>(m_order[static_cast<std::size_t>(row)])];
}

int SearchLeaderboardModel::rowOfTrial(const QString& trialId) const {
  for (int r = 0; r < rowCount(); ++r)
    if (searchTrialId(*trialAt(r)) == trialId) return r;
  return -1;
}

QColor SearchLeaderboardModel::stateColor(const QString& state) {
  if (state == "finished") return QColor(0, 140, 80);
  if (state == "promoted") return QColor(0, 114, 178);
  if (state == "trained") return QColor(0, 158, 115);
  if (state == "running") return QColor(230, 140, 0);
  if (state == "cancelled" || state == "interrupted") return QColor(204, 121, 167);
  if (state == "stopped") return QColor(140, 140, 140);
  if (state == "failed") return QColor(213, 94, 0);
  return {};
}

QVariant SearchLeaderboardModel::display(const SearchTrialState& t, int row, int column) const {
  switch (column) {
    case Rank: return m_rank[static_cast<std::size_t>(row)];
    case Trial: return searchTrialName(t, m_manySearches, m_manyBrackets);
    case Settings: return QString::fromStdString(t.label);
    case State: return QString::fromStdString(t.state);
    case Rung: return t.rung;
    case Resource: return widgets::formatCount(t.resource);
    default: break;
  }
  const int k = column - FirstObjective;
  if (k >= 0 && k < objectiveCount()) return searchMeanText(t.mean, t.stdev, static_cast<std::size_t>(k));
  if (column == paramsColumn()) return t.params > 0 ? widgets::formatCount(static_cast<double>(t.params)) : QString();
  if (column == whyColumn()) return QString::fromStdString(t.why);
  return {};
}

QVariant SearchLeaderboardModel::sortValue(const SearchTrialState& t, int row, int column) const {
  const int k = column - FirstObjective;
  if (k >= 0 && k < objectiveCount())
    return k < static_cast<int>(t.mean.size()) && std::isfinite(t.mean[static_cast<std::size_t>(k)])
               ? QVariant(t.mean[static_cast<std::size_t>(k)])
               : QVariant(std::numeric_limits<double>::infinity());
  if (column == Rank) return row;  // the leaderboard's order, across base variants
  if (column == Trial) return t.bracket * 100000 + t.trial;
  if (column == Resource) return t.resource;
  if (column == paramsColumn()) return static_cast<qlonglong>(t.params);
  return display(t, row, column);
}

QVariant SearchLeaderboardModel::data(const QModelIndex& index, int role) const {
  const SearchTrialState* t = trialAt(index.row());
  if (!t) return {};
  const int c = index.column();
  const QString state = QString::fromStdString(t->state);
  switch (role) {
    case Qt::DisplayRole: return display(*t, index.row(), c);
    case Qt::UserRole: return sortValue(*t, index.row(), c);
    case Qt::ForegroundRole:
      if (c == State && stateColor(state).isValid()) return QBrush(stateColor(state));
      if (state == "stopped" && c != State) return QBrush(QColor(120, 120, 120));
      return {};
    case Qt::FontRole:
      if (state == "finished" || state == "promoted") {
        QFont f;
        f.setBold(true);
        return f;
      }
      return {};
    case Qt::TextAlignmentRole:
      if (c == Rank || c == Rung || c == Resource || c == paramsColumn() || (c >= FirstObjective && c < paramsColumn()))
        return int(Qt::AlignRight | Qt::AlignVCenter);
      return {};
    case Qt::ToolTipRole: {
      QString tip = QString("%1 (%2)\n%3").arg(searchTrialId(*t), state, QString::fromStdString(t->label));
      for (const auto& p : t->history) {
        QStringList values;
        for (std::size_t k = 0; k < m_summary.objectives.size(); ++k)
          values << QString("%1 %2").arg(QString::fromStdString(m_summary.objectives[k]),
                                         searchMeanText(p.mean, p.stdev, k).isEmpty() ? QString("-")
                                                                                      : searchMeanText(p.mean, p.stdev, k));
        QStringList runs;
        for (auto id : p.run_ids)
          if (id > 0) runs << QString("#%1").arg(id);
        tip += tr("\nrung %1 (%2 %3): %4, %5%6")
                   .arg(p.rung)
                   .arg(widgets::formatCount(p.resource), QString::fromStdString(m_summary.resource),
                        QString::fromStdString(p.state), values.join(", "),
                        runs.isEmpty() ? QString() : tr(", runs %1").arg(runs.join(" ")));
      }
      if (!t->why.empty()) tip += "\n" + QString::fromStdString(t->why);
      return tip;
    }
    default: return {};
  }
}

QVariant SearchLeaderboardModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case Rank: return tr("#");
    case Trial: return tr("Trial");
    case Settings: return tr("Settings");
    case State: return tr("State");
    case Rung: return tr("Rung");
    case Resource: return m_summary.resource.empty() ? tr("Resource") : QString::fromStdString(m_summary.resource);
    default: break;
  }
  const int k = section - FirstObjective;
  if (k >= 0 && k < objectiveCount())
    return tr("%1 (mean ± std)").arg(QString::fromStdString(m_summary.objectives[static_cast<std::size_t>(k)]));
  if (section == paramsColumn()) return tr("Params");
  if (section == whyColumn()) return tr("Why");
  return {};
}

}  // namespace pha::gui
