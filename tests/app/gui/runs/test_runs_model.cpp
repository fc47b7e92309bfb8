#include "gui/runs/runs_model.h"

#include <QTemporaryDir>
#include <gtest/gtest.h>

#include "store/run_writer.h"
#include "store/store.h"

using namespace pha::gui;
namespace st = pha::store;

namespace {
std::int64_t addRun(st::Store& s, const std::string& name, const std::string& variant, std::int64_t params,
                    std::vector<double> valLoss, st::RunStatus status) {
  st::NewRun nr;
  nr.project = "p";
  nr.name = name;
  nr.variant = variant;
  nr.n_params = params;
  const auto id = s.create_run(nr);
  s.set_status(id, st::RunStatus::Running);
  {
    st::RunWriter w(s, id);
    for (size_t i = 0; i < valLoss.size(); ++i) {
      w.metric("val/loss", static_cast<std::int64_t>(i + 1) * 10, 0, 0, valLoss[i]);
      w.metric("train/loss", static_cast<std::int64_t>(i + 1) * 10, 0, 0, valLoss[i] + 0.1);
    }
    w.finish(status);
  }
  return id;
}
}  // namespace

TEST(RunsModel, ShowsStoreRunsWithBestAndFinalMetrics) {
  QTemporaryDir dir;
  const QString path = dir.filePath("runs.sqlite");
  {
    auto s = st::Store::open(path.toStdString());
    addRun(s, "pha-tiny", "pha", 1'500'000, {3.0, 2.5, 2.7}, st::RunStatus::Finished);
    addRun(s, "transformer-tiny", "transformer", 1'200'000, {3.1, 2.9}, st::RunStatus::Diverged);
  }
  RunsModel m;
  ASSERT_TRUE(m.reload(path)) << m.lastError().toStdString();
  ASSERT_EQ(m.rowCount(), 2);
  const int row = m.entry(0)->run.name == "pha-tiny" ? 0 : 1;
  EXPECT_EQ(m.data(m.index(row, RunsModel::BestVal)).toString(), "2.5000");
  EXPECT_EQ(m.data(m.index(row, RunsModel::LastVal)).toString(), "2.7000");
  EXPECT_EQ(m.data(m.index(row, RunsModel::Id)).toString(), QString::number(m.entry(row)->run.id));
  EXPECT_EQ(m.data(m.index(row, RunsModel::FinalTrainLoss)).toString(), "2.8000");
  EXPECT_EQ(m.data(m.index(row, RunsModel::Parameters)).toString(), "1.5 M");
  EXPECT_EQ(m.data(m.index(1 - row, RunsModel::Status)).toString(), "diverged");
}

// The Precision column (on request) shows what each run trained in; the tooltips list the whole
// record of what produced it; a run of an older program says it recorded none.
TEST(RunsModel, PrecisionColumnAndTooltipShowTheRunsProvenance) {
  QTemporaryDir dir;
  const QString path = dir.filePath("runs.sqlite");
  std::int64_t bf16 = 0, old = 0;
  {
    auto s = st::Store::open(path.toStdString());
    bf16 = addRun(s, "pha-tiny", "pha", 1'500'000, {3.0}, st::RunStatus::Finished);
    s.set_env(bf16, R"({"precision":"bf16","precision.reason":"auto: calibrated","kernels":"fused","host":"h"})");
    old = addRun(s, "old", "pha", 1'500'000, {3.0}, st::RunStatus::Finished);
  }
  RunsModel m;
  ASSERT_TRUE(m.reload(path)) << m.lastError().toStdString();
  ASSERT_EQ(m.rowCount(), 2);
  const int row = m.entry(0)->run.id == bf16 ? 0 : 1;
  EXPECT_FALSE(RunsModel::shownByDefault(RunsModel::Precision));
  EXPECT_EQ(m.headerData(RunsModel::Precision, Qt::Horizontal).toString(), "Precision");
  EXPECT_EQ(m.data(m.index(row, RunsModel::Precision)).toString(), "bf16");
  EXPECT_EQ(m.data(m.index(1 - row, RunsModel::Precision)).toString(), "");
  const QString tip = m.data(m.index(row, RunsModel::Precision), Qt::ToolTipRole).toString();
  EXPECT_TRUE(tip.contains("precision: bf16")) << tip.toStdString();
  EXPECT_TRUE(tip.contains("precision.reason: auto: calibrated")) << tip.toStdString();
  EXPECT_TRUE(tip.contains("kernels: fused")) << tip.toStdString();
  EXPECT_LT(tip.indexOf("precision:"), tip.indexOf("host:")) << "the keys that change numbers come first";
  EXPECT_TRUE(m.data(m.index(row, RunsModel::Name), Qt::ToolTipRole).toString().contains("kernels: fused"));
  EXPECT_TRUE(m.data(m.index(1 - row, RunsModel::Precision), Qt::ToolTipRole).toString().contains("not recorded"));
  (void)old;
}

TEST(RunsModel, SortsOnNumbersAndFiltersByText) {
  std::vector<pha::store::RunListEntry> runs;
  for (int i = 0; i < 10000; ++i) {
    pha::store::RunListEntry e;
    e.run.id = i + 1;
    e.run.name = (i % 2 ? "pha-" : "transformer-") + std::to_string(i);
    e.run.variant = i % 2 ? "pha" : "transformer";
    e.run.n_params = (i * 7919) % 10007;  // not in display-string order
    runs.push_back(e);
  }
  RunsModel m;
  m.setRuns(runs, "mem");
  RunsFilterModel f;
  f.setSourceModel(&m);
  f.sort(RunsModel::Parameters, Qt::AscendingOrder);
  ASSERT_EQ(f.rowCount(), 10000);
  qint64 prev = -1;
  for (int r = 0; r < f.rowCount(); r += 97) {
    const qint64 v = f.data(f.index(r, RunsModel::Parameters), RunsModel::SortRole).toLongLong();
    EXPECT_GE(v, prev);
    prev = v;
  }
  f.setFilterText("transformer");
  EXPECT_EQ(f.rowCount(), 5000);
  f.setFilterText("pha-99");
  EXPECT_EQ(f.rowCount(), 56);  // pha-99, pha-991..999 (odd), pha-9901..9999 (odd)
}

TEST(RunsModel, UnreadableStoreKeepsRowsAndSaysWhy) {
  QTemporaryDir dir;
  QFile junk(dir.filePath("junk.sqlite"));
  ASSERT_TRUE(junk.open(QIODevice::WriteOnly));
  junk.write("this is not a database at all, not even close........................................");
  junk.close();
  RunsModel m;
  m.setRuns({pha::store::RunListEntry{}}, "x");
  EXPECT_FALSE(m.reload(junk.fileName()));
  EXPECT_TRUE(m.lastError().contains("junk.sqlite"));
  EXPECT_EQ(m.rowCount(), 1);
}

// The Time column is the run's training clock (the wall_ms of its last step), not start to end:
// a run interrupted after 5 s of training and resumed 25 s later read 29.5 s.
TEST(RunsModel, TimeIsTheTrainingClockNotTheIdleGapOfAResume) {
  QTemporaryDir dir;
  const QString path = dir.filePath("runs.sqlite");
  std::int64_t id = 0, noSteps = 0;
  {
    auto s = st::Store::open(path.toStdString());
    st::NewRun nr;
    nr.project = "p";
    nr.name = "resumed";
    id = s.create_run(nr);
    {
      st::RunWriter w(s, id);
      for (int i = 1; i <= 10; ++i) w.metric("train/loss", i, i * 64, i * 500, 3.0);  // 5 s of training
      w.finish(st::RunStatus::Finished);
    }
    s.set_run_times(id, 1'000'000, 1'030'000);  // started and ended 30 s apart (a resume in between)
    nr.name = "no steps";
    noSteps = s.create_run(nr);
    s.set_run_times(noSteps, 2'000'000, 2'012'000);
  }
  RunsModel m;
  ASSERT_TRUE(m.reload(path));
  EXPECT_DOUBLE_EQ(m.runSeconds(m.rowOfRun(id)), 5.0);
  EXPECT_EQ(m.data(m.index(m.rowOfRun(id), RunsModel::Duration)).toString(), "5.0 s");
  EXPECT_DOUBLE_EQ(m.runSeconds(m.rowOfRun(noSteps)), 12.0) << "no step recorded: start to end";
}
