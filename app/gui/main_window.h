// MainWindow: wires the docks, the project session, the run queue and the store together;
// the work itself happens in those objects.
#pragma once

#include <QMainWindow>
#include <QStringList>
#include <map>
#include <vector>

#include "docks.h"
#include "efficiency_panel.h"
#include "runtime/events.h"

class QAction;
class QLabel;
class QMenu;
class QProgressBar;

namespace pha::gui {

class ProjectSession;
class RunQueue;
class RunMonitor;
class RunsModel;
class RunsFilterModel;
class ConfigEditor;
class CompareWidget;
class GeneratePanel;

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
  // Queues every run of the open project and starts the queue.
  void runProject();
  // Queues the project's efficiency profile (its "profile" section, or the defaults) and starts.
  void measureEfficiency();
  void pauseOrResume();
  void cancelRuns();
  void reloadRuns();
  void compareSelected();
  // Selects (and shows) the newest run of that name; false when there is none.
  bool selectRunByName(const QString& name);
  // Compares every finished run of the open project.
  void compareFinishedRuns();

  ProjectSession* session() const { return m_session; }
  RunQueue* queue() const { return m_queue; }
  RunMonitor* monitor() const { return m_monitor; }
  RunsModel* runsModel() const { return m_runs; }
  const Docks& docks() const { return m_docks; }
  ConfigEditor* configEditor() const { return m_config; }
  CompareWidget* compareWidget() const { return m_compare; }
  GeneratePanel* generatePanel() const { return m_generate; }
  QString lastError() const { return m_lastError; }

 signals:
  void errorShown(const QString& message);
  void compareRequested(const QString& storePath, const QList<qint64>& runIds);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildLayout();
  void applyDefaultSizes();
  void buildMenus();
  void buildStatusBar();
  void connectQueue();
  void showError(const QString& message);
  void showAbout();
  void newProjectFromTemplate();
  void openProjectDialog();
  void refreshRecentMenu();
  void updateActions();
  void onRunSelected();
  void loadEfficiency();
  void showEfficiency();
  void connectProfiler();
  void onEfficiencyEvents(const std::vector<pha::runtime::EfficiencyEvent>& events);
  void buildFeatureDocks();
  void showConfigOf(const QString& storePath, qint64 runId);
  void addConfigAsVariant();
  void exportSelectedReport();

  Docks m_docks;
  ProjectSession* m_session = nullptr;
  RunQueue* m_queue = nullptr;
  RunMonitor* m_monitor = nullptr;
  RunsModel* m_runs = nullptr;
  RunsFilterModel* m_runsProxy = nullptr;
  ConfigEditor* m_config = nullptr;
  CompareWidget* m_compare = nullptr;
  GeneratePanel* m_generate = nullptr;
  QAction* m_runAction = nullptr;
  QAction* m_measureAction = nullptr;
  QAction* m_pauseAction = nullptr;
  QAction* m_cancelAction = nullptr;
  QMenu* m_recentMenu = nullptr;
  QProgressBar* m_progress = nullptr;
  QLabel* m_statusLabel = nullptr;
  // Efficiency: the store's profile runs (newest per name), and the points of the profile
  // being measured, shown in their place as they arrive.
  std::vector<widgets::EfficiencySeries> m_storedEfficiency;
  std::map<QString, std::vector<pha::store::PerfRow>> m_liveEfficiency;
  int m_profilePoints = 0;
  int m_profileDone = 0;
  QByteArray m_defaultState;
  QString m_lastError;
  qint64 m_lastReloadMs = 0;
  bool m_sized = false;
  bool m_restored = false;
};

}  // namespace pha::gui
