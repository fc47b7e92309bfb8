// One store, every view current (docs/gui.md): what changes in the open project's store reaches
// every view of the window through StoreWatcher — the run table, the notes field, Compare and
// Live curves — whether the window made the change or a `pha runs` process beside it did, and
// the idle window shows a `pha` write within 2 s (the measured delay is printed).
#include <QElapsedTimer>
#include <QFont>
#include <QLabel>
#include <QProcess>
#include <QSettings>
#include <QTest>
#include <cstdio>
#include <functional>
#include <gtest/gtest.h>

#include "gui/compare/compare_widget.h"
#include "gui/docks.h"
#include "gui/main_window.h"
#include "gui/runs/run_actions.h"
#include "gui/runs/run_browser.h"
#include "gui/monitor/run_monitor.h"
#include "gui/runs/runs_model.h"
#include "store/search_store.h"
#include "gui/project/store_watcher.h"
#include "tests/app/gui/window_project.h"

using namespace pha::gui;

namespace {

QString cellOf(MainWindow& w, qint64 id, int column) {
  RunsModel* m = w.runsModel();
  const int row = m->rowOfRun(id);
  return row < 0 ? QString() : m->data(m->index(row, column)).toString();
}

bool compareHas(MainWindow& w, const QString& label) {
  for (const LoadedRun& r : w.compareWidget()->loadedRuns())
    if (r.label == label) return true;
  return false;
}

bool compareHasRun(MainWindow& w, qint64 id) {
  for (const RunRef& r : w.compareWidget()->runs())
    if (r.runId == id) return true;
  return false;
}

// The window open on the project: Compare on its three runs, Live curves on the third.
struct OpenWindow {
  pha::test::WindowProject p;
  MainWindow w;
  OpenWindow() {
    QSettings().clear();
    w.show();
    EXPECT_TRUE(w.openProject(p.dir())) << w.lastError().toStdString();
    w.runActions()->setConfirm([](const QString&) { return true; });
    EXPECT_TRUE(w.runBrowser()->selectRuns({p.ids[0], p.ids[1], p.ids[2]}));
    w.compareSelected();
    EXPECT_TRUE(QTest::qWaitFor([&] { return w.compareWidget()->loadedRuns().size() == 3; }, 10000));
    EXPECT_TRUE(w.runBrowser()->selectRuns({p.ids[2]}));
    EXPECT_EQ(w.monitor()->shownRunId(), p.ids[2]);
  }
};

}  // namespace

TEST(StoreFollow, RenameTagAndDeleteInTheWindowReachEveryViewAtOnce) {
  OpenWindow o;
  MainWindow& w = o.w;
  const auto& ids = o.p.ids;
  ASSERT_TRUE(w.runActions()->rename(ids[0], "pha-tiny-renamed"));
  QCoreApplication::processEvents();
  EXPECT_EQ(cellOf(w, ids[0], RunsModel::Name), "pha-tiny-renamed");
  EXPECT_TRUE(QTest::qWaitFor([&] { return compareHas(w, "pha-tiny-renamed"); }, 5000))
      << "Compare lists the new name";
  EXPECT_FALSE(compareHas(w, "pha-tiny"));

  ASSERT_TRUE(w.runActions()->deleteRuns({ids[2]}));  // hidden until the window closes
  QCoreApplication::processEvents();
  EXPECT_FALSE(compareHasRun(w, ids[2])) << "a deleted run leaves Compare at once";
  EXPECT_EQ(w.compareWidget()->runs().size(), 2);
  EXPECT_EQ(w.monitor()->shownRunId(), 0) << "Live curves no longer show the deleted run";
  EXPECT_TRUE(w.docks().liveReadout->text().contains("was deleted")) << w.docks().liveReadout->text().toStdString();

  ASSERT_TRUE(w.runActions()->undoDelete());
  QCoreApplication::processEvents();
  EXPECT_GE(w.runsModel()->rowOfRun(ids[2]), 0) << "undo brings it back to the table";
}

#ifdef PHA_CLI_PATH
namespace {
// Runs `pha runs ...` on the project's store; returns how long the window took to show it.
qint64 phaThenWait(MainWindow& w, const QString& store, QStringList args, const std::function<bool()>& shown) {
  QProcess cli;
  args << "--store" << store;
  cli.start(PHA_CLI_PATH, QStringList{"runs"} + args);
  EXPECT_TRUE(cli.waitForFinished(30000));
  EXPECT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
  QElapsedTimer t;
  t.start();
  if (!QTest::qWaitFor(shown, 2000)) return -1;
  return t.elapsed();
}
}  // namespace

TEST(StoreFollow, AnIdleWindowShowsWhatPhaRunsWritesWithinTwoSeconds) {
  OpenWindow o;
  MainWindow& w = o.w;
  const auto& ids = o.p.ids;
  const QString store = o.p.store();
  const qint64 tag = phaThenWait(w, store, {"tag", QString::number(ids[0]), "baseline"},
                                 [&] { return cellOf(w, ids[0], RunsModel::Tags) == "baseline"; });
  EXPECT_GE(tag, 0) << "the Tags cell shows the tag within 2 s";
  const qint64 rename = phaThenWait(w, store, {"rename", QString::number(ids[1]), "tpp-renamed"}, [&] {
    return cellOf(w, ids[1], RunsModel::Name) == "tpp-renamed" && compareHas(w, "tpp-renamed");
  });
  EXPECT_GE(rename, 0) << "the table and Compare show the new name within 2 s";
  const qint64 del = phaThenWait(w, store, {"delete", QString::number(ids[2]), "--yes"}, [&] {
    return w.runsModel()->rowOfRun(ids[2]) < 0 && !compareHasRun(w, ids[2]) && w.monitor()->shownRunId() == 0;
  });
  EXPECT_GE(del, 0) << "the table, Compare and Live curves drop the deleted run within 2 s";
  std::printf("[ measured ] window shows `pha runs` writes after: tag %lld ms, rename %lld ms, delete %lld ms "
              "(after the process exited; watcher interval %d ms)\n",
              static_cast<long long>(tag), static_cast<long long>(rename), static_cast<long long>(del),
              w.storeWatcher()->intervalMs());
}
#endif

// A run a search measured is marked in the run table (its name in italics, its tooltip says
// which trial and rung) and Delete... says so before asking.
TEST(StoreFollow, ARunASearchMeasuredIsMarkedAndItsDeleteSaysSo) {
  QSettings().clear();
  pha::test::WindowProject p;
  {
    auto s = p.open();
    pha::store::SearchDecisionRow row;
    row.project = "test";
    row.search = "pha-tiny";
    row.rung = 0;
    row.trial = 3;
    row.resource = 15;
    row.label = "lr=0.001";
    row.decision = "stopped";
    row.values_json = "[[3.2]]";
    row.runs_json = "[" + std::to_string(p.ids[0]) + "]";
    pha::store::record_search_decisions(s, {row});
  }
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(p.dir())) << w.lastError().toStdString();
  RunsModel* m = w.runsModel();
  const int row = m->rowOfRun(p.ids[0]);
  ASSERT_GE(row, 0);
  EXPECT_TRUE(m->data(m->index(row, RunsModel::Name), Qt::FontRole).value<QFont>().italic());
  const QString tip = m->data(m->index(row, RunsModel::Id), Qt::ToolTipRole).toString();
  EXPECT_TRUE(tip.contains("Measured by a search: search pha-tiny, trial 3 (lr=0.001), rung 0: stopped"))
      << tip.toStdString();
  const int other = m->rowOfRun(p.ids[1]);
  EXPECT_FALSE(m->data(m->index(other, RunsModel::Name), Qt::FontRole).value<QFont>().italic());
  QString asked;
  w.runActions()->setConfirm([&](const QString& q) {
    asked = q;
    return false;
  });
  EXPECT_FALSE(w.runActions()->deleteRuns({p.ids[0]}));
  EXPECT_TRUE(asked.contains("Measured by a search")) << asked.toStdString();
  EXPECT_TRUE(asked.contains("trial 3")) << asked.toStdString();
  EXPECT_TRUE(asked.contains("keeps its recorded decisions")) << asked.toStdString();
}
