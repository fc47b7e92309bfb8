// Local data parallel from the window, offscreen (docs/gui.md, "Processes"): with the Training
// tab's processes at 2 the window is rank 0 and one `pha __train-rank` process is rank 1 (Gloo
// on loopback). The run trains like one process (losses within 1e-4, fp32), the store holds
// one run of world size 2, the status line and the run table say so, the live curves and the
// mixer get every step and snapshot; Cancel, closing the window and a killed worker leave no
// child process behind and a sound store.
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <vector>

#include "widgets/curve_plot.h"
#include "gui/docks.h"
#include "engine/runtime/runtime_test_util.h"
#include "gui/main_window.h"
#include "widgets/mixer_panel.h"
#include "gui/queue/run_queue.h"
#include "gui/runs/runs_model.h"
#include "store/store.h"
#include "app/gui/window_waits.h"

using namespace pha::gui;
using nlohmann::json;

using pha::test::waitIdle;

namespace {

json training(int64_t steps) {
  // fp32 and one thread per process, as the CLI's distributed test: bf16's half-size matmuls
  // round differently (docs/distributed.md).
  return {{"steps", steps}, {"batch_size", 4}, {"seq_len", 32}, {"lr", 0.003}, {"warmup_steps", 2},
          {"eval_every", 0}, {"final_eval_tokens", 256}, {"mixer_every", 2}, {"checkpoint_every", 10},
          {"seed", 3}, {"threads", 1}, {"precision", "fp32"}};
}

// This process's children (running or not yet reaped), from /proc/<pid>/stat.
std::vector<pid_t> children() {
  std::vector<pid_t> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid <= 0) continue;
    std::ifstream in("/proc/" + std::string(e->d_name) + "/stat");
    std::string line;
    std::getline(in, line);
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == getpid()) out.push_back(pid);
  }
  closedir(d);
  return out;
}

bool noChildrenWithin(int ms) { return QTest::qWaitFor([] { return children().empty(); }, ms); }

void setProcesses(MainWindow& w, int n) {
  auto* spin = w.findChild<QSpinBox*>("processesSpin");
  ASSERT_NE(spin, nullptr) << "the Training tab has no processes setting";
  spin->setValue(n);
}

std::vector<double> losses(const std::string& store, int64_t run) {
  auto s = pha::store::Store::open(store);
  std::vector<double> out;
  for (const auto& p : s.read_metric_full(run, "train/loss")) out.push_back(p.value);
  return out;
}

// Opens `tp` in `w` with processes 2, runs it and waits for `steps` live loss points.
void trainWithTwoProcesses(MainWindow& w, const pha::test::TempProject& tp, int steps) {
  w.show();
  setProcesses(w, 2);
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  w.runProject();
  ASSERT_TRUE(QTest::qWaitFor([&] { return w.docks().lossPlot->pointCount("train/loss") >= steps; }, 120000));
}

// The only run of `tp`'s store, with the store checked.
pha::store::RunInfo onlyRun(const pha::test::TempProject& tp) {
  auto store = pha::store::Store::open(tp.store());
  EXPECT_EQ(store.integrity_check(), "ok");
  const auto runs = store.list_runs();
  EXPECT_EQ(runs.size(), 1u);
  return runs.empty() ? pha::store::RunInfo{} : runs[0].run;
}

struct Fixture {
  Fixture() { qputenv("PHA_CLI", PHA_CLI_PATH); }
  ~Fixture() { qunsetenv("PHA_CLI"); }
};

}  // namespace

TEST(DataParallelWindow, TwoProcessesTrainLikeOneAndShowTheWorldSize) {
  Fixture env;
  pha::test::TempProject one, two;
  one.write_project(one.text_project(training(8)));
  two.write_project(two.text_project(training(8)));
  {
    MainWindow w;
    w.show();
    setProcesses(w, 1);
    ASSERT_TRUE(w.openProject(QString::fromStdString(one.dir().string()))) << w.lastError().toStdString();
    w.runProject();
    ASSERT_TRUE(waitIdle(w, 180000));
  }
  MainWindow w;
  w.show();
  setProcesses(w, 2);
  ASSERT_TRUE(w.openProject(QString::fromStdString(two.dir().string()))) << w.lastError().toStdString();
  auto* label = w.findChild<QLabel*>("statusLabel");
  QStringList lines;
  QObject::connect(w.queue(), &RunQueue::eventsArrived, &w, [&](const EventBuffer::Batch& b) {
    if (!b.steps.empty()) lines << label->text();
  });
  QSignalSpy ended(w.queue(), &RunQueue::runEnded);
  w.runProject();
  ASSERT_TRUE(waitIdle(w, 180000));
  ASSERT_EQ(ended.count(), 1);
  ASSERT_EQ(ended.at(0).at(2).toString(), "finished") << ended.at(0).at(3).toString().toStdString();
  ASSERT_FALSE(lines.isEmpty());
  EXPECT_TRUE(lines.last().contains(", 2 processes (gloo)")) << lines.last().toStdString();

  // One run, world size 2, written by the window (rank 0) alone.
  auto store = pha::store::Store::open(two.store());
  EXPECT_EQ(store.integrity_check(), "ok");
  const auto runs = store.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run.world_size, 2);
  EXPECT_EQ(runs[0].run.backend, "gloo");
  const auto la = losses(one.store(), 1), lb = losses(two.store(), runs[0].run.id);
  ASSERT_EQ(la.size(), 8u);
  ASSERT_EQ(lb.size(), 8u);
  for (size_t i = 0; i < la.size(); ++i)
    EXPECT_LE(std::abs(la[i] - lb[i]) / std::abs(la[i]), 1e-4) << "step " << i + 1 << ": " << la[i] << " vs " << lb[i];

  // The live views got what one process shows: every step's loss and every mixer snapshot.
  EXPECT_EQ(w.docks().lossPlot->pointCount("train/loss"), 8);
  EXPECT_EQ(w.docks().mixerPanel->frameCount(), static_cast<int>(store.mixer_steps(runs[0].run.id).size()));
  EXPECT_GE(w.docks().mixerPanel->frameCount(), 4);

  // The run table's Processes column reads the store's world_size.
  RunsModel* model = w.runsModel();
  ASSERT_TRUE(QTest::qWaitFor([&] { return model->runCount() == 1; }, 10000));
  EXPECT_EQ(model->data(model->index(0, RunsModel::Processes)).toString(), "2 (gloo)");
  EXPECT_EQ(model->headerData(RunsModel::Processes, Qt::Horizontal).toString(), "Processes");
  EXPECT_TRUE(children().empty()) << "a worker process outlived the run";
}

TEST(DataParallelWindow, CancelStopsEveryProcessAndLeavesNoChild) {
  Fixture env;
  pha::test::TempProject tp;
  tp.write_project(tp.text_project(training(100000)));
  MainWindow w;
  QSignalSpy ended(w.queue(), &RunQueue::runEnded);
  trainWithTwoProcesses(w, tp, 3);
  if (HasFatalFailure()) return;
  EXPECT_EQ(children().size(), 1u) << "rank 1 is a child process of the window";
  w.cancelRuns();
  ASSERT_TRUE(waitIdle(w, 60000));
  ASSERT_EQ(ended.count(), 1);
  EXPECT_EQ(ended.at(0).at(2).toString(), "cancelled") << ended.at(0).at(3).toString().toStdString();
  EXPECT_TRUE(noChildrenWithin(5000)) << children().size() << " child process(es) left after Cancel";
  const pha::store::RunInfo run = onlyRun(tp);
  EXPECT_EQ(run.status, pha::store::RunStatus::Cancelled);
  EXPECT_FALSE(pha::store::Store::open(tp.store()).checkpoints(run.id).empty()) << "cancel writes a checkpoint";
}

TEST(DataParallelWindow, ClosingTheWindowMidRunStopsTheWorkers) {
  Fixture env;
  pha::test::TempProject tp;
  tp.write_project(tp.text_project(training(100000)));
  {
    MainWindow w;
    trainWithTwoProcesses(w, tp, 2);
    if (HasFatalFailure()) return;
    ASSERT_EQ(children().size(), 1u);
  }  // the window closes mid-run
  EXPECT_TRUE(noChildrenWithin(5000)) << children().size() << " child process(es) left after the window closed";
  EXPECT_EQ(onlyRun(tp).status, pha::store::RunStatus::Cancelled);
}

TEST(DataParallelWindow, AKilledWorkerFailsTheRunWithItsExitInTheWindow) {
  Fixture env;
  qputenv("PHA_DIST_TIMEOUT", "30");
  pha::test::TempProject tp;
  tp.write_project(tp.text_project(training(100000)));
  MainWindow w;
  QSignalSpy ended(w.queue(), &RunQueue::runEnded);
  trainWithTwoProcesses(w, tp, 3);
  if (HasFatalFailure()) return;
  const std::vector<pid_t> workers = children();
  ASSERT_EQ(workers.size(), 1u);
  QElapsedTimer clock;
  clock.start();
  kill(workers[0], SIGKILL);
  ASSERT_TRUE(waitIdle(w, 60000)) << "rank 0 did not stop within the timeout";
  qunsetenv("PHA_DIST_TIMEOUT");
  EXPECT_LT(clock.elapsed(), 45000);
  ASSERT_EQ(ended.count(), 1);
  EXPECT_EQ(ended.at(0).at(2).toString(), "failed");
  const QString reason = ended.at(0).at(3).toString();
  EXPECT_TRUE(reason.contains("rank 1 was killed by signal 9")) << reason.toStdString();
  EXPECT_TRUE(w.lastError().contains("rank 1 was killed by signal 9")) << "the window's error: "
                                                                     << w.lastError().toStdString();
  EXPECT_TRUE(children().empty());
  EXPECT_EQ(onlyRun(tp).status, pha::store::RunStatus::Failed);
}
