// Compare stays readable at the window's real sizes with many runs (docs/gui-compare.md): the
// Curves legend leaves the plot when it has more than a few entries (one entry per run, the
// line style says the metric), final-value labels never overlap and stay inside the plot, the
// Mixer tab draws a heatmap only for runs with a mixer and lists the others once, in a grid as
// wide as the dock, and the Metrics headers keep the setting that tells runs apart.
#include <QHeaderView>
#include <QListWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include "gui/compare/compare_widget.h"
#include "gui/compare/curves_tab.h"
#include "gui/compare/metrics_tab.h"
#include "gui/compare/mixer_tab.h"
#include "store/run_writer.h"
#include "store/store.h"

using namespace pha::gui;

namespace {

// Nine runs as a 3 x 3 learning-rate grid writes them: "<family>/lr=<lr>", train/loss at every
// step, val/loss three times; the pha runs with mixer snapshots.
QList<RunRef> nineRuns(const QString& store) {
  auto s = pha::store::Store::open(store.toStdString());
  QList<RunRef> refs;
  int r = 0;
  for (const char* family : {"pha-tiny", "transformerpp-tiny", "sequential-tiny"})
    for (const char* lr : {"0.001", "0.003", "0.01"}) {
      pha::store::NewRun nr;
      nr.project = "q9";
      nr.name = std::string(family) + "/lr=" + lr;
      nr.group = nr.name;
      nr.variant = family;
      nr.n_params = 1'290'000;
      nr.config_json = "{}";
      const auto id = s.create_run(nr);
      pha::store::RunWriter w(s, id);
      for (int i = 1; i <= 60; ++i) w.metric("train/loss", i, i * 1024, i * 100, 3.0 + 0.01 * r + 2.0 / i);
      for (int i = 1; i <= 3; ++i) w.metric("val/loss", 20 * i, 20 * i * 1024, 2000 * i, 3.05 + 0.01 * r + 1.0 / i);
      if (std::string(family) == "pha-tiny") {
        for (const char* k : {"branch_rms/l10/gss", "branch_rms/l2/gss"}) w.metric(k, 60, 60 * 1024, 6000, 1.0);
      }
      const float nan = std::nanf("");
      for (int step = 20; step <= 60; step += 20)
        if (std::string(family) == "pha-tiny")
          w.mixer({step, 4, 3, {0.3f, 0.4f, 0.3f, 0.2f, 0.5f, 0.3f, 0.2f, 0.5f, 0.3f, 0.3f, 0.4f, 0.3f}});
        else  // single-branch models record snapshots without a weight, as the trainer writes them
          w.mixer({step, 4, 3, std::vector<float>(12, nan)});
      w.finish(pha::store::RunStatus::Finished);
      refs << RunRef{store, id};
      ++r;
    }
  return refs;
}

}  // namespace

TEST(CompareLayout, NineRunsCurvesLegendLeavesThePlotAndLabelsDoNotCollide) {
  QTemporaryDir dir;
  CompareWidget w;
  w.resize(1000, 420);  // the Compare dock at 1600 x 1000
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.setRuns(nineRuns(dir.filePath("runs.sqlite")));
  CurvesTab* c = w.curvesTab();
  c->setSelectedKeys({"train/loss", "val/loss"});
  ASSERT_EQ(c->curveCount(), 18);
  QCustomPlot* plot = c->plot();
  plot->replot();
  QTest::qWait(50);
  plot->replot();
  ASSERT_TRUE(plot->legend->visible());
  QStringList entries;
  for (int i = 0; i < plot->legend->itemCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i))) entries << item->plottable()->name();
  EXPECT_EQ(entries.size(), 9) << "one legend entry per run; the line style says the metric: "
                                          << entries.join(" | ").toStdString();
  const QRect axes = plot->axisRect()->rect(), legend = plot->legend->outerRect();
  EXPECT_FALSE(axes.intersects(legend)) << "the legend covers the curves: axes " << axes.y() << "+" << axes.height()
                                         << ", legend " << legend.y() << "+" << legend.height();
  EXPECT_GE(legend.top(), axes.bottom());
  EXPECT_GT(plot->legend->columnCount(), 1) << "entries side by side, not one tall column";
  std::vector<QRectF> boxes;
  for (int i = 0; i < plot->itemCount(); ++i) {
    auto* t = qobject_cast<QCPItemText*>(plot->item(i));
    if (!t || !t->visible() || t->text().isEmpty()) continue;
    boxes.emplace_back(QPointF(t->topLeft->pixelPosition()), QPointF(t->bottomRight->pixelPosition()));
  }
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    EXPECT_GE(boxes[i].top(), axes.top() - 1) << "label " << i << " above the plot";
    EXPECT_LE(boxes[i].bottom(), axes.bottom() + 1) << "label " << i << " under the x axis";
    for (std::size_t j = i + 1; j < boxes.size(); ++j)
      EXPECT_FALSE(boxes[i].adjusted(1, 1, -1, -1).intersects(boxes[j].adjusted(1, 1, -1, -1)))
          << "labels " << i << " and " << j << " overlap";
  }
  // With two runs the legend is small: back inside the plot's free corner.
  w.setRuns(nineRuns(dir.filePath("two.sqlite")).mid(0, 2));
  c->setSelectedKeys({"train/loss", "val/loss"});
  plot->replot();
  EXPECT_TRUE(plot->axisRect()->insetLayout()->elements(false).contains(plot->legend));
}

TEST(CompareLayout, TheCurvesMetricListIsInTheMetricsTablesOrder) {
  QTemporaryDir dir;
  CompareWidget w;
  w.setRuns(nineRuns(dir.filePath("runs.sqlite")));
  auto* list = w.curvesTab()->findChild<QListWidget*>();
  ASSERT_NE(list, nullptr);
  QStringList keys;
  for (int i = 0; i < list->count(); ++i) keys << list->item(i)->text();
  EXPECT_EQ(keys, (QStringList{"val/loss", "train/loss", "branch_rms/l2/gss", "branch_rms/l10/gss"}))
      << keys.join(", ").toStdString() << ": losses first, branch statistics last, l2 before l10";
}

TEST(CompareLayout, MixerTabDrawsOnlyRunsWithAMixerInAGridAndListsTheOthersOnce) {
  QTemporaryDir dir;
  CompareWidget w;
  w.resize(1000, 420);
  w.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&w));
  w.setRuns(nineRuns(dir.filePath("runs.sqlite")));
  MixerTab* m = w.mixerTab();
  w.tabs()->setCurrentWidget(m);
  QTest::qWait(20);
  EXPECT_EQ(m->heatmapCount(), 3) << "the three pha runs; no empty panels";
  EXPECT_EQ(m->gridColumns(), 3) << "as many columns as 260 px each fit in 1000 px";
  const std::string msg = m->message().toStdString();
  for (const char* name : {"transformerpp-tiny/lr=0.001", "sequential-tiny/lr=0.01"}) {
    const auto at = msg.find(name);
    EXPECT_NE(at, std::string::npos) << msg;
    EXPECT_EQ(msg.find(name, at + 1), std::string::npos) << name << " listed twice: " << msg;
  }
  EXPECT_NE(msg.find("No mixer"), std::string::npos) << msg;
  EXPECT_TRUE(m->heatmapTitle(0).startsWith("pha-tiny/lr=0.001")) << m->heatmapTitle(0).toStdString();
  EXPECT_EQ(m->shownStep(0), 60);
  for (int i = 0; i < w.tabs()->count(); ++i)  // no tab keeps the dock from narrowing
    EXPECT_LE(w.tabs()->widget(i)->minimumSizeHint().width(), 560) << w.tabs()->tabText(i).toStdString();

  w.resize(560, 420);  // a narrow dock: fewer columns, the rest scrolls
  QTest::qWait(50);
  EXPECT_EQ(m->gridColumns(), std::max(1, (m->width() - 24) / MixerTab::kPanelWidth)) << m->width() << " px";
  EXPECT_LT(m->gridColumns(), 3);
}

TEST(CompareLayout, MetricsHeadersKeepTheSettingThatTellsRunsApart) {
  QTemporaryDir dir;
  CompareWidget w;
  w.resize(1000, 420);
  w.setRuns(nineRuns(dir.filePath("runs.sqlite")));
  auto* table = w.metricsTab()->findChild<QTableWidget*>();
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->columnCount(), 9);
  for (int c = 0; c < 9; ++c) {
    const QString header = table->horizontalHeaderItem(c)->text();
    EXPECT_TRUE(header.section('\n', -1).startsWith("lr=")) << header.toStdString() << ": the setting on a line of its own";
    EXPECT_TRUE(table->horizontalHeaderItem(c)->toolTip().contains("/lr=")) << "the whole name on hover";
  }
  const QFontMetrics fm(table->horizontalHeader()->font());
  for (int c = 0; c < 9; ++c)
    EXPECT_GE(table->horizontalHeader()->sectionSize(c), fm.horizontalAdvance("lr=0.003"))
        << "a column is never narrower than its setting (the table scrolls sideways instead)";
}
