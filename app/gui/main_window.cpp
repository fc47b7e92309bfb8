#include "gui/main_window.h"
#include "gui/run_views.h"
#include "gui/window_layout.h"
#include "gui/window_menus.h"
#include "gui/project/store_watcher.h"

#include "gui/project/plan_dialog.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QItemSelectionModel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QShowEvent>
#include <QTableView>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

#include "gui/compare/compare_widget.h"
#include "gui/config/config_editor.h"
#include "gui/monitor/efficiency_controller.h"
#include "gui/generate/generate_panel.h"
#include "gui/inference/inference_tab.h"
#include "widgets/lens_rows.h"
#include "gui/lens/lens_tokens_tab.h"
#include "gui/lens/lens_view.h"
#include "gui/project/project_session.h"
#include "gui/queue/queue_controller.h"
#include "gui/compare/parallel_coords_tab.h"
#include "gui/project/pha_program.h"
#include "gui/project/plan_dialog.h"
#include "gui/report/report_view.h"
#include "gui/runs/run_actions.h"
#include "gui/runs/run_browser.h"
#include "gui/runs/run_notes_panel.h"
#include "gui/monitor/run_monitor.h"
#include "gui/queue/run_queue.h"
#include "gui/search/search_view.h"
#include "gui/runs/runs_model.h"

namespace pha::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("mainWindow");
  setWindowTitle(tr("PHA Workbench"));
  setWindowIcon(QIcon(":/pha/icons/pha-workbench.svg"));
  setAcceptDrops(true);
  m_session = new ProjectSession(this);
  m_queue = new RunQueue(this);
  m_docks = buildDocks(this);
  m_browser = new RunBrowser(m_docks.runsTable, m_docks.runFilter, m_docks.runKindFilter, this);
  m_browser->setTagFilterCombo(m_docks.runTagFilter);
  m_runActions = new RunActions(m_browser, this, this);
  m_watcher = new StoreWatcher(this);
  m_monitor = new RunMonitor(m_docks.lossPlot, m_docks.qualityPlot, m_docks.mixerPanel, m_docks.liveReadout, this);
  m_efficiency = new EfficiencyController(m_docks.efficiencyPanel, this);
  m_layout = std::make_unique<WindowLayout>(this, m_docks, [this] { return !m_compare->runs().isEmpty(); });
  m_layout->place();
  buildFeatureDocks();
  m_menus = new WindowMenus(this);  // also the status bar the queue reports in
  m_queueControl = new QueueController(m_queue, m_monitor, m_efficiency, m_menus->statusLabel(), m_menus->progress(), this);
  m_views = new RunViews({this, &m_docks, m_session, m_browser, m_runActions, m_watcher, m_monitor, m_efficiency, m_config,
                          m_compare, m_generate, m_report, m_search, m_lens},
                         [this](const QString& t, const QString& q, bool offscreen) { return ask(t, q, offscreen); }, this);
  connectControllers();
  updateActions();
  // Fill most of the screen (there may be no window manager to do it, e.g. under Xvfb).
  if (const QScreen* screen = QGuiApplication::primaryScreen()) {
    const QRect avail = screen->availableGeometry();
    resize(std::min(1600, avail.width()), std::min(1000, avail.height()));
    move(avail.topLeft());
  } else {
    resize(1500, 920);
  }
  // Fits a 1280 x 720 screen with its panels; below each dock's own minimum its content scrolls.
  setMinimumSize(1000, 640);
  m_layout->markDefault();
}

MainWindow::~MainWindow() = default;

RunsModel* MainWindow::runsModel() const { return m_browser->model(); }

void MainWindow::connectControllers() {
  connect(m_browser, &RunBrowser::errorOccurred, this, &MainWindow::showError);
  m_views->connectViews();
  connect(m_views, &RunViews::errorOccurred, this, &MainWindow::showError);
  connect(m_views, &RunViews::message, this, &MainWindow::showMessage);
  connect(m_views, &RunViews::compareRequested, this, &MainWindow::compareRequested);
  connect(m_runActions, &RunActions::undoAvailableChanged, this, [this](bool on) {
    m_menus->undoDeleteAction()->setEnabled(on);
  });
  connect(m_efficiency, &EfficiencyController::errorOccurred, this, &MainWindow::showError);
  connect(m_efficiency, &EfficiencyController::pointFailed, this, [this](const QString& m) { showMessage(m, 10000); });
  connect(m_queueControl, &QueueController::errorOccurred, this, &MainWindow::showError);
  connect(m_queueControl, &QueueController::message, this, &MainWindow::showMessage);
  connect(m_queueControl, &QueueController::stateChanged, this, &MainWindow::updateActions);
  // A paused run reads "paused" in the run table until it resumes (the store says running).
  connect(m_queueControl, &QueueController::stateChanged, this, [this] {
    runsModel()->setPausedRun(m_queueControl->isPaused() && m_monitor->isLive() ? m_monitor->shownRunId() : 0);
  });
  connect(m_queueControl, &QueueController::storeChanged, this, [this](bool now) {
    // The run browser follows the store at most every 2 s while training.
    if (now) {
      reloadRuns();
      m_report->refresh();  // a run started or ended, or an evaluation was recorded
    }
    else if (m_session->isOpen())
      m_browser->reloadThrottled(m_session->storePath(), m_monitor->shownRunId(), 2000);
  });
  connectSearchView();
  // When a pass ends, the project's claims are answered: the Report dock comes to the front with
  // their verdicts (the same report `pha report` prints), and the status bar says them in short.
  connect(m_queueControl, &QueueController::queueEnded, this, [this] {
    m_views->followSelection();
    m_reportAfterQueue = true;
    m_report->refresh();
  });
  connect(m_report, &ReportView::reportReady, this, [this] {
    if (!m_reportAfterQueue || m_report->isBuilding()) return;
    m_reportAfterQueue = false;
    const analysis::Report* r = m_report->report();
    if (!r || r->claims.empty()) return;
    m_docks.reportDock->show();
    m_docks.reportDock->raise();
    m_views->growBottomDock(m_docks.reportDock);
    QStringList verdicts;
    for (const auto& c : r->claims)
      verdicts << QString::fromStdString((c.claim.title.empty() ? c.statement : c.claim.title) + ": " + c.summary);
    showMessage(tr("Claims: %1 (Report dock)").arg(verdicts.join(QStringLiteral("; "))), 30000);
  });
  connect(m_queueControl, &QueueController::profileStarted, this, [this] {
    m_docks.efficiencyDock->show();
    m_docks.efficiencyDock->raise();
    m_docks.efficiencyTabs->setCurrentWidget(m_docks.efficiencyPanel);
  });
  // The Inference tab measures in its own worker thread; while it does, nothing else is started
  // (the timings would share the cores), and the queue's work blocks it the same way.
  InferenceTab* inference = m_docks.inferenceTab;
  inference->setProgramFinder([](QString* error) { return locatePhaProgram(error); });
  connect(inference, &InferenceTab::errorOccurred, this, &MainWindow::showError);
  connect(inference, &InferenceTab::busyChanged, this, &MainWindow::updateActions);
  connect(m_runActions, &RunActions::hiddenRunsChanged, inference, &InferenceTab::setHiddenRuns);
}




void MainWindow::showError(const QString& message) {
  m_lastError = message;
  statusBar()->showMessage(message, 15000);
  emit errorShown(message);
  if (isVisible() && QApplication::platformName() != "offscreen")
    QMessageBox::warning(this, tr("PHA Workbench"), message);
}

void MainWindow::showMessage(const QString& message, int timeoutMs) { statusBar()->showMessage(message, timeoutMs); }


void MainWindow::updateActions() {
  const bool open = m_session->isOpen();
  const bool damaged = open && m_session->isStoreDamaged();
  const QString damagedText = tr("The project's run store is damaged and is not written to until it is recovered "
                                 "(Recover... in the Project dock).");
  m_docks.inferenceTab->setBlockedReason(
      m_queueControl->isBusy()
          ? tr("Wait for the run queue to finish (or cancel it): inference timings would share the cores with it.")
          : damaged ? damagedText : QString());
  m_menus->update({open, m_queueControl->isBusy() || m_docks.inferenceTab->isBusy(), m_queueControl->isPaused(),
                   open && m_search->hasSearchSection(), damaged ? damagedText : open ? m_session->missingDataReason() : QString(),
                   damaged});
}

void MainWindow::runProject() {
  if (m_queueControl->runProject(*m_session)) updateActions();
}

void MainWindow::planThenRun() {
  if (!m_session->isOpen() || !PlanDialog::showBeforeRun() || m_queue->isBusy()) return runProject();
  PlanDialog dialog(m_session->dir(), /*withRun=*/true, this);
  if (dialog.exec() != QDialog::Accepted) return;
  // The dialog asked what to train when some runs are already trained: the queue asks nothing more.
  using Choice = QueueController::RepeatChoice;
  if (m_queueControl->runProject(*m_session, dialog.onlyRunsToTrain() ? Choice::OnlyNew : Choice::All)) updateActions();
}

void MainWindow::showPlan() {
  if (!m_session->isOpen()) return showError(tr("Open a project first (File > Open project)."));
  auto* dialog = new PlanDialog(m_session->dir(), /*withRun=*/false, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->show();
}

void MainWindow::measureEfficiency() {
  if (m_queueControl->measureEfficiency(*m_session)) updateActions();
}

void MainWindow::evaluateSelected() {
  const QList<qint64> ids = m_browser->selectedRunIds();
  if (ids.size() != 1) {
    showError(tr("Select one run to evaluate."));
    return;
  }
  if (m_queueControl->evaluateRun(m_browser->storePath(), ids.first())) updateActions();
}

void MainWindow::compareSelected() { m_views->compareSelected(); }
void MainWindow::compareFinishedRuns() { m_views->compareFinishedRuns(); }
bool MainWindow::selectRunByName(const QString& name) { return m_views->selectRunByName(name); }

void MainWindow::pauseOrResume() { m_queueControl->pauseOrResume(); }

void MainWindow::cancelRuns() { m_queueControl->cancelAll(); }

void MainWindow::reloadRuns() {
  if (!m_session->isOpen()) return;
  if (m_session->isStoreDamaged()) {  // never read (the banner says why)
    m_browser->clear();
    return;
  }
  // While a run trains, the live plots keep it: do not re-select a stored run under them.
  m_browser->reload(m_session->storePath(), m_monitor->isLive() ? 0 : m_monitor->shownRunId());
  m_views->followSelection();  // a run selected by the reload (the one a queue just finished) is shown everywhere
}




bool MainWindow::ask(const QString& title, const QString& question, bool offscreenAnswer) {
  if (m_ask) return m_ask(question);
  if (QApplication::platformName() == "offscreen") return offscreenAnswer;
  return QMessageBox::question(this, title, question, QMessageBox::Yes | QMessageBox::No, QMessageBox::No) ==
         QMessageBox::Yes;
}














void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  m_layout->shown();
}

void MainWindow::saveSettings() const { m_layout->save(); }
bool MainWindow::restoreSettings() { return m_layout->restore(); }
void MainWindow::resetLayout() { m_layout->reset(); }

void MainWindow::closeEvent(QCloseEvent* event) {
  if (m_config->hasUnsavedEdits()) {
    const QString state = m_config->isValid() && m_config->isTrainingValid()
                              ? tr("They are in no project.")
                              : tr("They are not valid (%1) and are in no project.")
                                    .arg(!m_config->isValid() ? m_config->errorText() : m_config->trainingErrorText());
    if (!ask(tr("Unsaved configuration"),
             tr("The Configuration dock has unsaved edits. %1 Quit and lose them?").arg(state), /*offscreenAnswer=*/true)) {
      event->ignore();
      return;
    }
  }
  if (m_queueControl->isBusy()) {
    if (QApplication::platformName() != "offscreen" &&
        QMessageBox::question(this, tr("PHA Workbench"),
                              tr("A run is training. Cancel it (a checkpoint is written) and quit?")) !=
            QMessageBox::Yes) {
      event->ignore();
      return;
    }
    m_queue->cancelAll();
  }
  m_docks.inferenceTab->cancel();  // its worker process is killed; the points measured are recorded
  m_views->commitDeletes();
  saveSettings();
  event->accept();
}

}  // namespace pha::gui
