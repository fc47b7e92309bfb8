// The status line of a queue of two runs, offscreen, trained by the window: it names the run
// that trains, which of how many and what follows, with the queue's ETA, never a finished
// run's message while the next trains; at the end it says what the queue did. A Run that would
// train again finished runs of the same name and configuration asks first.
#include <QLabel>
#include <QProgressBar>
#include <QRegularExpression>
#include <QStatusBar>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <gtest/gtest.h>

#include "engine/runtime/runtime_test_util.h"
#include "gui/main_window.h"
#include "gui/project/project_session.h"
#include "gui/queue/queue_controller.h"
#include "gui/queue/run_queue.h"
#include "gui/runs/runs_model.h"
#include "store/store.h"
#include "app/gui/window_waits.h"

using namespace pha::gui;

using pha::test::waitIdle;

namespace {

// What the window showed after each batch of events, and which run was training then.
struct Seen {
  QString run, label, transient, progress;
};

}  // namespace

TEST(QueueStatus, NamesTheRunningRunOfHowManyAndWhatFollows) {
  pha::test::TempProject tp;
  nlohmann::json j = tp.text_project({{"steps", 40}, {"eval_every", 10}});
  j["variants"] = {{{"name", "first"}}, {{"name", "second"}, {"training", {{"seed", 8}}}}};
  tp.write_project(j);
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  auto* label = w.findChild<QLabel*>("statusLabel");
  auto* progress = w.findChild<QProgressBar*>("runProgress");
  std::vector<Seen> seen;
  // Connected after the window's own handler: sees what it wrote.
  QObject::connect(w.queue(), &RunQueue::eventsArrived, &w, [&](const EventBuffer::Batch& b) {
    if (!b.steps.empty())
      seen.push_back({w.queue()->currentRun(), label->text(), w.statusBar()->currentMessage(), progress->text()});
  });
  w.runProject();
  ASSERT_TRUE(waitIdle(w, 180000));

  int first = 0, second = 0;
  for (const Seen& s : seen) {
    if (s.run == "first") {
      ++first;
      EXPECT_TRUE(s.label.startsWith("Run 1 of 2: first, step ")) << s.label.toStdString();
      EXPECT_TRUE(s.label.contains("then second")) << s.label.toStdString();
    } else if (s.run == "second") {
      ++second;
      EXPECT_TRUE(s.label.startsWith("Run 2 of 2: second, step ")) << s.label.toStdString();
      EXPECT_TRUE(s.label.contains("last in the queue")) << s.label.toStdString();
      EXPECT_FALSE(s.transient.contains("first")) << "a message about the first run covers the second: "
                                                    << s.transient.toStdString();
      EXPECT_TRUE(s.progress.startsWith("run 2 of 2: ")) << s.progress.toStdString();
    }
    EXPECT_TRUE(s.label.contains("queue ETA")) << s.label.toStdString();
  }
  EXPECT_GT(first, 0);
  EXPECT_GT(second, 0);
  // Once steps are measured, the ETA is a time.
  EXPECT_TRUE(std::any_of(seen.begin(), seen.end(),
                          [](const Seen& s) { return s.label.contains(QRegularExpression("queue ETA [0-9]+")); }));
  const QString end = label->text();
  EXPECT_TRUE(end.startsWith("Queue finished in ")) << end.toStdString();
  EXPECT_TRUE(end.contains("2 runs finished")) << end.toStdString();
  EXPECT_FALSE(end.contains("ETA")) << end.toStdString();
}

TEST(QueueStatus, ARepeatedRunOfTheSameConfigurationAsksFirst) {
  pha::test::TempProject tp;
  tp.write_project(tp.text_project({{"steps", 100000}}));
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  std::int64_t same = 0;
  {
    auto s = pha::store::Store::open(tp.store());
    auto add = [&](const std::string& config, pha::store::RunStatus status) {
      pha::store::NewRun nr;
      nr.name = "test";
      nr.config_json = config;
      const auto id = s.create_run(nr);
      s.set_status(id, pha::store::RunStatus::Running);
      s.set_status(id, status);
      return id;
    };
    same = add(w.session()->runConfig("test").dump(), pha::store::RunStatus::Finished);
    add(w.session()->runConfig("test").dump(), pha::store::RunStatus::Cancelled);  // not a result to repeat
    add("{\"training\": {\"steps\": 3}}", pha::store::RunStatus::Finished);       // another configuration
  }
  QStringList asked;
  auto answer = QueueController::RepeatChoice::Nothing;
  w.queueController()->setConfirm([&](const QString& q, const QStringList& fresh) {
    asked << q;
    EXPECT_TRUE(fresh.isEmpty()) << "the project's one run is trained";
    return answer;
  });
  w.runProject();
  ASSERT_EQ(asked.size(), 1);
  EXPECT_TRUE(asked[0].contains(QString("test (run %1)").arg(same))) << asked[0].toStdString();
  EXPECT_EQ(asked[0].count("(run "), 1) << asked[0].toStdString();
  EXPECT_FALSE(w.queue()->isBusy()) << "declined: nothing is trained";
  EXPECT_TRUE(w.findChild<QLabel*>("statusLabel")->text().startsWith("Not started"));
  answer = QueueController::RepeatChoice::OnlyNew;  // nothing is new: still nothing
  w.runProject();
  EXPECT_FALSE(w.queue()->isBusy());

  answer = QueueController::RepeatChoice::All;
  w.runProject();
  EXPECT_EQ(asked.size(), 3);
  EXPECT_TRUE(w.queue()->isBusy()) << "accepted: trained again as a new run";
  w.cancelRuns();
  ASSERT_TRUE(waitIdle(w, 120000));
}

// A variant added to a project whose other runs are trained can be trained alone: the question
// offers the runs not trained yet, and choosing them queues just those.
TEST(QueueStatus, ANewVariantCanBeTrainedAloneWhenTheOthersAreTrained) {
  pha::test::TempProject tp;
  nlohmann::json j = tp.text_project({{"steps", 100000}});
  j["variants"] = {{{"name", "old"}}, {{"name", "new"}, {"training", {{"seed", 8}}}}};
  tp.write_project(j);
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  {
    auto s = pha::store::Store::open(tp.store());
    pha::store::NewRun nr;
    nr.name = "old";
    nr.config_json = w.session()->runConfig("old").dump();
    const auto id = s.create_run(nr);
    s.set_status(id, pha::store::RunStatus::Running);
    s.set_status(id, pha::store::RunStatus::Finished);
  }
  QStringList offered;
  QString question;
  w.queueController()->setConfirm([&](const QString& q, const QStringList& fresh) {
    question = q;
    offered = fresh;
    return QueueController::RepeatChoice::OnlyNew;
  });
  QSignalSpy started(w.queue(), &RunQueue::runStarted);
  w.runProject();
  EXPECT_EQ(offered, QStringList{"new"});
  EXPECT_TRUE(question.contains("Not trained yet: new")) << question.toStdString();
  ASSERT_TRUE(w.queue()->isBusy());
  ASSERT_EQ(started.count(), 1);
  EXPECT_EQ(started.at(0).at(1).toString(), "new");
  EXPECT_EQ(w.queue()->pendingCount(), 0) << "the trained run is not queued again";
  w.cancelRuns();
  ASSERT_TRUE(waitIdle(w, 120000));
}

// Pause: the line says paused until Resume (it went back to the step line and its ETA after two
// seconds) and the run table's Status reads "paused"; Cancel's readout says the run was cancelled
// once, and what it dropped from the queue.
TEST(QueueStatus, APausedQueueSaysPausedUntilResumedAndCancelSaysWhatItDropped) {
  pha::test::TempProject tp;
  nlohmann::json j = tp.text_project({{"steps", 100000}});
  j["variants"] = {{{"name", "first"}}, {{"name", "second"}, {"training", {{"seed", 8}}}}};
  tp.write_project(j);
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  auto* label = w.findChild<QLabel*>("statusLabel");
  w.runProject();
  ASSERT_TRUE(QTest::qWaitFor([&] { return label->text().contains("step "); }, 60000)) << label->text().toStdString();
  w.pauseOrResume();
  ASSERT_TRUE(w.queue()->isPaused());
  QTest::qWait(3000);  // longer than the old two-second message
  EXPECT_TRUE(label->text().startsWith("Paused: first at step ")) << label->text().toStdString();
  EXPECT_FALSE(label->text().contains("ETA")) << label->text().toStdString();
  w.reloadRuns();
  RunsModel* runs = w.runsModel();
  bool paused = false;
  for (int r = 0; r < runs->rowCount(); ++r)
    paused = paused || runs->data(runs->index(r, RunsModel::Status)).toString() == "paused";
  EXPECT_TRUE(paused) << "the run table's Status does not say paused";
  w.pauseOrResume();
  ASSERT_TRUE(QTest::qWaitFor([&] { return label->text().startsWith("Run 1 of 2: first, step "); }, 30000))
      << label->text().toStdString();

  w.cancelRuns();
  EXPECT_TRUE(label->text().contains("dropped from the queue: second")) << label->text().toStdString();
  ASSERT_TRUE(waitIdle(w, 120000));
  const QString readout = w.findChild<QLabel*>("liveReadout")->text();
  EXPECT_TRUE(readout.startsWith("first cancelled at step ")) << readout.toStdString();
  EXPECT_EQ(readout.count("cancelled at step"), 1) << "said twice: " << readout.toStdString();
  EXPECT_TRUE(readout.contains("dropped from the queue: second")) << readout.toStdString();
}
