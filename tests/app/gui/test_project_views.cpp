// What the window shows of the project it has open, offscreen: a damaged run store is said
// (a banner, nothing read or written) and recovered on request; after switching projects every
// view shows the new project or says it is empty; a project whose data is not here still gets
// its report; a profile run says what it is when picked.
#include <QAction>
#include <QDockWidget>
#include <QHeaderView>
#include <QScrollArea>
#include <QTableView>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QStatusBar>
#include <QTableWidget>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <qcustomplot.h>

#include "gui/compare/compare_widget.h"
#include "widgets/curve_plot.h"
#include "gui/docks.h"
#include "widgets/efficiency_panel.h"
#include "engine/runtime/runtime_test_util.h"
#include "gui/generate/generate_panel.h"
#include "gui/main_window.h"
#include "widgets/mixer_panel.h"
#include "gui/project/project_session.h"
#include "gui/report/report_view.h"
#include "gui/monitor/run_monitor.h"
#include "gui/runs/runs_model.h"
#include "store/run_writer.h"
#include "store/store.h"
#include "gui/project/store_damage_banner.h"
#include "app/gui/window_waits.h"

using namespace pha::gui;
using nlohmann::json;
namespace fs = std::filesystem;

using pha::test::actionNamed;

namespace {

std::string bytesOf(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Finished runs of the project's one run, with curves, evaluations and a mixer, as `pha train`
// writes them.
std::vector<std::int64_t> writeRuns(const pha::test::TempProject& tp, int count, const std::string& name = "test") {
  auto store = pha::store::Store::open(tp.store());
  std::vector<std::int64_t> ids;
  for (int r = 0; r < count; ++r) {
    pha::store::NewRun nr;
    nr.project = "test";
    nr.name = name;
    nr.group = name;
    nr.seed = r + 1;
    nr.variant = "pha";
    nr.config_json = json{{"model", pha::test::TempProject::tiny_model()}}.dump();
    nr.n_params = 12345;
    ids.push_back(store.create_run(nr));
    pha::store::RunWriter w(store, ids.back());
    for (int s = 1; s <= 20; ++s) w.metric("train/loss", s, s * 64, s * 10, 5.0 - 0.1 * s - 0.01 * r);
    for (int s : {10, 20}) w.metric("val/loss", s, s * 64, s * 10, 4.0 - 0.05 * s - 0.01 * r);
    w.mixer({20, 2, 3, {0.2f, 0.3f, 0.5f, 0.4f, 0.4f, 0.2f}});
    w.finish(pha::store::RunStatus::Finished);
  }
  return ids;
}

bool reportBuilt(MainWindow& w) {
  return QTest::qWaitFor([&] { return !w.reportView()->isBuilding(); }, 20000);
}

}  // namespace

// The store corrupted on 2026-12-02, opened in the window: a banner says what is wrong, that
// the file is kept untouched and how to recover; no run is shown, nothing trains, no report is
// read, and the file stays byte for byte; Recover... rebuilds it and the runs appear.
TEST(StoreHealth, ADamagedStoreIsSaidNotShownAndIsRecoveredOnRequest) {
  pha::test::TempProject tp;
  tp.write_project(tp.text_project());
  fs::copy_file(std::string(PHA_SOURCE_DIR) + "/tests/engine/store/data/damaged-2026-12-02.sqlite", tp.store());
  fs::permissions(tp.store(), fs::perms::owner_read | fs::perms::owner_write);
  const std::string before = bytesOf(tp.store());

  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  StoreDamageBanner* banner = w.storeBanner();
  ASSERT_TRUE(banner->isVisible());
  const QString text = banner->text();
  EXPECT_TRUE(text.contains("run store is damaged")) << text.toStdString();
  EXPECT_TRUE(text.contains("btreeInitPage")) << "says what SQLite found: " << text.toStdString();
  EXPECT_TRUE(text.contains("kept untouched")) << text.toStdString();
  EXPECT_TRUE(text.contains("pha runs recover")) << text.toStdString();
  EXPECT_EQ(w.runsModel()->rowCount(), 0) << "a damaged store's runs are not shown";
  EXPECT_FALSE(actionNamed(w, "&Run project")->isEnabled());
  EXPECT_FALSE(actionNamed(w, "&Measure efficiency")->isEnabled());
  EXPECT_TRUE(actionNamed(w, "&Run project")->toolTip().contains("damaged"));
  EXPECT_TRUE(w.reportView()->message().contains("damaged")) << w.reportView()->message().toStdString();
  w.reloadRuns();
  w.reportView()->refresh();
  ASSERT_TRUE(reportBuilt(w));
  EXPECT_TRUE(bytesOf(tp.store()) == before) << "the window wrote to the damaged store";

  QString asked;
  w.setRecoverConfirm([&](const QString& q) {
    asked = q;
    return false;
  });
  banner->recoverButton()->click();
  EXPECT_TRUE(asked.contains("damaged file is kept beside it")) << asked.toStdString();
  EXPECT_TRUE(bytesOf(tp.store()) == before) << "declined: nothing happens";
  w.setRecoverConfirm([](const QString&) { return true; });
  banner->recoverButton()->click();
  EXPECT_FALSE(banner->isVisible());
  EXPECT_EQ(w.runsModel()->rowCount(), 10) << w.lastError().toStdString();
  EXPECT_TRUE(actionNamed(w, "&Run project")->isEnabled());
  EXPECT_TRUE(w.statusBar()->currentMessage().startsWith("Recovered 10 run(s)"))
      << w.statusBar()->currentMessage().toStdString();
  int kept = 0;
  for (const auto& e : fs::directory_iterator(tp.dir()))
    if (const std::string name = e.path().filename().string();
        name.rfind("runs.sqlite.damaged-", 0) == 0 && name.find("-wal") == std::string::npos &&
        name.find("-shm") == std::string::npos) {
      ++kept;
      EXPECT_TRUE(bytesOf(e.path().string()) == before) << "the damaged file is not kept as it was";
    }
  EXPECT_EQ(kept, 1);
  ASSERT_TRUE(reportBuilt(w));
  EXPECT_NE(w.reportView()->report(), nullptr) << w.reportView()->message().toStdString();
}

// Opening another project replaces what every view shows: the curves, the heatmap, Compare,
// the Generate dock, the report and the status line hold nothing of the project before.
TEST(ProjectSwitch, EveryViewShowsTheOpenProjectOrSaysItIsEmpty) {
  pha::test::TempProject a, b;
  a.write_project(a.text_project());
  json jb = b.text_project();
  jb["name"] = "second";
  b.write_project(jb);
  const auto ids = writeRuns(a, 2);

  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(a.dir().string())));
  ASSERT_TRUE(reportBuilt(w));
  ASSERT_NE(w.reportView()->report(), nullptr);
  ASSERT_GT(w.reportView()->groupsTable()->rowCount(), 0);
  ASSERT_TRUE(w.monitor()->showStoredRun(QString::fromStdString(a.store()), ids[0]));
  EXPECT_GT(w.docks().lossPlot->seriesCount(), 0);
  EXPECT_GE(w.docks().mixerPanel->frameCount(), 1);
  emit w.compareRequested(QString::fromStdString(a.store()), {ids[0], ids[1]});
  EXPECT_EQ(w.compareWidget()->runs().size(), 2);
  w.findChild<QLabel*>("statusLabel")->setText("Run 3 of 4: test, step 10/20 · queue ETA 45 s");

  ASSERT_TRUE(w.openProject(QString::fromStdString(b.dir().string())));
  EXPECT_EQ(w.docks().lossPlot->seriesCount(), 0) << "the curves kept the previous project's run";
  EXPECT_EQ(w.docks().qualityPlot->seriesCount(), 0);
  EXPECT_FALSE(w.docks().lossPlot->plot()->legend->visible()) << "an empty legend box stayed";
  EXPECT_LE(w.docks().lossPlot->plot()->xAxis->range().upper, 5.0) << "the previous run's axis stayed";
  EXPECT_EQ(w.docks().mixerPanel->frameCount(), 0) << "the heatmap kept the previous project's run";
  EXPECT_EQ(w.monitor()->shownRunId(), 0);
  EXPECT_TRUE(w.compareWidget()->runs().isEmpty());
  EXPECT_TRUE(w.findChild<QLabel*>("statusLabel")->text().isEmpty());
  EXPECT_EQ(w.runsModel()->rowCount(), 0);
  // The report: nothing of the first project's, whatever the second one's build says.
  EXPECT_EQ(w.reportView()->report(), nullptr);
  EXPECT_EQ(w.reportView()->groupsTable()->rowCount(), 0) << "the previous project's report is still shown";
  ASSERT_TRUE(reportBuilt(w));
  if (const auto* r = w.reportView()->report()) {
    EXPECT_EQ(r->project, "second");
    EXPECT_EQ(r->store_path, fs::path(b.store()).lexically_normal().string());
  } else {
    EXPECT_EQ(w.reportView()->groupsTable()->rowCount(), 0);
  }
  EXPECT_FALSE(w.findChild<QLabel*>("reportHeader")->text().contains(QString::fromStdString(a.dir().string())));
}

// Reports, browsing and Compare need the store, not the data: a project trained elsewhere gets
// its report in the window (and from `pha report`, test_cli_report).
TEST(ProjectData, AProjectWhoseDataIsMissingStillGetsItsReport) {
  pha::test::TempProject tp;
  json j = tp.text_project();
  j["data"]["path"] = "/srv/gpu-box/corpus.txt";
  tp.write_project(j);
  writeRuns(tp, 2);
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string())));
  ASSERT_FALSE(w.session()->hasLocalData());
  ASSERT_TRUE(reportBuilt(w));
  ASSERT_NE(w.reportView()->report(), nullptr) << w.reportView()->message().toStdString();
  EXPECT_EQ(w.reportView()->report()->groups.size(), 1u);
  EXPECT_EQ(w.runsModel()->rowCount(), 3);  // the group row and its two replicas
}

// A window at 1000 x 700 (a laptop): no dock is squeezed below what it needs; docks scroll
// instead; Reset layout keeps the window's size; comparing nine runs does not widen the window.
TEST(Layout, ASmallWindowScrollsItsDocksInsteadOfSqueezingThem) {
  pha::test::TempProject tp;
  tp.write_project(tp.text_project());
  const auto ids = writeRuns(tp, 9);
  MainWindow w;
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string())));
  EXPECT_LE(w.minimumWidth(), 1280);
  EXPECT_LE(w.minimumHeight(), 720 - 60) << "does not fit a 1280 x 720 screen with its panels";
  w.resize(1000, 700);
  QTest::qWait(100);
  w.resetLayout();
  QTest::qWait(100);
  EXPECT_EQ(w.size(), QSize(1000, 700)) << "Reset layout resized the window";
  // Every dock's content keeps its own minimum: a dock smaller than that scrolls.
  for (QDockWidget* dock : w.findChildren<QDockWidget*>()) {
    auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
    ASSERT_NE(scroll, nullptr) << dock->objectName().toStdString() << " does not scroll";
    QWidget* content = scroll->widget();
    EXPECT_GE(content->width(), content->minimumWidth()) << dock->objectName().toStdString();
    EXPECT_GE(content->height(), content->minimumHeight()) << dock->objectName().toStdString();
  }
  // The run table shows several rows, the plots are not flat, the Efficiency dock not 40 px.
  auto* table = w.findChild<QTableView*>("runsTable");
  EXPECT_GE(table->viewport()->height() / table->verticalHeader()->defaultSectionSize(), 5);
  EXPECT_GE(w.docks().lossPlot->height(), 120);
  EXPECT_GE(w.docks().efficiencyPanel->minimumHeight(), 300);
  // Nine runs compared: the window stays as wide as it was.
  emit w.compareRequested(QString::fromStdString(tp.store()), QList<qint64>(ids.begin(), ids.end()));
  QTest::qWait(200);
  EXPECT_EQ(w.size(), QSize(1000, 700)) << "Compare widened the window";
  // The Add-variant button is in the Configuration dock's scrolled content, not under the status bar.
  auto* add = w.findChild<QPushButton*>("addVariantButton");
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(w.docks().configDock->isAncestorOf(add));
}

// A profile run picked in the table says what it is instead of "Loss curves appear here when you
// pick a run", and its Time is how long its points took to measure.
TEST(ProjectViews, AProfileRunSaysWhatItIsWhenPicked) {
  pha::test::TempProject tp;
  tp.write_project(tp.text_project());
  std::int64_t id = 0;
  {
    auto s = pha::store::Store::open(tp.store());
    pha::store::NewRun nr;
    nr.name = "profile: test";
    nr.kind = pha::store::RunKind::Profile;
    id = s.create_run(nr);
    pha::store::RunWriter wr(s, id);
    wr.perf({32, 2, 5000.0, 100000000, "cpu", "train", "median of 1"});
    wr.finish(pha::store::RunStatus::Finished);
    s.set_run_times(id, 1'700'000'000'000, 1'700'000'042'000);  // as store_profile_results records them
  }
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string())));
  ASSERT_TRUE(w.monitor()->showStoredRun(QString::fromStdString(tp.store()), id));
  EXPECT_TRUE(w.monitor()->shownRunIsProfile());
  EXPECT_TRUE(w.findChild<QLabel*>("liveReadout")->text().contains("is an efficiency profile"));
  const int row = w.runsModel()->rowOfRun(id);
  ASSERT_GE(row, 0);
  EXPECT_EQ(w.runsModel()->data(w.runsModel()->index(row, RunsModel::Duration)).toString(), "42.0 s");
}
