// RunBrowser: the run table of the Project dock. Owns the table's model over the store and its
// filters (text; kind: training runs by default, profile runs or every kind on request);
// re-reads the store on request (at most every 2 s while training), keeps the selected run
// selected and the chosen sort across reloads, and says which runs the user picked (one: show
// it; several: compare them). MainWindow connects what a choice does.
// The header: newest first by default (run id, descending); columns chosen from its context
// menu, dragged into any order, resized; all of it remembered in QSettings ("runTable/...").
// Replica groups (RunsModel) are collapsed by default; the arrow in a group row's name cell or
// a double-click shows its runs; a selected group row stands for its replicas. F2 renames the
// current run in place, a double-click on its Tags or Notes cell edits them (the model emits
// runEdited; RunActions writes the store); a tag box filters by tag.
#pragma once

#include <QList>
#include <QObject>
#include <QString>

class QComboBox;
class QFontMetrics;
class QModelIndex;
class QLineEdit;
class QTableView;
class QTimer;

namespace pha::gui {

// A run name fitted into `width` pixels keeping its setting, the part after the last '/'
// ("pha-tiny/lr=0.003" -> "pha-t…/lr=0.003"); other names elided in the middle.
QString elideRunName(const QString& name, const QFontMetrics& fm, int width);

class RunsModel;
class RunsFilterModel;
struct StoreChange;

class RunBrowser : public QObject {
  Q_OBJECT
 public:
  RunBrowser(QTableView* table, QLineEdit* filter, QComboBox* kindFilter = nullptr, QObject* parent = nullptr);
  RunBrowser(QTableView* table, QLineEdit* filter, QObject* parent) : RunBrowser(table, filter, nullptr, parent) {}

  // Re-reads the store; `keepSelected`: the run to keep selected (0: none). Returns false and
  // emits errorOccurred when the store cannot be read.
  bool reload(const QString& storePath, qint64 keepSelected = 0);
  // What StoreWatcher saw change in the store: renames, tags and notes update their rows in
  // place; added, removed and ended runs read the table again (keeping the selection, or
  // `keepSelected` when the selection was one run that is gone).
  void applyStoreChange(const QString& storePath, const StoreChange& change, qint64 keepSelected);
  // An empty table (no project, or a damaged store that is not read).
  void clear();
  // reload() unless the last one was less than `minIntervalMs` ago.
  void reloadThrottled(const QString& storePath, qint64 keepSelected, int minIntervalMs);
  QString storePath() const;

  QList<qint64> selectedRunIds() const;
  // Finished training runs (profile runs hold efficiency rows only, no curves).
  QList<qint64> finishedTrainingRunIds() const;
  // Selects the newest run of that name (showing every kind when the kind filter hides it);
  // false when there is none.
  bool selectRunByName(const QString& name);

  // Column visibility from the header menu (also what the menu's actions call).
  void setColumnShown(int column, bool shown);
  bool isColumnShown(int column) const;
  // Back to the default columns, order, widths and sort (header menu: "Default columns").
  void resetColumns();
  // The run rows as shown (after filter and sort): their run ids, top to bottom (group rows,
  // which have no id, left out; a collapsed group's runs are not shown).
  QList<qint64> shownRunIds() const;
  // Shows or hides a replica group's runs (a source row of model(); also the arrow's click).
  void setGroupExpanded(int groupRow, bool expanded);

  RunsModel* model() const { return m_model; }
  RunsFilterModel* proxy() const { return m_proxy; }
  QTableView* table() const { return m_table; }

  // The tag filter: "All tags" and each tag of the table's runs (with its run count), refilled
  // at every reload.
  void setTagFilterCombo(QComboBox* tags);
  // Shows only the runs with `tag` (empty: all).
  void setTagFilter(const QString& tag);
  // Selects exactly these runs (expanding their groups); false when none of them is shown.
  bool selectRuns(const QList<qint64>& ids);
  // F2: opens the current run's Name cell for editing; false on no run (or a group row).
  bool editCurrentName();

 signals:
  // The user selected exactly one run.
  void runChosen(const QString& storePath, qint64 runId, const QString& name);
  void errorOccurred(const QString& message);
  // The table holds the store's runs anew (after reload() or clear()).
  void reloaded();

 private:
  void onSelectionChanged();
  void toggleGroup(const QModelIndex& proxyIndex);
  void setupHeader();
  void restoreHeader();
  void saveHeaderLater();
  void fitNameColumn();
  // Widens each shown column whose cells or title no longer fit (never narrows one the user
  // widened): a group's "2.4098 ± 0.0305 (3)", "4 finished" and a tag are read whole.
  void fitColumnsToContents();
  int longestNameWidth() const;
  bool eventFilter(QObject* watched, QEvent* event) override;
  void showHeaderMenu(const QPoint& pos);
  void setupKindFilter();
  void applyKindFilter(int index);
  void refreshTagFilter();

  QTableView* m_table;
  QComboBox* m_kind;
  QComboBox* m_tags = nullptr;
  bool m_fittingName = false;
  RunsModel* m_model;
  RunsFilterModel* m_proxy;
  QTimer* m_saveTimer = nullptr;
  qint64 m_lastReloadMs = 0;
};

}  // namespace pha::gui
