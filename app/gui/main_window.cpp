#include "main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

#include "core/system_info.h"
#include "docks.h"
#include "theme.h"

#ifndef PHA_VERSION
#define PHA_VERSION "dev"
#endif

namespace pha::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName("mainWindow");
  setWindowTitle(tr("PHA Workbench"));
  setWindowIcon(QIcon(":/pha/icons/pha-workbench.svg"));
  setDockNestingEnabled(true);
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowNestedDocks | QMainWindow::AllowTabbedDocks);

  // Left column: project + configuration; middle: curves over efficiency; right: mixer, compare.
  auto* project = makeProjectDock(this);
  auto* config = makeConfigDock(this);
  auto* curves = makeCurvesDock(this);
  auto* mixer = makeMixerDock(this);
  auto* efficiency = makeEfficiencyDock(this);
  auto* compare = makeCompareDock(this);
  addDockWidget(Qt::LeftDockWidgetArea, project);
  splitDockWidget(project, curves, Qt::Horizontal);
  splitDockWidget(curves, mixer, Qt::Horizontal);
  splitDockWidget(project, config, Qt::Vertical);
  splitDockWidget(curves, efficiency, Qt::Vertical);
  splitDockWidget(mixer, compare, Qt::Vertical);
  resizeDocks({project, curves, mixer}, {380, 700, 420}, Qt::Horizontal);

  buildMenus();
  statusBar()->showMessage(tr("Ready"));
  resize(1500, 920);
  m_defaultState = saveState();
}

void MainWindow::buildMenus() {
  auto* file = menuBar()->addMenu(tr("&File"));
  auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

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
          .arg(info.cuda_available ? tr("available") : tr("not available"),
               QString::fromStdString(info.data_dir)));
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
  if (s.contains("state")) ok = restoreState(s.value("state").toByteArray()) && ok;
  s.endGroup();
  return ok;
}

void MainWindow::resetLayout() {
  restoreState(m_defaultState);
  for (auto* dock : findChildren<QDockWidget*>()) dock->show();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveSettings();
  event->accept();
}

}  // namespace pha::gui
