// The window's queue with runs side by side ("Runs at once" 2, RunQueue::setJobs): two runs live
// at once, each one's curves on the live plots under its name and the mixer following one of them,
// the status line naming both; pause holds both, cancel stops both with their checkpoints and
// drops the run still waiting; a finished batch's runs equal `pha train --jobs 1`'s bit for bit.
#include <QLabel>
#include <QProgressBar>
#include <QSettings>
#include <QTest>
#include <gtest/gtest.h>

#include <filesystem>

#include "app/gui/window_waits.h"
#include "cli_runner.h"
#include "engine/runtime/runtime_test_util.h"
#include "gui/main_window.h"
#include "gui/monitor/run_monitor.h"
#include "gui/queue/run_queue.h"
#include "store/store.h"
#include "widgets/curve_plot.h"

using namespace pha::gui;
using pha::test::waitIdle;
namespace fs = std::filesystem;

namespace {

struct SideBySideFixture {
  SideBySideFixture() {
    qputenv("PHA_CLI", PHA_CLI_PATH);
    QSettings().setValue("engine/jobs", 2);
  }
  ~SideBySideFixture() {
    qunsetenv("PHA_CLI");
    QSettings().setValue("engine/jobs", 1);
  }
};

nlohmann::json three_runs(const pha::test::TempProject& tp, const nlohmann::json& training) {
  nlohmann::json j = tp.text_project(training);
  j["training"].erase("threads");  // each run's threads by the rule: one core for this model
  j["variants"] = {{{"name", "first"}}, {{"name", "second"}, {"training", {{"seed", 8}}}},
                   {{"name", "third"}, {"training", {{"seed", 9}}}}};
  return j;
}

}  // namespace

TEST(QueueSideBySide, TwoLiveRunsShowTheirCurvesAndEqualOneAfterAnother) {
  SideBySideFixture fixture;
  pha::test::TempProject tp, ref;
  tp.write_project(three_runs(tp, {{"steps", 30}, {"eval_every", 10}}));
  ref.write_project(three_runs(ref, {{"steps", 30}, {"eval_every", 10}}));
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  auto* label = w.findChild<QLabel*>("statusLabel");
  int mostLive = 0;
  bool bothCurves = false, statusNamesBoth = false;
  auto* loss = w.findChild<pha::widgets::CurvePlot*>("lossPlot");
  ASSERT_NE(loss, nullptr);
  QObject::connect(w.queue(), &RunQueue::eventsArrived, &w, [&](const EventBuffer::Batch& b) {
    mostLive = std::max(mostLive, static_cast<int>(w.queue()->liveRuns().size()));
    const QStringList names = loss->seriesNames();
    int runsWithCurves = 0;
    for (const char* run : {"first", "second", "third"})
      if (names.contains(QString(run) + " · train/loss")) ++runsWithCurves;
    bothCurves = bothCurves || runsWithCurves == 2;
    const QString text = label->text();
    if (!b.steps.empty() && text.startsWith("Runs side by side (2 at once)") && w.queue()->liveRuns().size() == 2)
      statusNamesBoth = statusNamesBoth || (text.contains(w.queue()->liveRuns()[0] + " step ") &&
                                            text.contains(w.queue()->liveRuns()[1] + " step "));
  });
  w.runProject();
  ASSERT_TRUE(waitIdle(w, 180000));
  EXPECT_EQ(mostLive, 2);
  EXPECT_TRUE(bothCurves) << "the live loss plot never showed two runs' curves";
  EXPECT_TRUE(statusNamesBoth) << "the status line never named both live runs";
  EXPECT_TRUE(label->text().contains("3 runs finished")) << label->text().toStdString();
  // The same runs one after another by `pha train --jobs 1`: bit for bit.
  const CliResult r = run_cli("train --jobs 1 --quiet " + shell_word(ref.dir()));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto a = pha::store::Store::open(tp.store());
  auto b = pha::store::Store::open(ref.store());
  const auto runsA = a.list_runs(), runsB = b.list_runs();
  ASSERT_EQ(runsA.size(), 3u);
  ASSERT_EQ(runsB.size(), 3u);
  for (const auto& x : runsA) {
    const auto y = std::find_if(runsB.begin(), runsB.end(), [&](const auto& e) { return e.run.name == x.run.name; });
    ASSERT_NE(y, runsB.end()) << x.run.name;
    std::vector<double> la, lb;
    for (const auto& p : a.read_metric_full(x.run.id, "train/loss")) la.push_back(p.value);
    for (const auto& p : b.read_metric_full(y->run.id, "train/loss")) lb.push_back(p.value);
    EXPECT_EQ(la.size(), 30u);
    EXPECT_EQ(la, lb) << x.run.name;
  }
}

TEST(QueueSideBySide, PauseHoldsBothLiveRunsAndCancelStopsBothAndDropsTheWaitingOne) {
  SideBySideFixture fixture;
  pha::test::TempProject tp;
  tp.write_project(three_runs(tp, {{"steps", 100000}, {"eval_every", 0}, {"checkpoint_every", 1000}}));
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  auto* label = w.findChild<QLabel*>("statusLabel");
  w.runProject();
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.queue()->liveRuns().size() == 2 && label->text().contains("second step "); },
                              90000))
      << label->text().toStdString();
  w.pauseOrResume();
  ASSERT_TRUE(w.queue()->isPaused());
  QTest::qWait(2000);  // the steps in flight end
  auto steps = [&] {
    pha::store::OpenOptions o;
    o.recover_interrupted = false;
    auto s = pha::store::Store::open(tp.store(), o);
    std::vector<std::int64_t> out;
    for (const auto& e : s.list_runs()) {
      const auto p = s.last_point(e.run.id, "train/loss");
      out.push_back(p ? p->step : 0);
    }
    return out;
  };
  EXPECT_TRUE(label->text().startsWith("Paused: ")) << label->text().toStdString();
  const auto held = steps();
  ASSERT_EQ(held.size(), 2u);
  QTest::qWait(2500);
  EXPECT_EQ(steps(), held) << "a run trained while paused";
  w.pauseOrResume();
  ASSERT_TRUE(QTest::qWaitFor([&] { return label->text().startsWith("Runs side by side (2 at once)"); }, 30000))
      << label->text().toStdString();
  w.cancelRuns();
  EXPECT_TRUE(label->text().contains("dropped from the queue: third")) << label->text().toStdString();
  ASSERT_TRUE(waitIdle(w, 120000));
  EXPECT_TRUE(label->text().contains("2 cancelled")) << label->text().toStdString();
  EXPECT_TRUE(label->text().contains("1 not started")) << label->text().toStdString();
  EXPECT_EQ(w.queue()->pendingCount(), 0);
  auto s = pha::store::Store::open(tp.store());
  EXPECT_EQ(s.integrity_check(), "ok");
  const auto runs = s.list_runs();
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& e : runs) {
    EXPECT_EQ(e.run.status, pha::store::RunStatus::Cancelled) << e.run.name;
    const auto cps = s.checkpoints(e.run.id);
    ASSERT_FALSE(cps.empty()) << e.run.name;
    EXPECT_TRUE(fs::exists(cps.back().path)) << cps.back().path;
  }
}
