// CompareWidget over two runs from two project stores: every tab shows what was written.
#include <QTableWidget>
#include <cmath>
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include "compare_fixture.h"
#include "compare_widget.h"
#include "config_diff_view.h"
#include "curves_tab.h"
#include "length_tab.h"
#include "metrics_tab.h"
#include "mixer_heatmap.h"
#include "mixer_tab.h"
#include "pareto_tab.h"

using namespace pha::gui;

namespace {

QList<RunRef> refs(const CompareFixture& f) {
  return {RunRef{f.a.storePath, f.a.id}, RunRef{f.b.storePath, f.b.id}};
}

}  // namespace

TEST(CompareWidget, OverlaysOneCurvePerRunAndKeyWithTheWrittenPoints) {
  CompareFixture f;
  CompareWidget w;
  w.resize(1000, 700);
  w.setRuns(refs(f));
  EXPECT_TRUE(w.message().isEmpty()) << w.message().toStdString();
  CurvesTab* curves = w.curvesTab();
  EXPECT_EQ(curves->selectedKeys(), (QStringList{"train/loss", "val/loss"}));
  EXPECT_EQ(curves->curveCount(), 4);

  curves->setSelectedKeys({"train/loss"});
  ASSERT_EQ(curves->curveCount(), 2);
  EXPECT_EQ(curves->curveName(0), "run-a");
  EXPECT_EQ(curves->curveName(1), "run-b");
  for (int c = 0; c < 2; ++c) {
    const WrittenRun& run = c == 0 ? f.a : f.b;
    ASSERT_EQ(curves->pointCount(c), static_cast<int>(run.trainLoss.size()));
    auto data = curves->plot()->graph(c)->data();
    for (int i = 0; i < data->size(); ++i) {
      EXPECT_DOUBLE_EQ(data->at(i)->key, i);
      EXPECT_DOUBLE_EQ(data->at(i)->value, run.trainLoss[static_cast<std::size_t>(i)]);
    }
  }
  // x by tokens: same points, x in tokens.
  curves->setXAxis(pha::store::XAxis::Tokens);
  EXPECT_DOUBLE_EQ(curves->plot()->graph(0)->data()->at(3)->key, 3 * 1024);
  curves->setSelectedKeys({"no/such"});
  EXPECT_EQ(curves->curveCount(), 0);
  EXPECT_FALSE(curves->emptyMessage().isEmpty());
}

TEST(CompareWidget, DiffListsExactlyTheDifferingConfigPaths) {
  CompareFixture f;
  CompareWidget w;
  w.setRuns(refs(f));
  ConfigDiffView* diff = w.diffView();
  EXPECT_EQ(diff->paths(), (QStringList{"data.shuffle", "model.d_model", "train.lr"}));
  ASSERT_EQ(diff->rowCount(), 3);
  EXPECT_EQ(diff->cellText(0, 0), "(absent)");
  EXPECT_EQ(diff->cellText(0, 1), "true");
  const int dModel = f.a.config["model"]["d_model"].get<int>();
  EXPECT_EQ(diff->cellText(1, 0), QString::number(dModel));
  EXPECT_EQ(diff->cellText(1, 1), QString::number(2 * dModel));
  EXPECT_EQ(diff->table()->horizontalHeaderItem(1)->text(), "run-a");
  EXPECT_EQ(diff->table()->horizontalHeaderItem(2)->text(), "run-b");
}

TEST(CompareWidget, MetricsTableShowsTheWrittenFinalAndBestValues) {
  CompareFixture f;
  CompareWidget w;
  w.setRuns(refs(f));
  MetricsTab* m = w.metricsTab();
  for (int c = 0; c < 2; ++c) {
    const WrittenRun& run = c == 0 ? f.a : f.b;
    EXPECT_DOUBLE_EQ(m->cellValue("val/loss best", c).toDouble(), run.bestVal);
    EXPECT_TRUE(m->cellText("val/loss best", c).contains("step 30")) << m->cellText("val/loss best", c).toStdString();
    EXPECT_DOUBLE_EQ(m->cellValue("val/loss final", c).toDouble(), run.valLoss.back());
    EXPECT_DOUBLE_EQ(m->cellValue("train/loss final", c).toDouble(), run.trainLoss.back());
    EXPECT_DOUBLE_EQ(m->cellValue("train/loss best", c).toDouble(), run.trainLoss.back());
    EXPECT_EQ(m->cellValue("parameters", c).toLongLong(), run.nParams);
    EXPECT_EQ(m->cellText("status", c), "finished");
    EXPECT_EQ(m->cellText("device", c), "cpu");
  }
  EXPECT_EQ(m->cellText("project", 1), "beta");
}

TEST(CompareWidget, ParetoPlotsOnePointPerRunAndMarksTheFront) {
  CompareFixture f;
  CompareWidget w;
  w.setRuns(refs(f));
  ParetoTab* p = w.paretoTab();
  p->setQualityKey("val/loss");
  p->setCostAxis(CostAxis::Parameters);
  EXPECT_EQ(p->pointCount(), 2);
  EXPECT_EQ(p->pointLabels(), (QStringList{"run-a", "run-b"}));
  EXPECT_EQ(p->frontCount(), 1);  // run-a: fewer parameters and lower loss
  EXPECT_DOUBLE_EQ(p->plot()->graph(0)->data()->at(0)->key, double(f.a.nParams));
  EXPECT_DOUBLE_EQ(p->plot()->graph(0)->data()->at(0)->value, f.a.bestVal);
  p->setCostAxis(CostAxis::FlopsPerToken);  // from each run's model config
  EXPECT_EQ(p->pointCount(), 2) << p->emptyMessage().toStdString();
  EXPECT_GT(p->plot()->graph(1)->data()->at(0)->key, p->plot()->graph(0)->data()->at(0)->key);
  p->setCostAxis(CostAxis::TokensPerSecond);  // perf rows: run-a faster and better: front of one
  EXPECT_EQ(p->pointCount(), 2);
  EXPECT_EQ(p->frontCount(), 1);
  p->setCostAxis(CostAxis::PeakMemory);
  EXPECT_EQ(p->pointCount(), 2);
}

TEST(CompareWidget, LengthTabHasOneCurvePerRunOverTheSweptLengths) {
  CompareFixture f;
  CompareWidget w;
  w.setRuns(refs(f));
  LengthTab* l = w.lengthTab();
  l->setSeries("mqar", "accuracy");
  ASSERT_EQ(l->curveCount(), 2);
  EXPECT_EQ(l->pointCount(0), 3);  // the seq_len 0 eval is not part of the sweep
  EXPECT_DOUBLE_EQ(l->plot()->graph(0)->data()->at(2)->key, 256);
  EXPECT_DOUBLE_EQ(l->plot()->graph(1)->data()->at(0)->value, 0.9 - 0.064 - 0.1);
}

TEST(CompareWidget, MixerHeatmapsShareOneStep) {
  CompareFixture f;
  CompareWidget w;
  w.setRuns(refs(f));
  MixerTab* m = w.mixerTab();
  ASSERT_EQ(m->heatmapCount(), 2);
  EXPECT_EQ(m->step(), 50);
  EXPECT_NEAR(m->heatmap(1)->cellValue(1, 1), f.b.mixerLast[4], 1e-6);
  m->setStep(10);
  EXPECT_EQ(m->shownStep(0), 10);
  EXPECT_NEAR(m->heatmap(0)->cellValue(1, 1), f.a.mixerFirst[4], 1e-6);
}

TEST(CompareWidget, MissingStoreAndRunAreReportedNotFatal) {
  CompareFixture f;
  CompareWidget w;
  w.setRuns({RunRef{f.dir() + "/nowhere/runs.sqlite", 1}, RunRef{f.a.storePath, 999}, RunRef{f.a.storePath, f.a.id}});
  EXPECT_TRUE(w.message().contains("not found")) << w.message().toStdString();
  EXPECT_TRUE(w.message().contains("999")) << w.message().toStdString();
  EXPECT_FALSE(QFileInfo::exists(f.dir() + "/nowhere/runs.sqlite"));  // comparing creates nothing
  EXPECT_EQ(w.curvesTab()->curveCount(), 2);  // the one readable run: train/loss and val/loss
  EXPECT_EQ(w.paretoTab()->pointCount(), 1);
  w.setRuns({});
  EXPECT_EQ(w.curvesTab()->curveCount(), 0);
  EXPECT_FALSE(w.diffView()->message().isEmpty());
}
