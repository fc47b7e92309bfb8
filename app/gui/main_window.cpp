#include "main_window.h"

#include <QAction>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QTableView>
#include <QPushButton>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QScreen>
#include <QShowEvent>
#include <QTimer>
#include <QToolBar>

#include "device/system_info.h"
#include "project_session.h"
#include "run_monitor.h"
#include "run_queue.h"
#include "runs_model.h"
#include "theme.h"

#ifndef PHA_VERSION
#define PHA_VERSION "dev"
#endif

namespace pha::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("mainWindow");
  setWindowTitle(tr("PHA Workbench"));
  setWindowIcon(QIcon(":/pha/icons/pha-workbench.svg"));
  setAcceptDrops(true);
  m_session = new ProjectSession(this);
  m_queue = new RunQueue(this);
  m_docks = buildDocks(this);
  m_runs = new RunsModel(this);
  m_runsProxy = new RunsFilterModel(this);
  m_runsProxy->setSourceModel(m_runs);
  m_docks.runsTable->setModel(m_runsProxy);
  m_monitor = new RunMonitor(m_docks.lossPlot, m_docks.qualityPlot, m_docks.mixerPanel, m_docks.liveReadout, this);
  buildLayout();
  buildMenus();
  buildFeatureDocks();
  buildStatusBar();
  connectQueue();
  connectProfiler();
  connect(m_docks.runFilter, &QLineEdit::textChanged, m_runsProxy, &RunsFilterModel::setFilterText);
  connect(m_docks.runsTable->selectionModel(), &QItemSelectionModel::selectionChanged, this, &MainWindow::onRunSelected);
  connect(m_docks.compareButton, &QPushButton::clicked, this, &MainWindow::compareSelected);
  updateActions();
  // Fill most of the screen (there may be no window manager to do it, e.g. under Xvfb).
  if (const QScreen* screen = QGuiApplication::primaryScreen()) {
    const QRect avail = screen->availableGeometry();
    resize(std::min(1600, avail.width()), std::min(1000, avail.height()));
    move(avail.topLeft());
  } else {
    resize(1500, 920);
  }
  m_defaultState = saveState();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildLayout() {
  setDockNestingEnabled(true);
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowNestedDocks | QMainWindow::AllowTabbedDocks);
  const Docks& d = m_docks;
  // Left: project and configuration; middle: curves over efficiency; right: mixer over compare/generate.
  // The left column runs full height; compare/efficiency/generate span the bottom under the
  // curves and the mixer.
  // A hidden central widget: every view is a dock, and QMainWindow::resizeDocks only takes
  // effect when there is a central widget to give space to or take it from.
  auto* central = new QWidget(this);
  central->setObjectName("centralPlaceholder");
  setCentralWidget(central);
  central->hide();
  addDockWidget(Qt::LeftDockWidgetArea, d.projectDock);
  splitDockWidget(d.projectDock, d.configDock, Qt::Vertical);
  addDockWidget(Qt::RightDockWidgetArea, d.curvesDock);
  splitDockWidget(d.curvesDock, d.compareDock, Qt::Vertical);
  splitDockWidget(d.curvesDock, d.mixerDock, Qt::Horizontal);
  tabifyDockWidget(d.compareDock, d.efficiencyDock);
  tabifyDockWidget(d.efficiencyDock, d.generateDock);
  d.compareDock->raise();
}

void MainWindow::applyDefaultSizes() {
  const Docks& d = m_docks;
  const int w = width();
  resizeDocks({d.projectDock, d.curvesDock, d.mixerDock}, {w * 26 / 100, w * 46 / 100, w * 28 / 100}, Qt::Horizontal);
  resizeDocks({d.curvesDock, d.compareDock}, {height() * 52 / 100, height() * 40 / 100}, Qt::Vertical);
  resizeDocks({d.projectDock, d.configDock}, {height() * 40 / 100, height() * 60 / 100}, Qt::Vertical);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (!m_sized) {
    m_sized = true;
    if (!m_restored) QTimer::singleShot(0, this, [this] {
        applyDefaultSizes();
        m_defaultState = saveState();
      });
  }
}

void MainWindow::buildMenus() {
  auto* file = menuBar()->addMenu(tr("&File"));
  auto* newProject = file->addAction(tr("&New project from template..."), this, &MainWindow::newProjectFromTemplate);
  newProject->setShortcut(QKeySequence::New);
  auto* open = file->addAction(tr("&Open project..."), this, &MainWindow::openProjectDialog);
  open->setShortcut(QKeySequence::Open);
  m_recentMenu = file->addMenu(tr("Open &recent"));
  connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::refreshRecentMenu);
  file->addSeparator();
  auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  auto* run = menuBar()->addMenu(tr("&Run"));
  m_runAction = run->addAction(tr("&Run project"), this, &MainWindow::runProject);
  m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  m_runAction->setToolTip(tr("Train every run of the project, one after another"));
  m_measureAction = run->addAction(tr("&Measure efficiency"), this, &MainWindow::measureEfficiency);
  m_measureAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  m_measureAction->setToolTip(tr("Measure tokens/s and peak memory against sequence length for the project's "
                                 "models (each point in a fresh pha process); the Efficiency dock shows them"));
  m_pauseAction = run->addAction(tr("&Pause"), this, &MainWindow::pauseOrResume);
  m_pauseAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
  m_cancelAction = run->addAction(tr("&Cancel"), this, &MainWindow::cancelRuns);
  m_cancelAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
  run->addSeparator();
  run->addAction(tr("Re&load runs"), this, &MainWindow::reloadRuns)->setShortcut(QKeySequence::Refresh);

  auto* tools = addToolBar(tr("Run"));
  tools->setObjectName("toolbar.run");
  tools->addAction(m_runAction);
  tools->addAction(m_measureAction);
  tools->addAction(m_pauseAction);
  tools->addAction(m_cancelAction);

  auto* view = menuBar()->addMenu(tr("&View"));
  for (auto* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
  view->addSeparator();
  view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);
  auto* themes = view->addMenu(tr("&Theme"));
  auto* group = new QActionGroup(this);
  const QString current = QSettings().value("ui/theme", "light").toString();
  for (Theme t : {Theme::Light, Theme::Dark}) {
    auto* a = themes->addAction(t == Theme::Light ? tr("Light") : tr("Dark"));
    a->setCheckable(true);
    a->setChecked(themeName(t) == current);
    group->addAction(a);
    connect(a, &QAction::triggered, this, [t] {
      applyTheme(t);
      QSettings().setValue("ui/theme", themeName(t));
    });
  }

  auto* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About PHA Workbench"), this, &MainWindow::showAbout);
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::buildStatusBar() {
  m_statusLabel = new QLabel(this);
  m_statusLabel->setObjectName("statusLabel");
  m_progress = new QProgressBar(this);
  m_progress->setObjectName("runProgress");
  m_progress->setMaximumWidth(260);
  m_progress->setTextVisible(true);
  m_progress->hide();
  statusBar()->addWidget(m_statusLabel, 1);
  statusBar()->addPermanentWidget(m_progress);
  statusBar()->showMessage(tr("Ready"), 3000);
}

void MainWindow::showError(const QString& message) {
  m_lastError = message;
  statusBar()->showMessage(message, 15000);
  emit errorShown(message);
  if (isVisible() && QApplication::platformName() != "offscreen")
    QMessageBox::warning(this, tr("PHA Workbench"), message);
}

void MainWindow::showAbout() {
  const SystemInfo info = collect_system_info(/*measure_gemm=*/false);
  QMessageBox::about(
      this, tr("About PHA Workbench"),
      tr("<h3>PHA Workbench %1</h3>"
         "<p>Build, train, measure and compare Parallel Hybrid Architecture (GSS + attention) "
         "language models.</p>"
         "<table><tr><td>Qt</td><td>%2 (built with %3)</td></tr>"
         "<tr><td>LibTorch</td><td>%4</td></tr>"
         "<tr><td>Threads</td><td>%5</td></tr>"
         "<tr><td>CUDA</td><td>%6</td></tr>"
         "<tr><td>Data directory</td><td>%7</td></tr></table>")
          .arg(PHA_VERSION, qVersion(), QT_VERSION_STR, QString::fromStdString(info.torch_version))
          .arg(info.threads)
          .arg(info.cuda_available ? tr("available") : tr("not available"), QString::fromStdString(info.data_dir)));
}

void MainWindow::saveSettings() const {
  QSettings s;
  s.beginGroup("mainWindow");
  s.setValue("geometry", saveGeometry());
  s.setValue("state", saveState());
  s.endGroup();
}

bool MainWindow::restoreSettings() {
  QSettings s;
  s.beginGroup("mainWindow");
  bool ok = true;
  if (s.contains("geometry")) ok = restoreGeometry(s.value("geometry").toByteArray()) && ok;
  if (s.contains("state")) {
    ok = restoreState(s.value("state").toByteArray()) && ok;
    m_restored = ok;
  }
  s.endGroup();
  return ok;
}

void MainWindow::resetLayout() {
  restoreState(m_defaultState);
  for (auto* dock : findChildren<QDockWidget*>()) dock->show();
  applyDefaultSizes();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (m_queue->isBusy()) {
    if (QApplication::platformName() != "offscreen" &&
        QMessageBox::question(this, tr("PHA Workbench"),
                              tr("A run is training. Cancel it (a checkpoint is written) and quit?")) !=
            QMessageBox::Yes) {
      event->ignore();
      return;
    }
    m_queue->cancelAll();
  }
  saveSettings();
  event->accept();
}

}  // namespace pha::gui
