// RunsModel: the run browser's table model over the run store. Columns: the run id, name,
// variant, status, parameters, best validation metric (val/loss, lowest, for text runs;
// val/accuracy, highest, for task runs), tokens seen, duration and start time by default;
// last validation metric, last train loss, kind, creation time and device on request (the
// header's context menu, RunBrowser). Loading 10,000 runs is one list_runs() call (summaries
// come from run_summary, never from the metrics table) plus one last_points() lookup per run
// for the tokens seen; sorting and filtering go through RunsFilterModel, which sorts on raw
// numbers (Qt::UserRole), not on display strings, and filters by text and by kind.
//
// The model is flat, one row per run. Replica groups (runs that differ only by seed) will be a
// "Group" column here (a new Column before Name; RunBrowser drops saved header layouts whose
// column count differs) and, collapsible, a second level over these rows.
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <optional>
#include <vector>

#include "store/types.h"

namespace pha::gui {

class RunsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    Id, Name, Variant, Status, Parameters, BestVal, TokensSeen, Duration, Started,  // shown by default
    LastVal, FinalTrainLoss, Kind, Created, Device,                                // on request
    ColumnCount
  };
  static constexpr int SortRole = Qt::UserRole;
  static constexpr int RunIdRole = Qt::UserRole + 1;

  explicit RunsModel(QObject* parent = nullptr);

  // The metric keys the summary columns read (also what list_runs is asked for).
  static std::vector<std::string> summaryKeys();
  static bool shownByDefault(int column) { return column < LastVal; }
  // A typical cell of the column, for its default width.
  static QString widthSample(int column);

  // tokensSeen: per run, the tokens at its last train/loss point (-1: unknown), parallel to runs.
  void setRuns(std::vector<pha::store::RunListEntry> runs, const QString& storePath,
               std::vector<std::int64_t> tokensSeen = {});
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
  QVariant valueOf(int row, int column, bool sort) const;
  QVariant toolTipOf(int row, int column) const;

  std::vector<pha::store::RunListEntry> m_runs;
  std::vector<std::int64_t> m_tokens;
  QString m_storePath;
  QString m_error;
};

// Sorts by RunsModel::SortRole; filters rows by kind (training runs only by default: a
// profile run holds efficiency rows, no curves) and by text (name, variant, status or id).
class RunsFilterModel : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit RunsFilterModel(QObject* parent = nullptr);
  void setFilterText(const QString& text);
  // nullopt: every kind.
  void setKindFilter(std::optional<pha::store::RunKind> kind);
  std::optional<pha::store::RunKind> kindFilter() const { return m_kind; }

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  QString m_text;
  std::optional<pha::store::RunKind> m_kind = pha::store::RunKind::Train;
};

}  // namespace pha::gui
