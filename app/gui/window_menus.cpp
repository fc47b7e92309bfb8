#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>
#include <QUndoStack>

#include "gui/config/config_editor.h"
#include "device/system_info.h"
#include "gui/help_dialogs.h"
#include "gui/main_window.h"
#include "gui/window_menus.h"
#include "gui/project/project_session.h"
#include "gui/runs/run_actions.h"
#include "widgets/theme.h"

#ifndef PHA_VERSION
#define PHA_VERSION "dev"
#endif

namespace pha::gui {

WindowMenus::WindowMenus(MainWindow* window) : QObject(window), m_window(window) {
  buildStatusBar();
  buildMenus();
}


void WindowMenus::update(const State& s) {
  m_runAction->setEnabled(s.open && !s.busy);
  m_planAction->setEnabled(s.open);
  m_measureAction->setEnabled(s.open && !s.busy);
  m_evaluateAction->setEnabled(s.open && !s.busy);
  m_searchAction->setEnabled(s.search);
  m_searchAction->setToolTip(s.search ? tr("Show the Search dock: the project's architecture search (Start runs or "
                                           "continues it)")
                                      : tr("This project has no \"search\" section: View > Search shows the dock, "
                                           "whose Section tab proposes one to add (docs/search.md)"));
  m_pauseAction->setEnabled(s.busy);
  m_pauseAction->setText(s.paused ? tr("Res&ume") : tr("&Pause"));
  m_cancelAction->setEnabled(s.busy);
  m_progress->setVisible(s.busy);
  // Run, Measure and Evaluate need the project's data and a sound store: disabled, with the reason.
  for (QAction* a : {m_runAction, m_measureAction, m_evaluateAction}) {
    // The menu's own tooltip is kept in a property; the reason is added while data is missing.
    if (!a->property("baseToolTip").isValid()) a->setProperty("baseToolTip", a->toolTip());
    const QString base = a->property("baseToolTip").toString();
    if (!s.unavailable.isEmpty()) a->setEnabled(false);
    const QString how = s.storeDamaged ? QString() : tr(" Use Locate data... or Install data... in the Project dock.");
    a->setToolTip(s.unavailable.isEmpty() ? base : tr("%1\n\nUnavailable: %2%3").arg(base, s.unavailable, how));
  }
}

void WindowMenus::buildMenus() {
  MainWindow* w = m_window;
  auto* file = w->menuBar()->addMenu(tr("&File"));
  auto* newProject = file->addAction(tr("&New project from template..."), w, &MainWindow::newProjectFromTemplate);
  newProject->setShortcut(QKeySequence::New);
  auto* open = file->addAction(tr("&Open project..."), w, &MainWindow::openProjectDialog);
  open->setShortcut(QKeySequence::Open);
  m_recentMenu = file->addMenu(tr("Open &recent"));
  connect(m_recentMenu, &QMenu::aboutToShow, this, &WindowMenus::refreshRecentMenu);
  file->addAction(tr("Export run &report..."), w, &MainWindow::exportSelectedReport);
  file->addSeparator();
  auto* quit = file->addAction(tr("&Quit"), w, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  auto* edit = w->menuBar()->addMenu(tr("&Edit"));
  edit->addAction(w->configEditor()->undoAction());
  edit->addAction(w->configEditor()->redoAction());
  edit->addSeparator();
  // Ctrl+Z is the configuration's undo; the runs' own.
  m_undoDeleteAction = edit->addAction(tr("Undo &delete runs"), w->runActions(), &RunActions::undoDelete);
  m_undoDeleteAction->setObjectName("undoDeleteRuns");
  m_undoDeleteAction->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Z));
  m_undoDeleteAction->setToolTip(tr("Bring back the runs deleted last (until the window closes they stay in the store)"));
  m_undoDeleteAction->setEnabled(false);

  buildRunMenu();
  buildViewMenu();

  auto* help = w->menuBar()->addMenu(tr("&Help"));
  auto* guide = help->addAction(tr("&User guide"), this, [w] { showUserGuide(w); });
  guide->setShortcut(QKeySequence::HelpContents);
  guide->setToolTip(tr("What each dock shows and how its figures are measured"));
  help->addAction(tr("&Keyboard shortcuts"), this, [w] { showKeyboardShortcuts(*w, w); });
  help->addSeparator();
  help->addAction(tr("&About PHA Workbench"), this, &WindowMenus::showAbout);
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void WindowMenus::buildRunMenu() {
  MainWindow* w = m_window;
  auto* run = w->menuBar()->addMenu(tr("&Run"));
  m_runAction = run->addAction(tr("&Run project"), w, &MainWindow::planThenRun);
  m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  m_runAction->setToolTip(tr("Train every run of the project, one after another (after its plan: runs, tokens per "
                             "parameter, estimated time, what each claim can detect)"));
  m_planAction = run->addAction(tr("P&lan project..."), w, &MainWindow::showPlan);
  m_planAction->setToolTip(tr("What the project will train, its budget in tokens per parameter, the estimated time "
                              "on this machine and the smallest effect each claim can detect (as `pha plan`)"));
  m_measureAction = run->addAction(tr("&Measure efficiency"), w, &MainWindow::measureEfficiency);
  m_measureAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  m_measureAction->setToolTip(tr("Measure tokens/s and peak memory against sequence length for the project's "
                                 "models (each point in a fresh pha process); the Efficiency dock shows them"));
  m_evaluateAction = run->addAction(tr("&Evaluate selected run"), w, &MainWindow::evaluateSelected);
  m_evaluateAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
  m_evaluateAction->setToolTip(tr("Evaluate the selected run again from its last checkpoint, with the plan of its "
                                  "final evaluation (as `pha eval`); the figures are recorded as its eval rows"));
  m_searchAction = run->addAction(tr("&Search..."), w, &MainWindow::showSearch);
  m_pauseAction = run->addAction(tr("&Pause"), w, &MainWindow::pauseOrResume);
  m_pauseAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
  m_cancelAction = run->addAction(tr("&Cancel"), w, &MainWindow::cancelRuns);
  m_cancelAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
  run->addSeparator();
  run->addAction(tr("Re&load runs"), w, &MainWindow::reloadRuns)->setShortcut(QKeySequence::Refresh);

  auto* tools = w->addToolBar(tr("Run"));
  tools->setObjectName("toolbar.run");
  tools->addAction(m_runAction);
  tools->addAction(m_measureAction);
  tools->addAction(m_pauseAction);
  tools->addAction(m_cancelAction);
}

void WindowMenus::buildViewMenu() {
  MainWindow* w = m_window;
  auto* view = w->menuBar()->addMenu(tr("&View"));
  for (auto* dock : w->findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
  view->addSeparator();
  view->addAction(tr("&Reset layout"), w, &MainWindow::resetLayout);
  auto* themes = view->addMenu(tr("&Theme"));
  auto* group = new QActionGroup(w);
  const QString current = QSettings().value("ui/theme", "light").toString();
  for (widgets::Theme t : {widgets::Theme::Light, widgets::Theme::Dark}) {
    auto* a = themes->addAction(t == widgets::Theme::Light ? tr("Light") : tr("Dark"));
    a->setCheckable(true);
    a->setChecked(widgets::themeName(t) == current);
    group->addAction(a);
    connect(a, &QAction::triggered, this, [t] {
      widgets::applyTheme(t);
      QSettings().setValue("ui/theme", widgets::themeName(t));
    });
  }
}

void WindowMenus::buildStatusBar() {
  MainWindow* w = m_window;
  m_statusLabel = new QLabel(w);
  m_statusLabel->setObjectName("statusLabel");
  m_progress = new QProgressBar(w);
  m_progress->setObjectName("runProgress");
  m_progress->setMaximumWidth(260);
  // Wide enough for its longest text on one line ("profile: 12/12 points", "run 2 of 3: 61%").
  m_progress->setMinimumWidth(m_progress->fontMetrics().horizontalAdvance(tr("profile: 12/12 points")) + 28);
  m_progress->setTextVisible(true);
  m_progress->hide();
  w->statusBar()->addWidget(m_statusLabel, 1);
  w->statusBar()->addPermanentWidget(m_progress);
  w->statusBar()->showMessage(tr("Ready"), 3000);
}

void WindowMenus::refreshRecentMenu() {
  MainWindow* w = m_window;
  m_recentMenu->clear();
  for (const QString& dir : w->session()->recentProjects())
    m_recentMenu->addAction(dir, this, [w, dir] { w->openProject(dir); });
  if (m_recentMenu->isEmpty()) m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
}

void WindowMenus::showAbout() {
  const device::SystemInfo info = device::collect_system_info(/*measure_gemm=*/false);
  QMessageBox::about(
      m_window, tr("About PHA Workbench"),
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

}  // namespace pha::gui
