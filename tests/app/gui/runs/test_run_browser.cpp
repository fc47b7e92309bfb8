// The run table as a researcher uses it: newest first, the run id shown, training runs apart
// from profile runs, task runs' accuracy, tokens seen, chosen and ordered columns remembered,
// and the sort kept across reloads.
#include <QComboBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QSettings>
#include <QStringList>
#include <QTableView>
#include <QTest>
#include <gtest/gtest.h>

#include <algorithm>

#include "gui/runs/run_browser.h"
#include "gui/runs/runs_model.h"
#include "tests/app/gui/store_fixture.h"

using namespace pha::gui;
namespace st = pha::store;

namespace {

struct Browser {
  QTableView table;
  QLineEdit filter;
  QComboBox kind;
  RunBrowser browser{&table, &filter, &kind, nullptr};
  // The rows as shown: "#<id>" for a run, "group <name>" for a group row.
  QStringList proxyRows() const {
    QStringList rows;
    const auto* proxy = browser.proxy();
    for (int r = 0; r < proxy->rowCount(); ++r) {
      const int row = proxy->mapToSource(proxy->index(r, 0)).row();
      if (const auto* g = browser.model()->group(row)) rows << "group " + g->name;
      else rows << "#" + QString::number(browser.model()->entry(row)->run.id);
    }
    return rows;
  }
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

  // The id column is shown; so are the columns a researcher sorts by, and the tags.
  for (int c : {RunsModel::Id, RunsModel::Name, RunsModel::Tags, RunsModel::Status, RunsModel::Parameters,
                RunsModel::BestVal, RunsModel::TokensSeen, RunsModel::Duration, RunsModel::Started})
    EXPECT_TRUE(b.browser.isColumnShown(c)) << c;
  EXPECT_FALSE(b.browser.isColumnShown(RunsModel::Kind));
  EXPECT_FALSE(b.browser.isColumnShown(RunsModel::Variant)) << "Tags took its place in the defaults";

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
  const std::vector<int> order = RunsModel::defaultOrder();
  EXPECT_EQ(h->visualIndex(RunsModel::BestVal), std::find(order.begin(), order.end(), RunsModel::BestVal) - order.begin());
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

// Seeded replicas (runs.run_group with several seeds) are one collapsible group row showing
// mean ± std (n) over the replicas; its runs sort under it; selecting it stands for them.
TEST(RunBrowser, SeededReplicasAreACollapsibleGroupWithMeanAndStd) {
  QSettings().clear();
  pha::test::StoreFixture f;
  pha::test::FixtureRun r;
  r.group = "pha-tiny";
  std::vector<std::int64_t> seeds;
  const double finals[] = {2.0, 2.1, 2.3};  // mean 2.1333, sample std 0.1528
  for (int s = 0; s < 3; ++s) {
    r.name = "pha-tiny/seed=" + std::to_string(s);
    r.seed = s;
    r.val = {2.6, finals[s]};
    seeds.push_back(f.add(r));
  }
  pha::test::FixtureRun plain;
  plain.name = "transformer-tiny";
  plain.group = "transformer-tiny";
  plain.seed = 0;
  plain.val = {2.5, 2.2};
  const std::int64_t other = f.add(plain);
  plain.name = "pha-tiny-again";  // one seed trained twice: no spread, no group row
  plain.group = "pha-tiny-again";
  const std::int64_t again1 = f.add(plain), again2 = f.add(plain);

  Browser b;
  ASSERT_TRUE(b.browser.reload(f.path()));
  RunsModel* m = b.browser.model();
  ASSERT_EQ(m->rowCount(), 7) << "6 runs and one group row";
  const int g = m->runCount();
  ASSERT_NE(m->group(g), nullptr);
  EXPECT_EQ(m->data(m->index(g, RunsModel::Name)).toString(), QString::fromUtf8("\u25b8 pha-tiny"));
  EXPECT_EQ(m->data(m->index(g, RunsModel::BestVal)).toString(), QString::fromUtf8("2.133 \u00b1 0.153 (3)"));
  EXPECT_EQ(m->data(m->index(g, RunsModel::Status)).toString(), "3 finished");
  EXPECT_NEAR(m->data(m->index(g, RunsModel::BestVal), RunsModel::SortRole).toDouble(), 6.4 / 3, 1e-9);
  EXPECT_TRUE(m->data(m->index(g, RunsModel::BestVal), Qt::ToolTipRole).toString().contains("95% interval"));

  // Collapsed by default: the group row stands where its newest run would (newest first).
  EXPECT_EQ(b.proxyRows(), (QStringList{"#" + QString::number(again2), "#" + QString::number(again1),
                                        "#" + QString::number(other), "group pha-tiny"}));
  b.browser.setGroupExpanded(g, true);
  EXPECT_EQ(m->data(m->index(g, RunsModel::Name)).toString(), QString::fromUtf8("\u25be pha-tiny"));
  const QString g0 = "#" + QString::number(seeds[0]), g1 = "#" + QString::number(seeds[1]),
                g2 = "#" + QString::number(seeds[2]);
  EXPECT_EQ(b.proxyRows().mid(3), (QStringList{"group pha-tiny", g2, g1, g0}));
  // Sorted by best val ascending the group (mean 2.133) comes before 2.2 with its members under
  // it in their own order; descending keeps the group row on top of its members.
  b.table.sortByColumn(RunsModel::BestVal, Qt::AscendingOrder);
  EXPECT_EQ(b.proxyRows().mid(0, 4), (QStringList{"group pha-tiny", g0, g1, g2}));
  b.table.sortByColumn(RunsModel::BestVal, Qt::DescendingOrder);
  EXPECT_EQ(b.proxyRows().mid(3), (QStringList{"group pha-tiny", g2, g1, g0}));

  // A selected group row stands for its replicas (Compare selected compares them).
  b.table.selectRow(b.proxyRows().indexOf("group pha-tiny"));
  EXPECT_EQ(b.browser.selectedRunIds(), (QList<qint64>{seeds[0], seeds[1], seeds[2]}));
  // A double-click on the group row collapses it again.
  emit b.table.doubleClicked(b.browser.proxy()->index(b.proxyRows().indexOf("group pha-tiny"), RunsModel::Status));
  EXPECT_EQ(b.proxyRows().size(), 4);
}
