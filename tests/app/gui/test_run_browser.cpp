// The run table as a researcher uses it: newest first, the run id shown, training runs apart
// from profile runs, task runs' accuracy, tokens seen, chosen and ordered columns remembered,
// and the sort kept across reloads.
#include <QComboBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QSettings>
#include <QTableView>
#include <QTest>
#include <gtest/gtest.h>

#include "run_browser.h"
#include "runs_model.h"
#include "store_fixture.h"

using namespace pha::gui;
namespace st = pha::store;

namespace {

struct Browser {
  QTableView table;
  QLineEdit filter;
  QComboBox kind;
  RunBrowser browser{&table, &filter, &kind, nullptr};
};

struct Runs {
  pha::test::StoreFixture f;
  std::int64_t a, b, prof, task;
  Runs() {
    pha::test::FixtureRun r;
    r.val = {2.6, 2.4};
    r.params = 900'000;
    a = f.add(r);
    r.name = "transformer-tiny";
    r.variant = "transformer";
    r.params = 1'200'000;
    r.steps = 100;
    b = f.add(r);
    pha::test::FixtureRun p;
    p.name = "profile: pha-tiny";
    p.kind = st::RunKind::Profile;
    p.steps = 0;
    prof = f.add(p);
    pha::test::FixtureRun t;
    t.name = "mqar-pha";
    t.steps = 40;
    t.valKey = "val/accuracy";
    t.val = {0.5, 0.875, 0.75};
    task = f.add(t);
  }
};

}  // namespace

TEST(RunBrowser, NewestFirstTrainingRunsWithIdsByDefault) {
  QSettings().clear();
  Runs runs;
  Browser b;
  ASSERT_TRUE(b.browser.reload(runs.f.path()));
  // Profile runs are apart: hidden from the training list until asked for.
  EXPECT_EQ(b.browser.shownRunIds(), (QList<qint64>{runs.task, runs.b, runs.a}));
  EXPECT_EQ(b.kind.currentText(), "Training runs");
  b.kind.setCurrentIndex(b.kind.findData("profile"));
  EXPECT_EQ(b.browser.shownRunIds(), (QList<qint64>{runs.prof}));
  b.kind.setCurrentIndex(b.kind.findData(QString()));
  EXPECT_EQ(b.browser.shownRunIds().size(), 4);

  // The id column is shown; so are the columns a researcher sorts by.
  for (int c : {RunsModel::Id, RunsModel::Name, RunsModel::Variant, RunsModel::Status, RunsModel::Parameters,
                RunsModel::BestVal, RunsModel::TokensSeen, RunsModel::Duration, RunsModel::Started})
    EXPECT_TRUE(b.browser.isColumnShown(c)) << c;
  EXPECT_FALSE(b.browser.isColumnShown(RunsModel::Kind));

  RunsModel* m = b.browser.model();
  const int task = m->rowOfRun(runs.task), a = m->rowOfRun(runs.a);
  EXPECT_EQ(m->data(m->index(task, RunsModel::BestVal)).toString(), "87.50 %");  // accuracy: highest is best
  EXPECT_EQ(m->data(m->index(task, RunsModel::LastVal)).toString(), "75.00 %");
  EXPECT_EQ(m->data(m->index(a, RunsModel::BestVal)).toString(), "2.4000");
  EXPECT_EQ(m->data(m->index(a, RunsModel::TokensSeen)).toString(), "154 k");  // 150 steps x 1024
  EXPECT_EQ(m->data(m->index(a, RunsModel::TokensSeen), RunsModel::SortRole).toDouble(), 153600.0);
  EXPECT_TRUE(m->data(m->index(a, RunsModel::BestVal), Qt::ToolTipRole).toString().contains("best 2.4000 at step 150"));
}

TEST(RunBrowser, TheUsersSortSurvivesAReload) {
  QSettings().clear();
  Runs runs;
  Browser b;
  ASSERT_TRUE(b.browser.reload(runs.f.path()));
  b.table.sortByColumn(RunsModel::Parameters, Qt::AscendingOrder);
  // 900 k, 1.2 M, then the task run's 1.5 M.
  ASSERT_EQ(b.browser.shownRunIds(), (QList<qint64>{runs.a, runs.b, runs.task}));
  ASSERT_TRUE(b.browser.reload(runs.f.path()));
  EXPECT_EQ(b.browser.shownRunIds(), (QList<qint64>{runs.a, runs.b, runs.task}));
}

TEST(RunBrowser, ChosenAndOrderedColumnsAreRemembered) {
  QSettings().clear();
  Runs runs;
  {
    Browser b;
    ASSERT_TRUE(b.browser.reload(runs.f.path()));
    b.browser.setColumnShown(RunsModel::Started, false);
    b.browser.setColumnShown(RunsModel::LastVal, true);
    QHeaderView* h = b.table.horizontalHeader();
    h->moveSection(h->visualIndex(RunsModel::BestVal), 1);  // right after the id
    b.table.sortByColumn(RunsModel::BestVal, Qt::AscendingOrder);
    b.kind.setCurrentIndex(b.kind.findData(QString()));
    QTest::qWait(500);  // the header is saved 300 ms after the last change
  }
  Browser again;
  ASSERT_TRUE(again.browser.reload(runs.f.path()));
  QHeaderView* h = again.table.horizontalHeader();
  EXPECT_FALSE(again.browser.isColumnShown(RunsModel::Started));
  EXPECT_TRUE(again.browser.isColumnShown(RunsModel::LastVal));
  EXPECT_EQ(h->visualIndex(RunsModel::BestVal), 1);
  EXPECT_EQ(h->sortIndicatorSection(), RunsModel::BestVal);
  EXPECT_EQ(again.kind.currentData().toString(), QString());
  EXPECT_EQ(again.browser.shownRunIds().size(), 4);

  again.browser.resetColumns();
  EXPECT_TRUE(again.browser.isColumnShown(RunsModel::Started));
  EXPECT_FALSE(again.browser.isColumnShown(RunsModel::LastVal));
  EXPECT_EQ(h->visualIndex(RunsModel::BestVal), RunsModel::BestVal);
  EXPECT_EQ(h->sortIndicatorSection(), RunsModel::Id);
}

TEST(RunBrowser, SelectingARunHiddenByTheKindFilterShowsEveryKind) {
  QSettings().clear();
  Runs runs;
  Browser b;
  ASSERT_TRUE(b.browser.reload(runs.f.path()));
  ASSERT_TRUE(b.browser.selectRunByName("profile: pha-tiny"));
  EXPECT_EQ(b.browser.selectedRunIds(), QList<qint64>{runs.prof});
  EXPECT_EQ(b.kind.currentData().toString(), QString());
}
