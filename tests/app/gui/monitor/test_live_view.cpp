// The live view offscreen, over stores and event batches made by the test: validation curves
// end at the stored value, a single evaluation is drawn, evaluation points sit at their step's
// tokens and time, the run ends without a stale ETA, and the Export… menus name the run and
// the step and write every point (curves) and every cell (mixer).
#include <QFile>
#include <QLabel>
#include <QTemporaryDir>
#include <gtest/gtest.h>

#include "widgets/curve_plot.h"
#include "gui/main_window.h"
#include "widgets/mixer_panel.h"
#include "gui/monitor/run_monitor.h"
#include "tests/app/gui/store_fixture.h"

using namespace pha::gui;

namespace {

QStringList csvRows(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
}

pha::runtime::StepMetrics step(std::int64_t s, std::int64_t total, double loss) {
  pha::runtime::StepMetrics m;
  m.run_id = 1;
  m.step = s;
  m.total_steps = total;
  m.tokens = s * 2048;
  m.wall_s = 0.25 * s;
  m.loss = loss;
  m.perplexity = std::exp(loss);
  m.eta_s = 0.25 * (total - s);
  return m;
}

}  // namespace

// The issue: with smoothing 0.6 the bold val/loss line ended at 2.157 while the stored (and
// the run table's) final value was 2.091.
TEST(LiveView, StoredValidationCurveEndsAtTheStoredFinalValue) {
  pha::test::StoreFixture f;
  pha::test::FixtureRun r;
  r.val = {2.6, 2.3, 2.091};
  const auto id = f.add(r);
  MainWindow w;
  ASSERT_TRUE(w.monitor()->showStoredRun(f.path(), id)) << w.monitor()->errorText().toStdString();
  pha::widgets::CurvePlot* loss = w.docks().lossPlot;
  ASSERT_GT(loss->smoothing(), 0.0);
  const auto drawn = loss->drawnSmoothed("val/loss");
  ASSERT_EQ(drawn.size(), 3u);
  const double stored = pha::store::Store::open(f.path().toStdString()).summary(id, "val/loss")->last;
  EXPECT_DOUBLE_EQ(drawn.back(), stored);
  EXPECT_DOUBLE_EQ(stored, 2.091);
  EXPECT_EQ(drawn, (std::vector<double>{2.6, 2.3, 2.091}));
  EXPECT_EQ(loss->finalLabel("val/loss"), "2.091");
}

TEST(LiveView, LiveEvaluationsAreDrawnAtTheirStepAndTheEndClearsTheEta) {
  MainWindow w;
  RunMonitor* m = w.monitor();
  m->beginLive("pha-tiny");
  EventBuffer::Batch b;
  for (int s = 1; s <= 10; ++s) b.steps.push_back(step(s, 100, 3.0 - 0.01 * s));
  b.evals.push_back({1, 10, "valid", "loss", 0, 2.9});  // the single evaluation of a cancelled run
  m->addEvents(b);
  pha::widgets::CurvePlot* loss = w.docks().lossPlot;
  EXPECT_EQ(loss->seriesKind("val/loss"), pha::widgets::SeriesKind::Sparse);
  EXPECT_EQ(loss->drawnSmoothed("val/loss"), std::vector<double>{2.9});
  EXPECT_EQ(loss->finalLabel("val/loss"), "2.9");
  const auto data = loss->data();
  ASSERT_EQ(data.size(), 2u);
  EXPECT_EQ(data[1].name, "val/loss");
  EXPECT_EQ(data[1].tokens, std::vector<double>{20480.0}) << "at step 10's tokens, not at 0";
  EXPECT_EQ(data[1].wall, std::vector<double>{2.5});
  EXPECT_TRUE(w.docks().liveReadout->text().contains("run ETA 23 s")) << w.docks().liveReadout->text().toStdString();
  m->endLive("cancelled", "");
  const QString readout = w.docks().liveReadout->text();
  EXPECT_FALSE(readout.contains("ETA")) << readout.toStdString();
  EXPECT_EQ(readout, "pha-tiny cancelled at step 10 of 100 (a checkpoint was written)");
}

TEST(LiveView, CurveExportsNameTheRunAndWriteEveryStoredPoint) {
  pha::test::StoreFixture f;
  pha::test::FixtureRun r;
  r.steps = 3000;  // more than the plot's 2,000-bucket read
  r.val = {2.6, 2.4, 2.3};
  const auto id = f.add(r);
  MainWindow w;
  ASSERT_TRUE(w.monitor()->showStoredRun(f.path(), id));
  pha::widgets::CurvePlot* loss = w.docks().lossPlot;
  EXPECT_LT(loss->pointCount("train/loss"), 3000);
  const pha::widgets::ExportSource source = w.monitor()->curvesExport(loss);
  EXPECT_EQ(source.title(), "pha-tiny: loss (nats/token), step 3000");
  QTemporaryDir dir;
  const QString path = dir.filePath("loss.csv");
  QString error;
  ASSERT_TRUE(source.csv(path, &error)) << error.toStdString();
  const QStringList rows = csvRows(path);
  ASSERT_EQ(rows.size(), 1 + 3000);
  EXPECT_EQ(rows[0], QString("step,tokens,wall_s,train/loss raw,train/loss smoothed (w=%1),val/loss raw")
                         .arg(loss->smoothing(), 0, 'f', 2));
  EXPECT_TRUE(rows[1000].startsWith("1000,1024000,500,")) << rows[1000].toStdString();
  EXPECT_TRUE(rows[1000].endsWith(",2.6")) << rows[1000].toStdString();
}

TEST(LiveView, MixerExportHasOneRowPerCellOfEverySnapshot) {
  pha::test::StoreFixture f;
  pha::test::FixtureRun r;
  r.steps = 20;
  r.mixerEvery = 5;  // 4 snapshots of 4 layers x 3 branches
  const auto id = f.add(r);
  MainWindow w;
  ASSERT_TRUE(w.monitor()->showStoredRun(f.path(), id));
  const pha::widgets::ExportSource source = w.monitor()->mixerExport();
  EXPECT_EQ(source.title(), "pha-tiny: mixer weights, step 20");
  QTemporaryDir dir;
  const QString path = dir.filePath("mixer.csv");
  QString error;
  ASSERT_TRUE(source.csv(path, &error)) << error.toStdString();
  const QStringList rows = csvRows(path);
  ASSERT_EQ(rows.size(), 1 + 4 * 12);
  EXPECT_EQ(rows[0], "layer,branch,step,weight");
  EXPECT_EQ(rows[1], "0,GSS,5,0.335");
  EXPECT_EQ(rows[12], "3,FFN,5,0.34");
  EXPECT_EQ(rows[48], "3,FFN,20,0.34");
  EXPECT_TRUE(w.docks().mixerPanel->readout().contains("near uniform")) << w.docks().mixerPanel->readout().toStdString();
}
