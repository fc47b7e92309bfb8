#include "gui/window_layout.h"

#include <QDockWidget>
#include <QGuiApplication>
#include <QMainWindow>
#include <QScreen>
#include <QSettings>
#include <QTimer>
#include <QWidget>
#include <algorithm>

namespace pha::gui {

void WindowLayout::place() {
  QMainWindow* w = m_window;
  w->setDockNestingEnabled(true);
  w->setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowNestedDocks | QMainWindow::AllowTabbedDocks);
  const Docks& d = m_docks;
  // Left: project and configuration; middle: curves over efficiency; right: mixer over compare/generate.
  // The left column runs full height; compare/efficiency/generate span the bottom under the
  // curves and the mixer.
  // A hidden central widget: every view is a dock, and QMainWindow::resizeDocks only takes
  // effect when there is a central widget to give space to or take it from.
  auto* central = new QWidget(w);
  central->setObjectName("centralPlaceholder");
  w->setCentralWidget(central);
  central->hide();
  w->addDockWidget(Qt::LeftDockWidgetArea, d.projectDock);
  w->splitDockWidget(d.projectDock, d.configDock, Qt::Vertical);
  w->addDockWidget(Qt::RightDockWidgetArea, d.curvesDock);
  w->splitDockWidget(d.curvesDock, d.compareDock, Qt::Vertical);
  w->splitDockWidget(d.curvesDock, d.mixerDock, Qt::Horizontal);
  w->tabifyDockWidget(d.compareDock, d.efficiencyDock);
  w->tabifyDockWidget(d.efficiencyDock, d.generateDock);
  w->tabifyDockWidget(d.compareDock, d.reportDock);
  w->tabifyDockWidget(d.reportDock, d.searchDock);
  w->tabifyDockWidget(d.searchDock, d.lensDock);
  d.compareDock->raise();
}

void WindowLayout::fitScreen() {
  // Fill most of the screen (there may be no window manager to do it, e.g. under Xvfb).
  if (const QScreen* screen = QGuiApplication::primaryScreen()) {
    const QRect avail = screen->availableGeometry();
    m_window->resize(std::min(1600, avail.width()), std::min(1000, avail.height()));
    m_window->move(avail.topLeft());
  } else {
    m_window->resize(1500, 920);
  }
  // Fits a 1280 x 720 screen with its panels; below each dock's own minimum its content scrolls.
  m_window->setMinimumSize(1000, 640);
}

void WindowLayout::markDefault() { m_defaultState = m_window->saveState(); }

void WindowLayout::applyDefaultSizes() {
  QMainWindow* w = m_window;
  const Docks& d = m_docks;
  const int width = w->width();
  // The project column is wide enough for the run table's default columns (docs/gui.md), the
  // mixer column for its heatmap and its readout's lines.
  w->resizeDocks({d.projectDock, d.curvesDock, d.mixerDock}, {width * 42 / 100, width * 34 / 100, width * 24 / 100}, Qt::Horizontal);
  // Compare gets the larger share when it already shows runs (pha-workbench PROJECT --compare).
  if (!m_compareShowsRuns())
    w->resizeDocks({d.curvesDock, d.compareDock}, {w->height() * 52 / 100, w->height() * 40 / 100}, Qt::Vertical);
  else
    w->resizeDocks({d.curvesDock, d.compareDock}, {w->height() * 34 / 100, w->height() * 58 / 100}, Qt::Vertical);
  // A short window gives the run table half the column: at 40% it showed one row at 700 px. At
  // 1000 px, 40% left the Notes panel below the table scrolled out of view; 46% shows it.
  const int projectShare = w->height() < 900 ? 60 : 46;
  w->resizeDocks({d.projectDock, d.configDock}, {w->height() * projectShare / 100, w->height() * (100 - projectShare) / 100},
              Qt::Vertical);
}

void WindowLayout::shown() {
  if (m_sized) return;
  m_sized = true;
  if (!m_restored)
    QTimer::singleShot(0, m_window, [this] {
      applyDefaultSizes();
      m_defaultState = m_window->saveState();
    });
  else if (m_refitDocks)
    QTimer::singleShot(0, m_window, [this] { applyDefaultSizes(); });
}

void WindowLayout::save() const {
  QSettings s;
  s.beginGroup("mainWindow");
  s.setValue("geometry", m_window->saveGeometry());
  s.setValue("state", m_window->saveState());
  s.endGroup();
}

bool WindowLayout::restore() {
  QMainWindow* w = m_window;
  QSettings s;
  s.beginGroup("mainWindow");
  bool ok = true;
  if (s.contains("geometry")) ok = w->restoreGeometry(s.value("geometry").toByteArray()) && ok;
  // A window saved on a larger screen (1600 x 1000, now 1280 x 720) is brought inside this one;
  // its docks keep where they are and whether they show, and take the default shares of this size.
  bool shrunk = false;
  if (const QScreen* screen = w->screen() ? w->screen() : QGuiApplication::primaryScreen()) {
    const QRect avail = screen->availableGeometry();
    const QRect frame = w->frameGeometry();
    if (!avail.contains(frame)) {
      const QSize extra = frame.size() - w->size();  // the window manager's frame
      const QSize fit(std::min(w->width(), avail.width() - extra.width()), std::min(w->height(), avail.height() - extra.height()));
      shrunk = fit != w->size();
      w->resize(fit.expandedTo(w->minimumSize()));
      w->move(avail.topLeft());
    }
  }
  if (s.contains("state")) {
    ok = w->restoreState(s.value("state").toByteArray()) && ok;
    m_restored = ok;
  }
  m_refitDocks = shrunk;  // which docks show stays; their sizes are this window's defaults
  s.endGroup();
  return ok;
}

void WindowLayout::reset() {
  QMainWindow* w = m_window;
  // The docks go back to their places at the window's size now (restoring a state saved at
  // another size must not resize the window: it grew to 1325 x 737 from 1000 x 700).
  const QSize keep = w->size();
  w->restoreState(m_defaultState);
  for (auto* dock : w->findChildren<QDockWidget*>()) dock->show();
  w->resize(keep);
  applyDefaultSizes();
}

}  // namespace pha::gui
