// The plan before a run (Run > Plan project..., and before Run project): the engine's plan of
// the project (runtime::plan_project, as `pha plan` prints it) in a table, computed off the GUI
// thread; the window keeps answering meanwhile.
#include "gui/project/plan_dialog.h"

#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QTest>
#include <gtest/gtest.h>

#include "engine/runtime/runtime_test_util.h"

using namespace pha::gui;

TEST(PlanDialog, ShowsTheProjectsRunsBudgetsAndTimeBeforeRunning) {
  pha::test::TempProject tp;
  auto j = tp.text_project({{"steps", 20}});
  j["variants"] = {"pha", "transformer"};
  j["seeds"] = {1, 2};
  tp.write_project(j);
  PlanDialog d(QString::fromStdString(tp.dir().string()), /*withRun=*/true);
  ASSERT_NE(d.runButton(), nullptr);
  EXPECT_FALSE(d.runButton()->isEnabled()) << "Run waits for the plan";
  ASSERT_TRUE(QTest::qWaitFor([&] { return d.isReady(); }, 60000));
  EXPECT_TRUE(d.errorText().isEmpty()) << d.errorText().toStdString();
  EXPECT_TRUE(d.runButton()->isEnabled());
  ASSERT_EQ(d.table()->rowCount(), 4);  // 2 variants x 2 seeds
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(d.table()->item(r, 1)->text(), "20");
    EXPECT_EQ(d.table()->item(r, 2)->text(), QString::number(20 * 2 * 32));  // steps x batch x T
    EXPECT_TRUE(d.table()->item(r, 4)->text().endsWith("*")) << "early training is marked";
    EXPECT_NE(d.table()->item(r, 5)->text(), "?") << "a time from a measured speed";
    EXPECT_EQ(d.table()->item(r, 6)->text(), "to train");
  }
  EXPECT_TRUE(d.summaryText().contains("4 run(s) to train of 4")) << d.summaryText().toStdString();
  EXPECT_TRUE(d.summaryText().contains("early training")) << d.summaryText().toStdString();
}

TEST(PlanDialog, ABadProjectIsAnErrorInTheDialogNotACrash) {
  pha::test::TempProject tp;
  tp.write_raw("{\"name\": 3}");
  PlanDialog d(QString::fromStdString(tp.dir().string()), /*withRun=*/true);
  ASSERT_TRUE(QTest::qWaitFor([&] { return d.isReady(); }, 30000));
  EXPECT_FALSE(d.errorText().isEmpty());
  EXPECT_FALSE(d.runButton()->isEnabled());
}

TEST(PlanDialog, ShowingItBeforeEachRunIsASetting) {
  QSettings().remove("plan/beforeRun");
  EXPECT_TRUE(PlanDialog::showBeforeRun());
  PlanDialog::setShowBeforeRun(false);
  EXPECT_FALSE(PlanDialog::showBeforeRun());
  PlanDialog::setShowBeforeRun(true);
}
