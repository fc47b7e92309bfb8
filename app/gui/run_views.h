// RunViews: every view of the window follows one run and one store. The run picked in the run
// table (or selected by a queue's end, a verdict's link, a brush in Compare) is shown by the
// live plots, the mixer, the Lens, the Configuration dock and Generate; what StoreWatcher sees
// change in the store (a run renamed, deleted, evaluated, added by `pha`) reaches the run table,
// Compare, the Lens, the plots, the notes, the report, the search and the Efficiency dock; and
// Compare shows the runs asked for; while the queue trains, the run table follows the store, and
// when a pass ends the Report dock answers the project's claims. MainWindow builds the views and
// hands them here.
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>

#include "gui/docks.h"

class QDockWidget;
class QMainWindow;

namespace pha::gui {

class CompareWidget;
class ConfigEditor;
class EfficiencyController;
class GeneratePanel;
class LensView;
class ProjectSession;
class QueueController;
class ReportView;
class RunActions;
class RunBrowser;
class RunMonitor;
class RunsModel;
class SearchView;
class StoreWatcher;
struct StoreChange;

class RunViews : public QObject {
  Q_OBJECT
 public:
  struct Views {
    QMainWindow* window = nullptr;  // whose docks grow (growBottomDock)
    const Docks* docks = nullptr;
    ProjectSession* session = nullptr;
    RunBrowser* browser = nullptr;
    RunActions* runActions = nullptr;
    StoreWatcher* watcher = nullptr;
    RunMonitor* monitor = nullptr;
    EfficiencyController* efficiency = nullptr;
    QueueController* queue = nullptr;
    ConfigEditor* config = nullptr;
    CompareWidget* compare = nullptr;
    GeneratePanel* generate = nullptr;
    ReportView* report = nullptr;
    SearchView* search = nullptr;
    LensView* lens = nullptr;
  };
  // `ask` answers the yes/no question of replacing unsaved Configuration edits.
  RunViews(const Views& views, std::function<bool(const QString& title, const QString& question, bool offscreenAnswer)> ask,
           QObject* parent);

  void connectViews();  // the run table, the notes, the store watcher, Compare's brush, the report's links
  // Every run view shows the one selected run; for a selection set without a click (a queue
  // ended, the store changed).
  void followSelection();
  // The run table read again, keeping the selection (never a damaged store's); the live run keeps the plots.
  void reloadRuns();
  void showRun(const QString& storePath, qint64 runId, const QString& name, bool userChose);
  void compareSelected();
  void compareFinishedRuns();
  void showCompare(const QList<qint64>& ids);  // those runs of the open store (compareRequested), Compare to the front
  void showInCompare(const QString& storePath, const QList<qint64>& runIds);  // Compare shows these runs
  bool selectRunByName(const QString& name);  // selects (and shows) the newest run of that name
  // A dock of the bottom area shorter than half the window grows to 58% of it.
  void growBottomDock(QDockWidget* dock);
  // Deletes the runs hidden by Delete... from their store (the window closes or switches project).
  void commitDeletes();
  // Another project opened: every view shows it or says it is empty (nothing of the previous one
  // stays; a damaged store is said, not read), the Configuration dock its first run's configuration.
  void showProject();

 signals:
  void errorOccurred(const QString& message);
  void message(const QString& message, int timeoutMs);
  void compareRequested(const QString& storePath, const QList<qint64>& runIds);

 private:
  void onRunChosen(const QString& storePath, qint64 runId, const QString& name);
  void refreshNotesPanel();
  void onStoreChanged(const QString& storePath, const StoreChange& change);
  // A verdict's link in the Report dock: its groups' finished runs selected in the run table and
  // shown in Compare (its Metrics tab), or the first group's first run in the Lens's Tokens tab
  // compared with the second group, measured at once.
  void showEvidence(const QStringList& groups, const QString& view);
  // The run's model and training sections in the Configuration dock. Unsaved edits there are
  // replaced only when the user picked the run and says so (ask).
  void showConfigOf(const QString& storePath, qint64 runId, bool userChose);
  RunsModel* runsModel() const;
  void showError(const QString& m) { emit errorOccurred(m); }
  void showMessage(const QString& m, int timeoutMs) { emit message(m, timeoutMs); }

  QMainWindow* m_window;
  const Docks& m_docks;
  ProjectSession* m_session;
  RunBrowser* m_browser;
  RunActions* m_runActions;
  StoreWatcher* m_watcher;
  RunMonitor* m_monitor;
  EfficiencyController* m_efficiency;
  QueueController* m_queue;
  ConfigEditor* m_config;
  CompareWidget* m_compare;
  GeneratePanel* m_generate;
  ReportView* m_report;
  SearchView* m_search;
  LensView* m_lens;
  std::function<bool(const QString&, const QString&, bool)> m_ask;
  bool m_reportAfterQueue = false;  // the queue ended: show the claims' verdicts once the report is built
  qint64 m_configRunId = 0;  // the run whose configuration the Configuration dock loaded (0: the project's)
};

}  // namespace pha::gui
