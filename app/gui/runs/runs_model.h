// RunsModel: the run browser's table model over the run store. Columns: the run id, name,
// variant, status, parameters, best validation metric (val/loss, lowest, for text runs;
// val/accuracy, highest, for task runs), tokens seen, duration, start time, tags and notes by
// default;
// last validation metric, last train loss, kind, creation time and device on request (the
// header's context menu, RunBrowser); Processes is the store's world_size ("2 (gloo)" for a
// data-parallel run, "1" for one process). Loading 10,000 runs is one list_runs() call (summaries
// come from run_summary, never from the metrics table) plus one last_points() lookup per run
// for the tokens seen and one all_tags() for the tags; sorting and filtering go through RunsFilterModel, which sorts on raw
// numbers (Qt::UserRole), not on display strings, and filters by text, kind and tag.
//
// Replica groups: runs of one runs.run_group with at least two distinct seeds get a group row
// (rows [runCount(), rowCount()) of this flat model, after the run rows, so a run's row index
// does not depend on grouping) showing mean +- std (n) of the metric columns over the group's
// replicas (analysis::group_runs / replica_stats: the newest finished run of each seed). The
// group is collapsible: RunsFilterModel hides the members of a collapsed group and sorts every
// member directly under its group row, groups among other rows by the group row's value.
#pragma once

#include <QAbstractTableModel>
#include <QHash>
#include <QSortFilterProxyModel>
#include <QSet>
#include <QStringList>
#include <optional>
#include <utility>
#include <vector>

#include "analysis/stats.h"
#include "store/types.h"

namespace pha::gui {

class RunsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    Id, Name, Variant, Status, Parameters, BestVal, TokensSeen, Duration, Started,  // shown by default
    LastVal, FinalTrainLoss, Kind, Created, Device, Seed, Processes,               // on request
    Tags, Notes,                                                                  // shown by default
    Precision,                                                                    // on request
    ColumnCount
  };
  static constexpr int SortRole = Qt::UserRole;
  static constexpr int RunIdRole = Qt::UserRole + 1;
  // A run row's name, tags ("a, b") and notes are edited in place (F2, double-click on Tags or
  // Notes): setData changes the row at once and emits runEdited; RunActions writes the store.

  explicit RunsModel(QObject* parent = nullptr);

  // A group row: the replicas of one run_group (statistics over `replicas`, the newest
  // finished run of each seed; `members`: every run row of the group, oldest first).
  struct GroupRow {
    QString name;                // runs.run_group
    std::vector<int> members;    // run rows
    std::vector<int> replicas;   // run rows, a subset of members
    bool accuracy = false;       // the validation metric is val/accuracy (task runs)
    pha::analysis::Stats best, last, train, tokens, duration;
    std::int64_t newestId = 0, started = 0, created = 0;
    QString variant, status, seeds, device;
    QString precision;            // the members' recorded precision ("mixed" when they differ)
    int worldSize = 1;            // a member's (the replicas of a group rarely differ)
    std::string backend;
    std::int64_t params = 0;
  };

  // The metric keys the summary columns read (also what list_runs is asked for).
  static std::vector<std::string> summaryKeys();
  // The defaults fit the Project dock at the default window size (1600 x 1000): Tags replaces
  // Variant there (a run's name carries its variant in every template; the Config diff shows
  // it), Variant and Notes are a right-click on the header away (the Notes panel shows notes).
  static bool shownByDefault(int column) { return (column < LastVal && column != Variant) || column == Tags; }
  // The columns in their default left-to-right order (Tags beside the name, Notes last shown).
  static std::vector<int> defaultOrder();
  // A typical cell of the column, for its default width.
  static QString widthSample(int column);

  // tokensSeen: per run, the tokens at its last train/loss point (-1: unknown), parallel to runs;
  // tags: (run id, tag) pairs as Store::all_tags gives them.
  // trainSeconds: per run, its training clock (the wall_ms of that point: time spent training,
  // pauses and the gap between an interruption and its resume left out; -1: unknown).
  void setRuns(std::vector<pha::store::RunListEntry> runs, const QString& storePath,
               std::vector<std::int64_t> tokensSeen = {},
               const std::vector<std::pair<std::int64_t, std::string>>& tags = {},
               std::vector<double> trainSeconds = {});
  // The Time column of a run row: its training clock, else start to end (or last heartbeat).
  double runSeconds(int row) const;
  // Re-reads the store (GUI thread: its own connection). Returns false with the error in
  // lastError() when the store cannot be read; the previous rows stay.
  bool reload(const QString& storePath);
  QString lastError() const { return m_error; }
  // Re-reads only these runs' name, notes and tags in place (a rename, tag or note written by
  // the window or by `pha`: StoreWatcher). Returns false, changing nothing, when a run is not
  // in the table or its status or times changed (its summary columns move too: reload()).
  bool updateRuns(const QString& storePath, const QSet<qint64>& ids);
  QString storePath() const { return m_storePath; }
  // The run the window's queue holds paused (0: none): its Status reads "paused" although the
  // store says running (a pause is the window's, not the store's).
  void setPausedRun(qint64 runId);

  // Runs the table leaves out although the store still holds them (deleted in the window, not
  // yet in the store: RunActions' undo). Applied at the next setRuns / reload.
  void setHiddenRuns(const QSet<qint64>& ids) { m_hidden = ids; }
  // The tags of a run row (sorted), and every tag of the shown runs with its run count.
  QStringList tagsOf(int row) const;
  std::vector<std::pair<QString, int>> tagCounts() const;

  // What a search made of the run ("search pha-tiny, trial 3 (lr=0.001), rung 0: stopped";
  // store::search_run_roles): its Name is in italics and its tooltip says it. Empty: none.
  QString searchRole(qint64 runId) const { return m_searchRole.value(runId); }

  // The run of a run row; nullptr for a group row.
  const pha::store::RunListEntry* entry(int row) const;
  int rowOfRun(qint64 runId) const;
  // Run rows are [0, runCount()), group rows after them.
  int runCount() const { return static_cast<int>(m_runs.size()); }
  const GroupRow* group(int row) const;
  // The group row a run row belongs to (-1: none).
  int groupRowOf(int runRow) const;
  // A row the table shows now: not a member of a collapsed group.
  bool isRowExpandedIn(int row) const;
  bool isExpanded(int groupRow) const;
  // Collapsed by default; kept by group name across reloads.
  void setExpanded(int groupRow, bool expanded);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

 signals:
  // The user edited a run's Name, Tags or Notes cell: `value` is the new name, the tags joined
  // by ", " or the notes. Emitted after the row shows it.
  void runEdited(qint64 runId, int column, const QString& value);

 private:
  QVariant valueOf(int row, int column, bool sort) const;
  QVariant toolTipOf(int row, int column) const;
  QVariant groupValue(const GroupRow& g, int column, bool sort, bool expanded) const;
  QString groupToolTip(const GroupRow& g, int column) const;
  void buildGroups();

  std::vector<pha::store::RunListEntry> m_runs;
  std::vector<std::int64_t> m_tokens;
  std::vector<double> m_trainSeconds;
  QHash<qint64, QString> m_searchRole;  // runs a search measured: "search pha-tiny, trial 3 (...), rung 0: stopped"  // the run's training clock at its last train/loss point (-1: none)
  std::vector<QStringList> m_tags;  // per run row, sorted
  QSet<qint64> m_hidden;
  std::vector<GroupRow> m_groups;
  std::vector<int> m_groupOf;  // per run row: its group row, -1 none
  QSet<QString> m_expanded;
  QString m_storePath;
  qint64 m_pausedRun = 0;
  QString m_error;
};

// Sorts by RunsModel::SortRole, a group's members right under its group row; filters rows by
// kind (training runs only by default: a profile run holds efficiency rows, no curves), by tag,
// by text (name, variant, status, tags, notes or id; a group row stays while one of its members
// matches) and hides
// the members of collapsed groups.
class RunsFilterModel : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit RunsFilterModel(QObject* parent = nullptr);
  // Matches the name, variant, status, tags or notes (case-insensitive), or the id ("12", "#12").
  void setFilterText(const QString& text);
  // Only runs carrying this tag (empty: every run).
  void setTagFilter(const QString& tag);
  QString tagFilter() const { return m_tag; }
  // nullopt: every kind.
  void setKindFilter(std::optional<pha::store::RunKind> kind);
  std::optional<pha::store::RunKind> kindFilter() const { return m_kind; }
  // Filters again (after a group was expanded or collapsed).
  void refilter();

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

 private:
  bool runMatches(int sourceRow) const;
  QString m_text;
  QString m_tag;
  std::optional<pha::store::RunKind> m_kind = pha::store::RunKind::Train;
};

}  // namespace pha::gui
