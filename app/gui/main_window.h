// MainWindow: builds the docks and menus and wires the project session, the run browser, the
// run queue, the efficiency profile and the feature docks together; the work is done by those
// objects (ProjectSession, RunBrowser, QueueController, EfficiencyController, RunMonitor,
// ConfigEditor, CompareWidget, GeneratePanel, ReportView, SearchView, LensView), and RunViews
// keeps every view on the one run picked and the store as it changes (run_views.h).
//   main_window.cpp          construction, layout, settings, the window's public actions

#pragma once

#include <QMainWindow>
#include <QStringList>
#include <functional>
#include <memory>

#include "gui/docks.h"

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;

namespace pha::gui {

class CompareWidget;
class ConfigEditor;
class EfficiencyController;
class GeneratePanel;
class LensView;
class ProjectSession;
class QueueController;
class RunActions;
class RunBrowser;
class RunMonitor;
class ReportView;
class RunQueue;
class RunsModel;
class ProjectActions;
class RunViews;
class WindowLayout;
class WindowMenus;
class SearchView;
class StoreWatcher;
struct StoreChange;

class ProjectDataBanner;
class StoreDamageBanner;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Geometry and dock state, through QSettings (group "mainWindow").
  void saveSettings() const;
  bool restoreSettings();
  void resetLayout();

  // Opens a project folder; errors are shown in the window (status bar + message), never thrown.
  bool openProject(const QString& path);
  bool openDefaultProject();
  // The open project's project.json changed (a variant added or promoted, its data located): the
  // session reads it again and the run table, plan line and report follow; what the user is
  // studying stays (the selection, Compare's runs, the Lens's results, the curves and unsaved
  // Configuration edits). openProject() is for another project, and clears them.
  bool reloadProjectFile();
  // Queues every run of the open project and starts the queue.
  void runProject();
  // Run > Run project: the plan first (PlanDialog, unless turned off there), then runProject().
  void planThenRun();
  // Run > Plan project...: the plan alone.
  void showPlan();
  // Queues the project's efficiency profile (its "profile" section, or the defaults) and starts.
  void measureEfficiency();
  // Evaluates the selected run again from its last checkpoint (Run > Evaluate selected run).
  void evaluateSelected();
  void pauseOrResume();
  void cancelRuns();
  void reloadRuns();
  void compareSelected();
  // Selects (and shows) the newest run of that name; false when there is none.
  bool selectRunByName(const QString& name);
  // Compares every finished run of the open project.
  void compareFinishedRuns();
  // File > New project from template..., Open project..., Export run report...; the
  // Configuration dock's "Add to project as variant..."; Run > Search... (the Search dock to the front).
  void newProjectFromTemplate();
  void openProjectDialog();
  void exportSelectedReport();
  void addConfigAsVariant();
  void showSearch();

  ProjectSession* session() const { return m_session; }
  RunQueue* queue() const { return m_queue; }
  QueueController* queueController() const { return m_queueControl; }
  RunMonitor* monitor() const { return m_monitor; }
  RunsModel* runsModel() const;
  RunBrowser* runBrowser() const { return m_browser; }
  StoreWatcher* storeWatcher() const { return m_watcher; }
  // Rename, tags, notes and delete with undo on the run table (run_actions.h).
  RunActions* runActions() const { return m_runActions; }
  const Docks& docks() const { return m_docks; }
  ConfigEditor* configEditor() const { return m_config; }
  CompareWidget* compareWidget() const { return m_compare; }
  GeneratePanel* generatePanel() const { return m_generate; }
  ReportView* reportView() const { return m_report; }
  SearchView* searchView() const { return m_search; }
  LensView* lensView() const { return m_lens; }
  ProjectDataBanner* dataBanner() const { return m_dataBanner; }
  StoreDamageBanner* storeBanner() const { return m_storeBanner; }
  // The damaged store's recovery (the banner's Recover...): asks (confirm), closes the window's
  // connections, runs the engine's recovery, reports what was saved and opens the project again.
  bool recoverStore();
  // Asked before a recovery; default: a Yes/No message box (yes on the offscreen platform).
  void setRecoverConfirm(std::function<bool(const QString&)> confirm);
  QString lastError() const { return m_lastError; }
  // Answers the window's yes/no questions (quit with unsaved Configuration edits, replace them with
  // a picked run's configuration); default: a message box, and on the offscreen platform the
  // answer that keeps the old behaviour (quit; replace). Tests record the question and answer.
  void setAsk(std::function<bool(const QString& question)> ask) { m_ask = std::move(ask); }

 signals:
  void errorShown(const QString& message);
  void compareRequested(const QString& storePath, const QList<qint64>& runIds);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void connectControllers();
  void showError(const QString& message);
  void showMessage(const QString& message, int timeoutMs);
  void updateActions();
  bool ask(const QString& title, const QString& question, bool offscreenAnswer);
  // What project.json says in the window: the title, the models' colours, the project line, the banners.
  void showProjectFile();
  // main_window_project.cpp
  void buildFeatureDocks();
  void connectSearchView();

  Docks m_docks;
  ProjectSession* m_session = nullptr;
  RunQueue* m_queue = nullptr;
  RunMonitor* m_monitor = nullptr;
  RunBrowser* m_browser = nullptr;
  StoreWatcher* m_watcher = nullptr;
  RunActions* m_runActions = nullptr;
  EfficiencyController* m_efficiency = nullptr;
  QueueController* m_queueControl = nullptr;
  ConfigEditor* m_config = nullptr;
  CompareWidget* m_compare = nullptr;
  GeneratePanel* m_generate = nullptr;
  ReportView* m_report = nullptr;
  SearchView* m_search = nullptr;
  LensView* m_lens = nullptr;
  RunViews* m_views = nullptr;  // every view follows one run and the store (run_views.h)
  std::unique_ptr<WindowLayout> m_layout;  // the docks' places and sizes, saved and restored (window_layout.h)
  WindowMenus* m_menus = nullptr;
  ProjectActions* m_projectActions = nullptr;  // new, open, drop, add variant, export report (project_actions.h)          // menus, toolbar, status bar (window_menus.h)
  ProjectDataBanner* m_dataBanner = nullptr;
  StoreDamageBanner* m_storeBanner = nullptr;
  std::function<bool(const QString&)> m_ask;
  QString m_colorsProject;  // the project whose models hold the palette (widgets::modelColors)  // the run whose configuration the Configuration dock loaded (0: the project's)
  QString m_lastError;
};

}  // namespace pha::gui
