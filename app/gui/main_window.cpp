// MainWindow: builds the docks, the feature views, the menus and the controllers and wires them
// (main_window.h); opening a project tells every view.
#include "gui/main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QLabel>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QShowEvent>
#include <QStatusBar>

#include "gui/compare/compare_widget.h"
#include "gui/config/config_editor.h"
#include "gui/inference/inference_tab.h"
#include "gui/monitor/efficiency_controller.h"
#include "gui/monitor/run_monitor.h"
#include "gui/project/pha_program.h"
#include "gui/project/project_data_banner.h"
#include "gui/project/project_session.h"
#include "gui/project/store_damage_banner.h"
#include "gui/project/store_watcher.h"
#include "gui/project_actions.h"
#include "gui/queue/queue_controller.h"
#include "gui/queue/run_queue.h"
#include "gui/report/report_view.h"
#include "gui/run_views.h"
#include "gui/runs/run_actions.h"
#include "gui/runs/run_browser.h"
#include "gui/search/search_view.h"
#include "gui/window_layout.h"
#include "gui/window_menus.h"
#include "widgets/series_colors.h"

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
  m_projectActions = new ProjectActions(this, m_session, m_config, m_browser);
  connect(m_projectActions, &ProjectActions::openRequested, this, &MainWindow::openProject);
  connect(m_projectActions, &ProjectActions::projectFileChanged, this, &MainWindow::reloadProjectFile);
  connect(m_projectActions, &ProjectActions::errorOccurred, this, &MainWindow::showError);
  connect(m_projectActions, &ProjectActions::message, this, &MainWindow::showMessage);
  connect(m_projectActions, &ProjectActions::aboutToReplaceStore, this, [this] {
    m_compare->clear();  // its connections to the damaged file are closed before the file is replaced
    m_watcher->setStore(QString());
  });
  connect(m_projectActions, &ProjectActions::recoveryFailed, m_storeBanner, &StoreDamageBanner::refresh);
  m_menus = new WindowMenus(this);  // also the status bar the queue reports in
  m_queueControl = new QueueController(m_queue, m_monitor, m_efficiency, m_menus->statusLabel(), m_menus->progress(), this);
  m_views = new RunViews({this, &m_docks, m_session, m_browser, m_runActions, m_watcher, m_monitor, m_efficiency, m_queueControl,
                          m_config, m_compare, m_generate, m_report, m_search, m_lens},
                         [this](const QString& t, const QString& q, bool offscreen) { return ask(t, q, offscreen); }, this);
  connectControllers();
  updateActions();
  m_layout->fitScreen();
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
  connect(this, &MainWindow::compareRequested, m_views, &RunViews::showInCompare);
  connect(m_runActions, &RunActions::undoAvailableChanged, this, [this](bool on) {
    m_menus->undoDeleteAction()->setEnabled(on);
  });
  connect(m_efficiency, &EfficiencyController::errorOccurred, this, &MainWindow::showError);
  connect(m_efficiency, &EfficiencyController::pointFailed, this, [this](const QString& m) { showMessage(m, 10000); });
  connect(m_queueControl, &QueueController::errorOccurred, this, &MainWindow::showError);
  connect(m_queueControl, &QueueController::message, this, &MainWindow::showMessage);
  connect(m_queueControl, &QueueController::stateChanged, this, &MainWindow::updateActions);
  connectSearchView();
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

void MainWindow::runProject() { if (m_queueControl->runProject(*m_session)) updateActions(); }
void MainWindow::planThenRun() { if (m_queueControl->planThenRun(*m_session, this)) updateActions(); }
void MainWindow::showPlan() { m_queueControl->showPlan(*m_session, this); }
void MainWindow::measureEfficiency() { if (m_queueControl->measureEfficiency(*m_session)) updateActions(); }

void MainWindow::evaluateSelected() {
  const QList<qint64> ids = m_browser->selectedRunIds();
  if (ids.size() != 1) return showError(tr("Select one run to evaluate."));
  if (m_queueControl->evaluateRun(m_browser->storePath(), ids.first())) updateActions();
}

void MainWindow::compareSelected() { m_views->compareSelected(); }
void MainWindow::compareFinishedRuns() { m_views->compareFinishedRuns(); }
bool MainWindow::selectRunByName(const QString& name) { return m_views->selectRunByName(name); }
void MainWindow::pauseOrResume() { m_queueControl->pauseOrResume(); }
void MainWindow::cancelRuns() { m_queueControl->cancelAll(); }
void MainWindow::reloadRuns() { m_views->reloadRuns(); }

bool MainWindow::ask(const QString& title, const QString& question, bool offscreenAnswer) {
  if (m_ask) return m_ask(question);
  if (QApplication::platformName() == "offscreen") return offscreenAnswer;
  return QMessageBox::question(this, title, question, QMessageBox::Yes | QMessageBox::No, QMessageBox::No) ==
         QMessageBox::Yes;
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  m_layout->shown();  // the default shares once, unless a saved state was restored
}

void MainWindow::saveSettings() const { m_layout->save(); }
bool MainWindow::restoreSettings() { return m_layout->restore(); }
void MainWindow::resetLayout() { m_layout->reset(); }

void MainWindow::closeEvent(QCloseEvent* event) {
  if (m_config->hasUnsavedEdits() &&
      !ask(tr("Unsaved configuration"), m_config->quitQuestion(), /*offscreenAnswer=*/true))
    return event->ignore();
  if (m_queueControl->isBusy()) {
    if (QApplication::platformName() != "offscreen" &&
        QMessageBox::question(this, tr("PHA Workbench"),
                              tr("A run is training. Cancel it (a checkpoint is written) and quit?")) != QMessageBox::Yes)
      return event->ignore();
    m_queue->cancelAll();
  }
  m_docks.inferenceTab->cancel();  // its worker process is killed; the points measured are recorded
  m_views->commitDeletes();
  saveSettings();
  event->accept();
}

bool MainWindow::openProject(const QString& path) {
  if (m_queueControl->isBusy()) {
    showError(tr("Finish or cancel the running queue before opening another project."));
    return false;
  }
  if (m_docks.inferenceTab->isBusy()) {
    showError(tr("Finish or cancel the inference measurement (Efficiency dock, Inference tab) before opening another "
                 "project."));
    return false;
  }
  m_views->commitDeletes();  // the runs deleted in this window leave the previous project's store now
  if (!m_session->open(path)) {
    showError(tr("Cannot open project %1:\n%2").arg(path, m_session->errorText()));
    return false;
  }
  showProjectFile();
  m_menus->statusLabel()->clear();
  m_views->showProject();
  updateActions();
  showMessage(m_session->hasLocalData() ? tr("Opened %1").arg(m_session->dir())
                                        : tr("Opened %1 for browsing: %2").arg(m_session->dir(), m_session->missingDataReason()),
              m_session->hasLocalData() ? 5000 : 15000);
  return true;
}

void MainWindow::showProjectFile() {
  // One colour per model in every dock: the project's models take the palette in project.json's
  // order (widgets::modelColor); a model added later takes the next free colour.
  QStringList families;
  for (const QString& n : m_session->runNames())
    if (!families.contains(widgets::modelFamily(n))) families << widgets::modelFamily(n);
  widgets::modelColors().assignInOrder(families, /*replace=*/m_colorsProject != m_session->dir());
  m_colorsProject = m_session->dir();
  setWindowTitle(tr("PHA Workbench - %1").arg(m_session->name()));
  setProjectLine(m_docks, m_session->name(), m_session->dir(), m_session->runNames());
  m_dataBanner->refresh();
  m_storeBanner->refresh();
}

bool MainWindow::reloadProjectFile() {
  if (!m_session->isOpen()) return false;
  // The running queue trains the plan it read when it started (QueueItem::resolved); the session
  // may read the file again meanwhile.
  if (!m_session->open(m_session->dir())) {
    showError(tr("Cannot read project %1 again:\n%2").arg(m_session->dir(), m_session->errorText()));
    return false;
  }
  showProjectFile();
  if (!m_session->isStoreDamaged()) {
    reloadRuns();  // keeps the selection
    m_report->refresh();
  }
  updateActions();
  return true;
}

bool MainWindow::openDefaultProject() {
  const QString path = m_projectActions->defaultProject();  // "" : it says why
  return !path.isEmpty() && openProject(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  m_projectActions->openDropped(event->mimeData()->urls());
  event->acceptProposedAction();
}

void MainWindow::newProjectFromTemplate() { m_projectActions->newFromTemplate(); }
void MainWindow::openProjectDialog() { m_projectActions->openDialog(); }
void MainWindow::addConfigAsVariant() { m_projectActions->addConfigAsVariant(); }
void MainWindow::exportSelectedReport() { m_projectActions->exportSelectedReport(); }

void MainWindow::buildFeatureDocks() {
  const FeatureViews v = buildFeatureViews(this, m_docks, m_session, m_queue);
  m_dataBanner = v.dataBanner;
  m_storeBanner = v.storeBanner;
  m_config = v.config;
  m_compare = v.compare;
  m_generate = v.generate;
  m_report = v.report;
  m_search = v.search;
  m_lens = v.lens;
  connect(m_dataBanner, &ProjectDataBanner::errorOccurred, this, &MainWindow::showError);
  connect(m_dataBanner, &ProjectDataBanner::dataChanged, this, [this] { reloadProjectFile(); });
  connect(m_storeBanner, &StoreDamageBanner::recoverRequested, this, &MainWindow::recoverStore);
  connect(v.addVariant, &QPushButton::clicked, this, &MainWindow::addConfigAsVariant);
}

void MainWindow::connectSearchView() {
  m_search->setQueueController(m_queueControl);
  connect(m_search, &SearchView::compareRequested, m_views, &RunViews::showCompare);
  connect(m_search, &SearchView::errorOccurred, this, &MainWindow::showError);
  connect(m_search, &SearchView::message, this, &MainWindow::showMessage);
  connect(m_search, &SearchView::sectionPresenceChanged, this, &MainWindow::updateActions);
  connect(m_search, &SearchView::projectFileChanged, this, [this](const QString& what) {
    reloadProjectFile();  // the promoted variant appears in the run list and the queue
    showMessage(what, 10000);
  });
}

void MainWindow::showSearch() {
  m_docks.searchDock->show();
  m_docks.searchDock->raise();
}

void MainWindow::setRecoverConfirm(std::function<bool(const QString&)> confirm) {
  m_projectActions->setRecoverConfirm(std::move(confirm));
}
bool MainWindow::recoverStore() { return m_projectActions->recoverStore(m_queueControl->isBusy()); }

}  // namespace pha::gui
