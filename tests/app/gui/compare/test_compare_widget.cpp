// CompareWidget over two runs from two project stores: every tab shows what was written.
#include <QFileInfo>
#include <QLabel>
#include <QTableWidget>
#include <QTemporaryDir>
#include <cmath>
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include "compare_fixture.h"
#include "gui/compare/compare_widget.h"
#include "gui/compare/config_diff_view.h"
#include "gui/compare/curves_tab.h"
#include "gui/compare/length_tab.h"
#include "gui/compare/metrics_tab.h"
#include "widgets/mixer_heatmap.h"
#include "gui/compare/mixer_tab.h"
#include "gui/compare/pareto_tab.h"
#include "gui/compare/scaling_tab.h"
#include "widgets/curve_plot.h"
#include "model/flops.h"
#include "model/model_config.h"
#include "widgets/series_colors.h"
#include "store/run_writer.h"
#include "store/store.h"

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
  EXPECT_EQ(curves->selectedKeys(), (QStringList{"val/loss", "train/loss"}));  // the Metrics order
  EXPECT_EQ(curves->curveCount(), 4);

  curves->setSelectedKeys({"train/loss"});
  ASSERT_EQ(curves->curveCount(), 2);
  EXPECT_EQ(curves->curveName(0), "run-a");
  EXPECT_EQ(curves->curveName(1), "run-b");
  curves->curvePlot()->setSmoothing(0.0);  // drawn as stored
  for (int c = 0; c < 2; ++c) {
    const WrittenRun& run = c == 0 ? f.a : f.b;
    ASSERT_EQ(curves->pointCount(c), static_cast<int>(run.trainLoss.size()));
    const std::vector<double> drawn = curves->curveValues(c);
    ASSERT_EQ(drawn.size(), run.trainLoss.size());
    for (std::size_t i = 0; i < drawn.size(); ++i) EXPECT_DOUBLE_EQ(drawn[i], run.trainLoss[i]);
  }
  // The x axis ends at the last step, plus CurvePlot's 1.5% margin that keeps the final dot
  // inside the frame.
  EXPECT_GE(curves->plot()->xAxis->range().upper, 49);
  EXPECT_LT(curves->plot()->xAxis->range().upper, 49 * 1.02);
  // x by tokens: same points, x in tokens.
  curves->setXAxis(pha::store::XAxis::Tokens);
  EXPECT_GE(curves->plot()->xAxis->range().upper, 49 * 1024);
  EXPECT_LT(curves->plot()->xAxis->range().upper, 49 * 1024 * 1.02);
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

// What produced each run (its provenance, docs/store.md) is diffed beside the config: a run
// trained in bf16 beside one in fp32 shows env.precision as a differing row; equal keys do not.
TEST(CompareWidget, DiffShowsProvenanceThatDiffersLikeAConfigKey) {
  CompareFixture f;
  {
    auto sa = pha::store::Store::open(f.a.storePath.toStdString());
    sa.set_env(f.a.id, R"({"precision":"bf16","kernels":"fused","torch.version":"1.13.0"})");
    auto sb = pha::store::Store::open(f.b.storePath.toStdString());
    sb.set_env(f.b.id, R"({"precision":"fp32","kernels":"fused","torch.version":"1.13.0"})");
  }
  CompareWidget w;
  w.setRuns(refs(f));
  ConfigDiffView* diff = w.diffView();
  const QStringList paths = diff->paths();
  ASSERT_TRUE(paths.contains("env.precision")) << paths.join(", ").toStdString();
  EXPECT_FALSE(paths.contains("env.kernels"));
  EXPECT_FALSE(paths.contains("env.torch.version"));
  const int row = static_cast<int>(paths.indexOf("env.precision"));
  EXPECT_EQ(diff->cellText(row, 0), "\"bf16\"");
  EXPECT_EQ(diff->cellText(row, 1), "\"fp32\"");
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

namespace {

// Two runs in one store with the keys a real text run records (losses, accuracies, throughput,
// learning rate, per-branch norms), evaluated at one length only, as the quickstart's runs are.
QList<RunRef> writeTextRuns(const QString& store) {
  auto s = pha::store::Store::open(store.toStdString());
  s.define_metric_key("val/accuracy", pha::store::Goal::Maximize);
  s.define_metric_key("train/tokens_per_s", pha::store::Goal::Maximize);
  QList<RunRef> refs;
  for (int r = 0; r < 2; ++r) {
    pha::store::NewRun nr;
    nr.project = "text";
    nr.name = r == 0 ? "pha-tiny" : "transformer-tiny";
    nr.variant = r == 0 ? "pha" : "transformer";
    nr.config_json = "{}";
    const std::int64_t id = s.create_run(nr);
    pha::store::RunWriter w(s, id);
    for (int step = 1; step <= 20; ++step) {
      w.metric("train/loss", step, step * 256, step * 50, 4.0 - 0.05 * step - 0.2 * r);
      w.metric("train/lr", step, step * 256, step * 50, 0.003);
      w.metric("train/tokens_per_s", step, step * 256, step * 50, 1000.0 + 300.0 * r);
      for (const char* b : {"branch_rms/l0/gss", "branch_rms/l10/gss", "branch_rms/l2/gss"}) w.metric(b, step, step * 256, step * 50, 0.5);
    }
    w.metric("val/loss", 20, 20 * 256, 1000, 3.0 - 0.2 * r);
    w.metric("val/accuracy", 20, 20 * 256, 1000, 0.30 + 0.05 * r);
    w.eval({20, "valid", 128, "loss", 3.0 - 0.2 * r});
    w.finish(pha::store::RunStatus::Finished);
    refs.push_back(RunRef{store, id});
  }
  return refs;
}

}  // namespace

TEST(CompareMetrics, KeysAreGroupedInReadingOrder) {
  EXPECT_EQ(orderedMetricKeys({"branch_rms/l10/gss", "val/accuracy", "train/loss", "branch_rms/l2/gss", "val/loss",
                               "train/tokens_per_s", "train/lr", "test/bpb"}),
            (QStringList{"val/loss", "test/bpb", "train/loss", "val/accuracy", "train/tokens_per_s", "train/lr",
                         "branch_rms/l2/gss", "branch_rms/l10/gss"}));
  EXPECT_EQ(metricGroup("val/macro_accuracy"), MetricGroup::Accuracies);
  EXPECT_EQ(metricGroup("train/memory_bytes"), MetricGroup::Efficiency);
  EXPECT_EQ(metricGroup("train/grad_norm"), MetricGroup::Optimizer);
}

TEST(CompareMetrics, GroupedFilterableAndTheBestOfEachRowMarked) {
  QTemporaryDir dir;
  CompareWidget w;
  w.setRuns(writeTextRuns(dir.path() + "/runs.sqlite"));
  MetricsTab* m = w.metricsTab();
  EXPECT_EQ(m->groupTitles(), (QStringList{"Run", "Losses", "Accuracies", "Efficiency", "Optimizer", "Branch statistics"}));
  const QStringList rows = m->rowNames();
  EXPECT_LT(rows.indexOf("val/loss final"), rows.indexOf("train/loss final")) << "validation first";
  EXPECT_LT(rows.indexOf("train/loss best"), rows.indexOf("branch_rms/l0/gss final")) << "branch statistics last";
  // Lower loss, higher accuracy and higher throughput are better: transformer-tiny (run 1) here.
  for (const char* row : {"val/loss final", "val/loss best", "train/loss final", "val/accuracy best", "train/tokens_per_s median"}) {
    EXPECT_TRUE(m->isBest(row, 1)) << row;
    EXPECT_FALSE(m->isBest(row, 0)) << row;
  }
  EXPECT_FALSE(m->isBest("train/lr final", 0) || m->isBest("train/lr final", 1)) << "equal values: no best";
  EXPECT_FALSE(m->isBest("branch_rms/l0/gss final", 1)) << "a branch norm has no better value";
  EXPECT_FALSE(m->visibleRowNames().contains("branch_rms/l2/gss final")) << "branch statistics start folded";
  m->setGroupFolded("Branch statistics", false);
  EXPECT_TRUE(m->visibleRowNames().contains("branch_rms/l2/gss final"));
  m->setFilter("val/");
  EXPECT_EQ(m->visibleRowNames(), (QStringList{"val/loss final", "val/loss best", "val/accuracy final", "val/accuracy best"}));
  m->setFilter("");
  EXPECT_EQ(m->visibleRowNames().size(), m->rowNames().size());
  // A "best" row only for qualities: none for a learning rate, a speed or a memory.
  for (const char* row : {"train/lr best", "train/tokens_per_s best", "branch_rms/l0/gss best"})
    EXPECT_FALSE(m->rowNames().contains(row)) << row;
  // Values with their unit.
  EXPECT_TRUE(m->cellText("train/tokens_per_s median", 1).contains("tokens/s")) << m->cellText("train/tokens_per_s median", 1).toStdString();
}

TEST(CompareMetrics, MemoryIsShownInBytesUnits) {
  QTemporaryDir dir;
  const QString store = dir.path() + "/runs.sqlite";
  QList<RunRef> refs;
  for (int r = 0; r < 2; ++r) {
    auto s = pha::store::Store::open(store.toStdString());
    pha::store::NewRun nr;
    nr.name = "m" + std::to_string(r);
    const auto id = s.create_run(nr);
    pha::store::RunWriter w(s, id);
    w.metric("train/memory_bytes", 1, 1, 1, 291070000.0 + r);
    w.finish(pha::store::RunStatus::Finished);
    refs.push_back(RunRef{store, id});
  }
  CompareWidget w;
  w.setRuns(refs);
  const QString cell = w.metricsTab()->cellText("train/memory_bytes final", 0);
  EXPECT_TRUE(cell.contains("MiB") || cell.contains("MB")) << cell.toStdString();
  EXPECT_FALSE(cell.contains("e+08")) << cell.toStdString();
  EXPECT_FALSE(w.metricsTab()->rowNames().contains("train/memory_bytes best"));
}

TEST(CompareCurves, UseTheLiveViewsSmoothingAndLogYAndNameTheAxisAfterTheMetric) {
  CompareFixture f;
  CompareWidget w;
  w.resize(1000, 700);
  w.setRuns(refs(f));
  CurvesTab* curves = w.curvesTab();
  EXPECT_EQ(curves->plot()->yAxis->label(), "loss (nats/token)") << "train/loss and val/loss measure the same";
  curves->setSelectedKeys({"train/loss"});
  EXPECT_EQ(metricAxisTitle({"val/loss", "val/accuracy"}), "loss (nats/token), accuracy");
  EXPECT_EQ(metricAxisTitle({"val/ppl"}), "perplexity");
  curves->curvePlot()->setSmoothing(0.9);
  const std::vector<double> smoothed = curves->curveValues(0);
  ASSERT_EQ(smoothed.size(), f.a.trainLoss.size());
  EXPECT_GT(smoothed.back(), f.a.trainLoss.back() + 0.1) << "a falling curve's EMA lags above it";
  curves->curvePlot()->setLogY(true);
  EXPECT_EQ(curves->plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
  EXPECT_TRUE(curves->plot()->legend->visible());
}

TEST(CompareWidget, EmptyPlotsShowNoLegendBox) {
  CompareWidget w;
  w.setRuns({});
  EXPECT_FALSE(w.curvesTab()->plot()->legend->visible());
  EXPECT_FALSE(w.lengthTab()->plot()->legend->visible());
  EXPECT_FALSE(w.paretoTab()->plot()->legend->visible());
  EXPECT_FALSE(w.curvesTab()->emptyMessage().isEmpty());
}

TEST(CompareWidget, LengthTabSaysPlainlyWhenTheRunsHaveNoLengthSweep) {
  QTemporaryDir dir;
  CompareWidget w;
  w.setRuns(writeTextRuns(dir.path() + "/runs.sqlite"));
  LengthTab* l = w.lengthTab();
  EXPECT_EQ(l->curveCount(), 2) << "the one measured point per run is still drawn";
  EXPECT_TRUE(l->emptyMessage().contains("No length sweep in these runs: valid · loss was evaluated at T = 128 only. "
                                         "Add data.sweeps [\"length\"] (task projects)"))
      << l->emptyMessage().toStdString();
  CompareFixture f;  // evaluated at T = 64, 128, 256: a sweep, nothing to say
  w.setRuns(refs(f));
  l->setSeries("mqar", "accuracy");
  EXPECT_FALSE(l->emptyMessage().contains("No length sweep")) << l->emptyMessage().toStdString();
}

// Validation curves are drawn as stored, as in the live view: whatever the smoothing, the last
// drawn val/loss is the stored value (a smoothed one ended near 2.45 where 2.3188 was stored).
TEST(CompareWidget, EvaluationCurvesAreDrawnRawAsInTheLiveView) {
  CompareFixture f;
  CompareWidget w;
  w.setRuns(refs(f));
  CurvesTab* curves = w.curvesTab();
  curves->curvePlot()->setSmoothing(0.9);
  curves->setSelectedKeys({"val/loss"});
  ASSERT_EQ(curves->curveCount(), 2);
  for (int c = 0; c < 2; ++c) {
    const WrittenRun& run = c == 0 ? f.a : f.b;
    const std::vector<double> drawn = curves->curveValues(c);
    ASSERT_EQ(drawn.size(), run.valLoss.size());
    for (std::size_t i = 0; i < drawn.size(); ++i) EXPECT_DOUBLE_EQ(drawn[i], run.valLoss[i]) << "point " << i;
  }
  curves->setSelectedKeys({"train/loss"});  // a training curve is still smoothed
  ASSERT_EQ(curves->curveCount(), 2);
  EXPECT_NE(curves->curveValues(0).back(), f.a.trainLoss.back());
}

// Tokens/s and peak memory come from the store's profile of the run's model where there is one
// (not the last step's tokens/s, not "no perf rows"), FLOPs per token is the figure `pha model`
// shows, each point says where its value came from, and no stale axis stays when nothing plots.
TEST(CompareWidget, ParetoReadsTheModelsProfileAndSaysWhereEachCostCameFrom) {
  CompareFixture f;
  {
    auto s = pha::store::Store::open(f.a.storePath.toStdString());
    nlohmann::json measured = f.a.config["model"];
    measured["name"] = "profiled under another name";
    pha::store::NewRun nr;
    nr.project = "alpha";
    nr.name = "profile: run-a";
    nr.kind = pha::store::RunKind::Profile;
    nr.config_json =
        nlohmann::json{{"profile", {{"model", "run-a"}, {"points", {{{"spec", {{"model_config", measured}}}}}}}}}.dump();
    const auto id = s.create_run(nr);
    pha::store::RunWriter writer(s, id);
    writer.perf({128, 16, 7777.0, 123456789, "cpu", "train", "median of 3"});
    writer.perf({1024, 2, 3000.0, 923456789, "cpu", "train", "median of 3"});
    writer.finish(pha::store::RunStatus::Finished);
  }
  CompareWidget w;
  w.setRuns(refs(f));
  ParetoTab* p = w.paretoTab();
  p->setQualityKey("val/loss");
  p->setCostAxis(CostAxis::TokensPerSecond);
  ASSERT_EQ(p->pointCount(), 2);
  EXPECT_DOUBLE_EQ(p->pointCost(0), 7777.0);  // run-a's model profile, at the T nearest its training T
  EXPECT_TRUE(p->pointSource(0).contains("measured profile")) << p->pointSource(0).toStdString();
  EXPECT_DOUBLE_EQ(p->pointCost(1), 4900.0);  // run-b: never profiled, its own perf row
  EXPECT_TRUE(p->pointSource(1).contains("its own perf rows")) << p->pointSource(1).toStdString();
  p->setCostAxis(CostAxis::PeakMemory);
  ASSERT_EQ(p->pointCount(), 2);
  EXPECT_DOUBLE_EQ(p->pointCost(0), 123456789.0);
  EXPECT_TRUE(p->pointSource(0).contains("peak RSS")) << p->pointSource(0).toStdString();
  auto* sources = w.findChild<QLabel*>("paretoSources");
  ASSERT_NE(sources, nullptr);
  EXPECT_TRUE(sources->text().contains("run-a: measured profile")) << sources->text().toStdString();
  p->setCostAxis(CostAxis::FlopsPerToken);
  ASSERT_EQ(p->pointCount(), 2);
  const auto config = pha::model::model_config_from_json(f.a.config["model"]);
  EXPECT_DOUBLE_EQ(p->pointCost(0), pha::model::reference_flops(config).forward.total());
  EXPECT_TRUE(p->pointSource(0).contains("as pha model")) << p->pointSource(0).toStdString();

  p->setCostAxis(CostAxis::PeakMemory);
  p->setQualityKey("train/loss");
  const QCPRange before = p->plot()->xAxis->range();
  EXPECT_GT(before.upper, 1e8);
  p->setQualityKey("mqar");  // a key no run has: nothing to plot
  w.setRuns({});
  EXPECT_EQ(p->pointCount(), 0);
  EXPECT_LE(p->plot()->xAxis->range().upper, 1.0) << "the previous axis stayed";
}

// One model, one colour: Compare draws a run in the colour the Efficiency dock gives its model.
TEST(CompareWidget, ARunIsDrawnInItsModelsColourInEveryTab) {
  CompareFixture f;
  CompareWidget w;
  w.setRuns(refs(f));
  const QColor a = pha::widgets::modelColors().color("run-a");
  const QColor b = pha::widgets::modelColors().color("run-b");
  EXPECT_NE(a, b);
  w.paretoTab()->setQualityKey("val/loss");
  w.paretoTab()->setCostAxis(CostAxis::Parameters);
  ASSERT_EQ(w.paretoTab()->pointCount(), 2);
  EXPECT_EQ(w.paretoTab()->pointColor(0), a);
  EXPECT_EQ(w.paretoTab()->pointColor(1), b);
  w.curvesTab()->setSelectedKeys({"train/loss"});
  QCustomPlot* plot = w.curvesTab()->plot();
  bool sawA = false;
  for (int g = 0; g < plot->graphCount(); ++g)
    if (plot->graph(g)->name() == "run-a") sawA = sawA || plot->graph(g)->pen().color() == a;
  EXPECT_TRUE(sawA) << "run-a's curve is not in its model's colour";
}

// The Scaling tab: one series per variant over the compared runs' sizes, a fit where a variant has
// 3 or more sizes (the engine's fit_power_law), and the fitted curves' crossover written out.
TEST(CompareWidget, ScalingTabFitsEachVariantsSizesAndFindsTheCrossover) {
  QTemporaryDir dir;
  const QString store = dir.filePath("runs.sqlite");
  auto s = pha::store::Store::open(store.toStdString());
  QList<RunRef> refs;
  // a: L = 1.5 + 40 N^-0.3; b: L = 1.9 + 10 N^-0.3, two seeds each (+/- 0.002): they cross at
  // N = 75^(1/0.3) = 1.75e6, inside 100x the largest size. c has two sizes: drawn, not fitted.
  const std::vector<std::int64_t> sizes = {10000, 30000, 100000, 300000, 1000000};
  auto add = [&](const std::string& variant, std::int64_t n, double loss) {
    pha::store::NewRun nr;
    nr.project = "scaling";
    nr.name = variant + "-" + std::to_string(n);
    nr.variant = variant;
    nr.n_params = n;
    nr.config_json = "{}";
    const std::int64_t id = s.create_run(nr);
    pha::store::RunWriter w(s, id);
    w.metric("val/loss", 10, 1000, 100, loss);
    w.finish(pha::store::RunStatus::Finished);
    refs.push_back(RunRef{store, id});
  };
  for (std::int64_t n : sizes)
    for (int seed = 0; seed < 2; ++seed) {
      const double noise = seed ? 0.002 : -0.002;
      add("a", n, 1.5 + 40 * std::pow(double(n), -0.3) + noise);
      add("b", n, 1.9 + 10 * std::pow(double(n), -0.3) - noise);
    }
  add("c", 10000, 3.0);
  add("c", 30000, 2.9);
  CompareWidget w;
  w.resize(1000, 700);
  w.setRuns(refs);
  ScalingTab* t = w.scalingTab();
  EXPECT_EQ(t->seriesCount(), 3);
  EXPECT_EQ(t->fittedCount(), 2);
  const std::string summary = t->summary().toStdString();
  EXPECT_NE(summary.find("a vs b: fitted curves cross at 1.7"), std::string::npos) << summary;
  EXPECT_NE(summary.find("c: 2 size(s)"), std::string::npos) << summary;
  EXPECT_EQ(t->plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
  EXPECT_EQ(t->plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
  // Runs without a config have no FLOP count: on that axis nothing is drawn, and it says why.
  t->setAxes("val/loss", true);
  EXPECT_EQ(t->seriesCount(), 0);
  EXPECT_NE(t->emptyMessage().toStdString().find("training FLOP count"), std::string::npos);
}
