// Run > Evaluate selected run, offscreen: a run trained by the window is evaluated again from
// its last checkpoint in the queue's worker thread; the engine's one evaluation path
// (runtime::evaluate_run) records exactly the rows the training's final evaluation recorded.
#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <gtest/gtest.h>

#include "engine/runtime/runtime_test_util.h"
#include "gui/main_window.h"
#include "gui/queue/run_queue.h"
#include "store/store.h"
#include "app/gui/window_waits.h"

using namespace pha::gui;

using pha::test::waitIdle;

namespace {

bool sameRow(const pha::store::EvalRow& a, const pha::store::EvalRow& b) {
  return a.step == b.step && a.task == b.task && a.seq_len == b.seq_len && a.metric == b.metric && a.value == b.value;
}

}  // namespace

TEST(EvaluateAction, EvaluatesTheSelectedRunWithItsFinalEvaluationPlan) {
  pha::test::TempProject tp;
  tp.write_project(tp.text_project({{"steps", 4}}));
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  w.runProject();
  ASSERT_TRUE(waitIdle(w, 120000));
  std::vector<pha::store::EvalRow> before;
  int64_t id = 0;
  {
    auto s = pha::store::Store::open(tp.store());
    ASSERT_EQ(s.list_runs().size(), 1u);
    id = s.list_runs().front().run.id;
    before = s.evals(id);
  }
  ASSERT_FALSE(before.empty()) << "the final evaluation records eval rows";

  ASSERT_TRUE(w.selectRunByName("test"));
  QSignalSpy ended(w.queue(), &RunQueue::evaluationEnded);
  w.evaluateSelected();
  ASSERT_TRUE(waitIdle(w, 120000));
  ASSERT_EQ(ended.count(), 1);
  EXPECT_EQ(ended.at(0).at(0).toLongLong(), id);
  EXPECT_EQ(ended.at(0).at(1).toString(), "finished") << ended.at(0).at(2).toString().toStdString();
  EXPECT_TRUE(ended.at(0).at(2).toString().contains("valid")) << ended.at(0).at(2).toString().toStdString();

  // Same step, set, T and metric replace the old rows: the store holds the same rows, with the
  // same values, because evaluation and the final evaluation are one function.
  auto s = pha::store::Store::open(tp.store());
  const auto after = s.evals(id);
  ASSERT_EQ(after.size(), before.size());
  for (const auto& r : before)
    EXPECT_TRUE(std::any_of(after.begin(), after.end(), [&](const auto& a) { return sameRow(a, r); }))
        << r.task << " T=" << r.seq_len << " " << r.metric << " = " << r.value;
}

TEST(EvaluateAction, ARunWithoutCheckpointIsRefusedInTheWindow) {
  pha::test::TempProject tp;
  tp.write_project(tp.text_project());
  int64_t id = 0;
  {
    auto s = pha::store::Store::open(tp.store());
    pha::store::NewRun nr;
    nr.name = "test";
    id = s.create_run(nr);
  }
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  ASSERT_TRUE(w.selectRunByName("test"));
  QSignalSpy ended(w.queue(), &RunQueue::evaluationEnded);
  w.evaluateSelected();
  ASSERT_TRUE(waitIdle(w, 30000));
  ASSERT_EQ(ended.count(), 1);
  EXPECT_EQ(ended.at(0).at(1).toString(), "failed");
  EXPECT_TRUE(w.lastError().contains(QString("Cannot evaluate run %1").arg(id))) << w.lastError().toStdString();
  EXPECT_TRUE(pha::store::Store::open(tp.store()).evals(id).empty()) << "a failed evaluation records nothing";
}
