// The window at a 1280 x 720 screen (docs/gui.md, "Layout"): the Project dock keeps Compare
// selected and the notes field in view, and Compare, asked for, gets the height to show its
// curves with their x axis and legend without scrolling.
#include <QDockWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QTest>
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include "gui/compare/compare_widget.h"
#include "gui/compare/curves_tab.h"
#include "gui/docks.h"
#include "gui/main_window.h"
#include "gui/runs/run_browser.h"
#include "gui/runs/run_notes_panel.h"
#include "window_project.h"

using namespace pha::gui;

namespace {
// Visible on screen: not scrolled out of its dock, not zero-sized.
bool inView(QWidget* w) { return w->isVisible() && !w->visibleRegion().isEmpty(); }
}  // namespace

TEST(WindowSizes, At1280x720TheProjectDockAndCompareFit) {
  QSettings().clear();
  pha::test::WindowProject p;
  MainWindow w;
  w.resize(1280, 720);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  ASSERT_TRUE(w.openProject(p.dir())) << w.lastError().toStdString();
  QTest::qWait(100);  // the default dock sizes are applied after the first show
  EXPECT_TRUE(inView(w.docks().compareButton)) << "Compare selected scrolled out of the Project dock";
  EXPECT_TRUE(inView(w.docks().runNotes)) << "the notes field scrolled out of the Project dock";
  ASSERT_TRUE(w.runBrowser()->selectRuns({p.ids[0], p.ids[1], p.ids[2]}));
  w.compareSelected();
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.compareWidget()->loadedRuns().size() == 3; }, 10000));
  QTest::qWait(100);
  EXPECT_GE(w.docks().compareDock->height(), 720 * 45 / 100) << "Compare asked for gets the larger share";
  auto* scroll = w.docks().compareDock->findChild<QScrollArea*>();
  ASSERT_NE(scroll, nullptr);
  EXPECT_EQ(scroll->verticalScrollBar()->maximum(), 0) << "the Compare dock scrolls: its plot's x axis is out of view";
  QCustomPlot* plot = w.compareWidget()->curvesTab()->plot();
  plot->replot();
  const QRect axes = plot->axisRect()->rect();
  EXPECT_GE(axes.height(), 80) << "the curves are drawn at a readable height";
  EXPECT_LE(axes.bottom() + 30, plot->height()) << "the x axis and its labels are inside the plot";
}
