// The Parallel tab (parallel coordinates) over four runs of one store whose configs differ in
// d_model (linear), a layer pattern (categorical) and the learning rate (log): the axes, their
// order, brushes and the selection they emit, and colours by the metric's better end.
#include <QFile>
#include <QFileInfo>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTabWidget>
#include <QTest>
#include <cmath>
#include <gtest/gtest.h>

#include "gui/compare/compare_widget.h"
#include "gui/compare/curves_tab.h"
#include "gui/compare/metrics_tab.h"
#include "gui/compare/parallel_coords.h"
#include "gui/compare/parallel_coords_tab.h"
#include "widgets/parallel_coords_view.h"
#include "store/run_writer.h"
#include "store/store.h"

using namespace pha::gui;
namespace ps = pha::store;
using nlohmann::json;

namespace {

struct Planned {
  const char* name;
  double lr;
  int dModel;
  json pattern;
  double valLoss;  // final
  double valAcc;   // final
};

// r2 has the lowest final val/loss, r3 the highest final val/accuracy; r0 is the worst at both.
const Planned kRuns[] = {
    {"r0", 1e-4, 32, {"gss", "attn"}, 3.0, 0.50},
    {"r1", 1e-3, 32, {"attn", "attn"}, 2.5, 0.60},
    {"r2", 1e-2, 64, {"gss", "attn"}, 2.0, 0.55},
    {"r3", 1e-4, 64, {"attn", "attn"}, 2.8, 0.70},
};

class ParallelStore {
 public:
  ParallelStore() {
    path = dir.path() + "/runs.sqlite";
    auto store = ps::Store::open(path.toStdString());
    for (const Planned& p : kRuns) {
      const json config = {{"project", "grid"},
                           {"run", p.name},  // the engine writes the run's name: not an axis
                           {"model", {{"d_model", p.dModel}, {"n_layers", 2}, {"pattern", p.pattern}}},
                           {"training", {{"lr", p.lr}, {"steps", 30}}}};
      ps::NewRun nr;
      nr.project = "grid";
      nr.name = p.name;
      nr.variant = "pha";
      nr.config_json = config.dump();
      const std::int64_t id = store.create_run(nr);
      ps::RunWriter w(store, id);
      // The best val/loss is not the last: the axis must show the final value.
      const double loss[] = {p.valLoss + 1.0, p.valLoss - 0.3, p.valLoss};
      for (int i = 0; i < 3; ++i) {
        w.metric("val/loss", (i + 1) * 10, (i + 1) * 640, (i + 1) * 100, loss[i]);
        w.metric("val/accuracy", (i + 1) * 10, (i + 1) * 640, (i + 1) * 100, p.valAcc - 0.1 * (2 - i));
        w.metric("train/loss", (i + 1) * 10, (i + 1) * 640, (i + 1) * 100, p.valLoss + 0.2);
      }
      w.finish(ps::RunStatus::Finished);
      ids << id;
    }
  }
  QList<RunRef> refs() const {
    QList<RunRef> out;
    for (qint64 id : ids) out << RunRef{path, id};
    return out;
  }

  QTemporaryDir dir;
  QString path;
  QList<qint64> ids;
};

// A shown tab at a fixed size, so the view's geometry (axis x, position y) is what the mouse hits.
struct ShownTab {
  explicit ShownTab(const QList<RunRef>& refs) {
    widget.resize(1300, 700);
    widget.setRuns(refs);
    widget.tabs()->setCurrentWidget(tab());
    widget.show();
    EXPECT_TRUE(QTest::qWaitForWindowExposed(&widget));
  }
  ParallelCoordsTab* tab() const { return widget.parallelTab(); }
  pha::widgets::ParallelCoordsView* view() const { return widget.parallelTab()->view(); }
  int axisOf(const QString& key) const { return int(view()->axisKeys().indexOf(key)); }
  CompareWidget widget;
};

QList<qint64> idsOf(const QVariant& v) {
  QList<qint64> out;
  for (const RunRef& r : v.value<QList<RunRef>>()) out << r.runId;
  return out;
}

LoadedRun memoryRun(qint64 id, const json& config) {
  LoadedRun r;
  r.ref = RunRef{"mem", id};
  r.label = QStringLiteral("m%1").arg(id);
  r.config = config;
  return r;
}

}  // namespace

TEST(ParallelCoords, AxesAreTheVariedKeysAndTheMetric) {
  ParallelStore s;
  ShownTab t(s.refs());
  EXPECT_TRUE(t.tab()->emptyMessage().isEmpty()) << t.tab()->emptyMessage().toStdString();
  // model.n_layers and training.steps are equal, project is equal, run is the line's name.
  EXPECT_EQ(t.view()->axisKeys(), (QStringList{"model.d_model", "model.pattern", "training.lr", "val/loss"}));
  EXPECT_EQ(t.tab()->metric(), "val/loss");  // no val/bpb: the first of val/bpb, val/loss, val/accuracy
  EXPECT_TRUE(t.tab()->metricChoices().contains("val/accuracy"));
  EXPECT_TRUE(t.tab()->metricChoices().contains("train/loss"));

  const ParallelAxis& dModel = t.view()->axis(0);
  EXPECT_EQ(dModel.scale, AxisScale::Linear);  // 32 .. 64 is not a decade
  EXPECT_DOUBLE_EQ(dModel.position(0), 0.0);
  EXPECT_DOUBLE_EQ(dModel.position(2), 1.0);

  const ParallelAxis& lr = t.view()->axis(2);
  EXPECT_EQ(lr.scale, AxisScale::Log);
  EXPECT_NEAR(lr.position(0), 0.0, 1e-12);  // 1e-4
  EXPECT_NEAR(lr.position(1), 0.5, 1e-12);  // 1e-3: halfway on a log axis
  EXPECT_NEAR(lr.position(2), 1.0, 1e-12);  // 1e-2
  ASSERT_EQ(lr.ticks().size(), 3u);
  EXPECT_EQ(lr.ticks()[1].second, "0.001");

  const ParallelAxis& pattern = t.view()->axis(1);
  EXPECT_EQ(pattern.scale, AxisScale::Categorical);
  EXPECT_EQ(pattern.categories, (QStringList{R"(["attn","attn"])", R"(["gss","attn"])"}));
  EXPECT_DOUBLE_EQ(pattern.position(0), 1.0);  // ["gss","attn"]
  EXPECT_DOUBLE_EQ(pattern.position(1), 0.0);

  const ParallelAxis& metric = t.view()->axis(3);
  EXPECT_TRUE(metric.metric);
  EXPECT_EQ(metric.note, "lower is better");

  // No two of these keys split the runs alike: one axis per key whether merged or not.
  EXPECT_TRUE(t.tab()->mergeTogether());
  t.tab()->setMergeTogether(false);
  EXPECT_EQ(t.view()->axisKeys(), (QStringList{"model.d_model", "model.pattern", "training.lr", "val/loss"}));
}

TEST(ParallelCoords, SettingsThatChangeTogetherShareAnAxisWhenMerged) {
  // Two families (every model key follows model.name) and a learning rate per run.
  auto config = [](const char* name, int dff, const char* ffn, double lr) {
    return json{{"model", {{"d_ff", dff}, {"ffn", ffn}, {"name", name}}}, {"training", {{"lr", lr}}}};
  };
  const LoadedRuns runs{memoryRun(1, config("a", 368, "gelu", 1e-3)), memoryRun(2, config("a", 368, "gelu", 3e-3)),
                        memoryRun(3, config("b", 512, "swiglu", 1e-3)), memoryRun(4, config("b", 512, "swiglu", 1e-2))};
  const ParallelData all = buildParallelData(runs, {});
  ASSERT_EQ(all.axes.size(), 4u);
  EXPECT_EQ(all.axes[0].key, "model.d_ff");
  const ParallelData merged = buildParallelData(runs, {}, /*mergeTogether=*/true);
  ASSERT_EQ(merged.axes.size(), 2u);
  EXPECT_EQ(merged.axes[0].key, "model.name");  // a name stands for its family's settings
  EXPECT_EQ(merged.axes[0].followers, (QStringList{"model.d_ff", "model.ffn"}));
  EXPECT_EQ(merged.axes[0].categories, (QStringList{"a", "b"}));
  EXPECT_EQ(merged.axes[0].followerTexts.size(), 2u);
  EXPECT_EQ(merged.axes[1].key, "training.lr");
  EXPECT_EQ(merged.axes[1].scale, AxisScale::Log);
}

TEST(ParallelCoords, MetricAxisHoldsTheFinalValueTheMetricsTabShows) {
  ParallelStore s;
  ShownTab t(s.refs());
  const ParallelAxis& metric = t.view()->axis(t.axisOf("val/loss"));
  for (int i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(metric.values[std::size_t(i)], kRuns[i].valLoss);
    EXPECT_DOUBLE_EQ(metric.values[std::size_t(i)], t.widget.metricsTab()->cellValue("val/loss final", i).toDouble());
  }
  t.tab()->setMetric("val/accuracy");
  EXPECT_EQ(t.view()->axisKeys().back(), "val/accuracy");
  EXPECT_EQ(t.view()->axis(t.axisOf("val/accuracy")).note, "higher is better");
}

TEST(ParallelCoords, NumericScaleAndCategoricalSpacing) {
  EXPECT_EQ(numericScale({0.001, 0.003, 0.01}), AxisScale::Log);  // one decade, the lr-grid's sweep
  EXPECT_EQ(numericScale({1, 5, 9}), AxisScale::Linear);
  EXPECT_EQ(numericScale({-1, 100}), AxisScale::Linear);  // not all positive
  EXPECT_EQ(numericScale({0, 100}), AxisScale::Linear);

  // Three categories: evenly spaced ticks, numbers by value, "(absent)" last.
  LoadedRuns runs{memoryRun(1, {{"kind", "gelu"}}), memoryRun(2, {{"kind", "swiglu"}}), memoryRun(3, json::object())};
  runs[2].config["other"] = 1;
  const ParallelData d = buildParallelData(runs, {});
  ASSERT_EQ(d.axes.size(), 2u);  // kind, other
  EXPECT_TRUE(d.metricKey.isEmpty());
  const ParallelAxis& kind = d.axes[0];
  EXPECT_EQ(kind.categories, (QStringList{"gelu", "swiglu", "(absent)"}));
  EXPECT_DOUBLE_EQ(kind.position(0), 0.0);
  EXPECT_DOUBLE_EQ(kind.position(1), 0.5);
  EXPECT_DOUBLE_EQ(kind.position(2), 1.0);
  // A number present in one config only is categorical: its value, then "(absent)".
  EXPECT_EQ(d.axes[1].categories, (QStringList{"1", "(absent)"}));
}

TEST(ParallelCoords, MoveAxisReordersByCallButtonsAndDrag) {
  ParallelStore s;
  ShownTab t(s.refs());
  QSignalSpy moved(t.view(), &pha::widgets::ParallelCoordsView::axesMoved);
  t.view()->moveAxis(3, 0);
  EXPECT_EQ(t.view()->axisKeys(), (QStringList{"val/loss", "model.d_model", "model.pattern", "training.lr"}));
  EXPECT_EQ(moved.count(), 1);

  t.view()->setCurrentAxis(1);  // model.d_model
  auto* right = t.tab()->findChild<QPushButton*>("compareParallelRight");
  ASSERT_NE(right, nullptr);
  right->click();
  EXPECT_EQ(t.view()->axisKeys(), (QStringList{"val/loss", "model.pattern", "model.d_model", "training.lr"}));
  EXPECT_EQ(t.view()->currentAxis(), 2);  // the moved axis stays chosen

  // Dragging the first axis's title onto the last axis's place.
  pha::widgets::ParallelCoordsView* v = t.view();
  const QPoint from(int(v->axisX(0)), int(v->titleY())), to(int(v->axisX(3)), int(v->titleY()));
  QTest::mousePress(v, Qt::LeftButton, {}, from);
  QTest::mouseMove(v, QPoint((from.x() + to.x()) / 2, from.y()));
  QTest::mouseMove(v, to);
  QTest::mouseRelease(v, Qt::LeftButton, {}, to);
  EXPECT_EQ(t.view()->axisKeys(), (QStringList{"model.pattern", "model.d_model", "training.lr", "val/loss"}));
}

TEST(ParallelCoords, BrushOnOneAxisSelectsRunsAndEmitsTheirIds) {
  ParallelStore s;
  ShownTab t(s.refs());
  QSignalSpy spy(t.tab(), &ParallelCoordsTab::runsBrushed);
  t.view()->setBrushValues(t.axisOf("training.lr"), 1e-3, 1e-2);
  ASSERT_EQ(spy.count(), 1);
  EXPECT_EQ(idsOf(spy.last().at(0)), (QList<qint64>{s.ids[1], s.ids[2]}));
  EXPECT_EQ(t.tab()->brushedRunIds(), (QList<qint64>{s.ids[1], s.ids[2]}));
  EXPECT_TRUE(t.tab()->status().contains("2 of 4 runs")) << t.tab()->status().toStdString();

  // The mouse: a drag down the top part of the d_model axis keeps the runs at 64.
  t.view()->clearBrushes();
  pha::widgets::ParallelCoordsView* v = t.view();
  const int a = t.axisOf("model.d_model");
  const int x = int(v->axisX(a));
  QTest::mousePress(v, Qt::LeftButton, {}, QPoint(x, int(v->positionY(1.0)) - 2));
  QTest::mouseMove(v, QPoint(x, int(v->positionY(0.8))));
  QTest::mouseMove(v, QPoint(x, int(v->positionY(0.7))));
  QTest::mouseRelease(v, Qt::LeftButton, {}, QPoint(x, int(v->positionY(0.7))));
  EXPECT_TRUE(v->hasBrush(a));
  EXPECT_EQ(idsOf(spy.last().at(0)), (QList<qint64>{s.ids[2], s.ids[3]}));
}

TEST(ParallelCoords, TwoBrushesIntersectAndClearingBringsEveryRunBack) {
  ParallelStore s;
  ShownTab t(s.refs());
  QSignalSpy spy(t.tab(), &ParallelCoordsTab::runsBrushed);
  pha::widgets::ParallelCoordsView* v = t.view();
  v->setBrushValues(t.axisOf("training.lr"), 1e-3, 1e-2);  // r1, r2
  v->setBrushValues(t.axisOf("model.d_model"), 60, 64);     // r2, r3
  EXPECT_EQ(v->brushCount(), 2);
  EXPECT_EQ(idsOf(spy.last().at(0)), (QList<qint64>{s.ids[2]}));
  // A categorical brush: ["attn","attn"] is category 0 (r1, r3); with the others nothing is left.
  v->setBrushValues(t.axisOf("model.pattern"), 0, 0);
  EXPECT_TRUE(idsOf(spy.last().at(0)).isEmpty());
  EXPECT_TRUE(t.tab()->brushedRuns().isEmpty());

  // A double-click on the pattern axis clears its brush only.
  const int p = t.axisOf("model.pattern");
  QTest::mouseDClick(v, Qt::LeftButton, {}, QPoint(int(v->axisX(p)), int(v->positionY(0.5))));
  EXPECT_FALSE(v->hasBrush(p));
  EXPECT_EQ(v->brushCount(), 2);
  EXPECT_EQ(idsOf(spy.last().at(0)), (QList<qint64>{s.ids[2]}));

  v->clearBrushes();
  EXPECT_EQ(v->brushCount(), 0);
  EXPECT_TRUE(idsOf(spy.last().at(0)).isEmpty());  // no brush: no selection, every run drawn
  for (bool kept : v->keptRuns()) EXPECT_TRUE(kept);
  // Another metric rebuilds the axes; the brushes go (they meant other values).
  v->setBrushValues(t.axisOf("training.lr"), 1e-3, 1e-2);
  t.tab()->setMetric("val/accuracy");
  EXPECT_EQ(v->brushCount(), 0);
}

TEST(ParallelCoords, TheBestRunGetsTheBestEndColourForEitherGoal) {
  ParallelStore s;
  ShownTab t(s.refs());
  pha::widgets::ParallelCoordsView* v = t.view();
  EXPECT_NE(v->bestColor(), v->worstColor());
  // val/loss, lower is better: r2 (2.0) best, r0 (3.0) worst.
  EXPECT_EQ(v->runColor(2), v->bestColor());
  EXPECT_EQ(v->runColor(0), v->worstColor());
  t.tab()->setMetric("val/accuracy");  // higher is better: r3 (0.70) best, r0 (0.50) worst
  EXPECT_EQ(v->runColor(3), v->bestColor());
  EXPECT_EQ(v->runColor(0), v->worstColor());
  EXPECT_NE(v->runColor(2), v->bestColor());
}

TEST(ParallelCoords, HoverNamesTheRunAndItsValues) {
  ParallelStore s;
  ShownTab t(s.refs());
  pha::widgets::ParallelCoordsView* v = t.view();
  const int lr = t.axisOf("training.lr");
  // A quarter of the way from the lr axis to the metric axis on r2's line (lr top, val/loss
  // bottom; halfway it crosses r0's, which goes from bottom to top).
  const QPointF a(v->axisX(lr), v->positionY(v->axis(lr).position(2)));
  const QPointF b(v->axisX(lr + 1), v->positionY(v->axis(lr + 1).position(2)));
  EXPECT_EQ(v->runAt(a + (b - a) * 0.25), 2);
  const QString text = v->hoverText(2);
  EXPECT_TRUE(text.contains("r2")) << text.toStdString();
  EXPECT_TRUE(text.contains("training.lr: 0.01")) << text.toStdString();
  EXPECT_TRUE(text.contains("val/loss: 2 (final, step 30)")) << text.toStdString();
  EXPECT_EQ(v->runAt(QPointF(v->axisX(0) + 3, 2)), -1);  // over no line
}

TEST(ParallelCoords, EmptyStatesSayWhatToDo) {
  ParallelCoordsTab tab;
  EXPECT_TRUE(tab.emptyMessage().contains("Compare two or more runs that differ in a setting")) << tab.emptyMessage().toStdString();
  const json same = {{"model", {{"d_model", 32}}}};
  tab.setRuns(std::make_shared<LoadedRuns>(LoadedRuns{memoryRun(1, same)}));
  EXPECT_TRUE(tab.emptyMessage().startsWith("One run")) << tab.emptyMessage().toStdString();
  tab.setRuns(std::make_shared<LoadedRuns>(LoadedRuns{memoryRun(1, same), memoryRun(2, same)}));
  EXPECT_TRUE(tab.emptyMessage().contains("same settings")) << tab.emptyMessage().toStdString();
  EXPECT_EQ(tab.view()->axisCount(), 0);
  // A run whose config did not parse is left out and named, not drawn as "(absent)" everywhere.
  LoadedRun broken = memoryRun(3, json());
  tab.setRuns(std::make_shared<LoadedRuns>(LoadedRuns{memoryRun(1, same), memoryRun(2, {{"model", {{"d_model", 64}}}}), broken}));
  EXPECT_TRUE(tab.emptyMessage().isEmpty());
  EXPECT_EQ(tab.view()->axisKeys(), (QStringList{"model.d_model"}));
  EXPECT_TRUE(tab.status().contains("m3 (config not JSON)")) << tab.status().toStdString();
}

TEST(ParallelCoords, ExportsPngSvgAndCsv) {
  ParallelStore s;
  ShownTab t(s.refs());
  QTemporaryDir out;
  QString error;
  t.view()->setBrushValues(t.axisOf("training.lr"), 1e-3, 1e-2);
  for (const char* name : {"p.png", "p.svg", "p.csv"}) {
    const QString path = out.path() + "/" + name;
    EXPECT_TRUE(t.tab()->exportTo(path, &error)) << error.toStdString();
    EXPECT_GT(QFileInfo(path).size(), 100) << name;
  }
  QFile csv(out.path() + "/p.csv");
  ASSERT_TRUE(csv.open(QIODevice::ReadOnly));
  const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
  ASSERT_EQ(lines.size(), 5);
  EXPECT_EQ(lines[0], "run,store,run_id,brushed,model.d_model,model.pattern,training.lr,val/loss");
  EXPECT_TRUE(lines[3].startsWith("r2,")) << lines[3].toStdString();
  EXPECT_TRUE(lines[3].endsWith(",1,64,\"[\"\"gss\"\",\"\"attn\"\"]\",0.01,2")) << lines[3].toStdString();
  EXPECT_FALSE(t.tab()->exportTo(out.path() + "/p.bmp", &error));
}

TEST(ParallelCoords, TabAsksNoMoreWidthThanTheCurvesTab) {
  // The Compare dock is as wide as its widest tab's minimum: the controls sit in two rows.
  ParallelStore s;
  ShownTab t(s.refs());
  const int parallel = t.tab()->minimumSizeHint().width(), curves = t.widget.curvesTab()->minimumSizeHint().width();
  RecordProperty("parallel_min_width", parallel);  // in --gtest_output=xml
  RecordProperty("curves_min_width", curves);
  EXPECT_LE(parallel, curves) << "Parallel " << parallel << " px, Curves " << curves << " px";
  EXPECT_LE(parallel, 500);
  // More axes than fit scroll inside the tab instead of widening it.
  EXPECT_GT(t.view()->minimumSizeHint().width(), 0);
  t.tab()->setMergeTogether(false);
  EXPECT_EQ(t.tab()->minimumSizeHint().width(), parallel);
}
