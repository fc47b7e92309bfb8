// RunsModel: the run browser's table model over the run store (status, name, variant,
// parameters, best and final metrics, duration). Loading 10,000 runs is one list_runs() call
// (summaries come from run_summary, never from the metrics table); sorting and filtering go
// through RunsFilterModel, which sorts on raw numbers (Qt::UserRole), not on display strings.
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <vector>

#include "store/types.h"

namespace pha::gui {

class RunsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Status, Name, Variant, Parameters, BestValLoss, FinalTrainLoss, Duration, Created, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;
  static constexpr int RunIdRole = Qt::UserRole + 1;

  explicit RunsModel(QObject* parent = nullptr);

  // The metric keys the summary columns read (also what list_runs is asked for).
  static std::vector<std::string> summaryKeys();

  void setRuns(std::vector<pha::store::RunListEntry> runs, const QString& storePath);
  // Re-reads the store (GUI thread: its own connection). Returns false with the error in
  // lastError() when the store cannot be read; the previous rows stay.
  bool reload(const QString& storePath);
  QString lastError() const { return m_error; }
  QString storePath() const { return m_storePath; }

  const pha::store::RunListEntry* entry(int row) const;
  int rowOfRun(qint64 runId) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::vector<pha::store::RunListEntry> m_runs;
  QString m_storePath;
  QString m_error;
};

// Sorts by RunsModel::SortRole; filters rows whose name, variant or status contains the text.
class RunsFilterModel : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit RunsFilterModel(QObject* parent = nullptr);
  void setFilterText(const QString& text);

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  QString m_text;
};

}  // namespace pha::gui
