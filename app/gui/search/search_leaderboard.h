// SearchLeaderboardModel: the search's trials as a table, in the leaderboard's order (the same
// as `pha search --status`: searchLeaderboardOrder): rank within its base variant, trial,
// settings (the trial's label), state, rung reached, its resource, each objective's mean ±
// standard deviation over the seeds at that rung, parameters, and the decision's reason. Each
// column sorts by its value (Qt::UserRole) through a QSortFilterProxyModel.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <vector>

#include "search_runner/search_job.h"

namespace pha::gui {

class SearchLeaderboardModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Rank, Trial, Settings, State, Rung, Resource, FirstObjective };
  explicit SearchLeaderboardModel(QObject* parent = nullptr);

  void setSummary(const search_runner::SearchSummary& summary);
  const search_runner::SearchSummary& summary() const { return m_summary; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  // The trial shown in `row` (source rows), nullptr out of range.
  const search_runner::SearchTrialState* trialAt(int row) const;
  int rowOfTrial(const QString& trialId) const;  // searchTrialId; -1 when absent
  int paramsColumn() const { return FirstObjective + objectiveCount(); }
  int whyColumn() const { return paramsColumn() + 1; }
  // The state's colour in the table and the charts (finished green, promoted blue, running
  // orange, stopped grey, failed vermilion, pending the text colour).
  static QColor stateColor(const QString& state);

 private:
  int objectiveCount() const { return static_cast<int>(m_summary.objectives.size()); }
  QVariant display(const search_runner::SearchTrialState& t, int row, int column) const;
  QVariant sortValue(const search_runner::SearchTrialState& t, int row, int column) const;

  search_runner::SearchSummary m_summary;
  std::vector<int> m_order;  // leaderboard order: indices into m_summary.trials
  std::vector<int> m_rank;   // per row: rank within its base variant (1-based)
  bool m_manySearches = false, m_manyBrackets = false;
};

}  // namespace pha::gui
