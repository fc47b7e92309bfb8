// The Efficiency dock's plots: a series keeps its colour whatever order and subset of series a
// redraw shows (live points while profiling, then the stored profile), and the legend stands
// outside the axes (never over a curve) and is hidden while there is nothing to list.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include "widgets/efficiency_panel.h"
#include "widgets/plot_panel.h"
#include "widgets/series_colors.h"

using namespace pha::widgets;

namespace {

pha::store::PerfRow row(int T, double tps, std::int64_t bytes) {
  pha::store::PerfRow r;
  r.seq_len = T;
  r.batch = 4096 / T;
  r.tokens_per_s = tps;
  r.peak_bytes = bytes;
  r.phase = "train";
  r.method = "median of 2 steps";
  return r;
}

EfficiencySeries series(const char* name, double scale) {
  return {name, {row(128, 900 * scale, 400'000'000), row(256, 800 * scale, 420'000'000), row(512, 600 * scale, 450'000'000)}};
}

}  // namespace

TEST(EfficiencyPanel, ASeriesKeepsItsColourFromTheLiveToTheFinalView) {
  EfficiencyPanel p;
  // Live: the profile measures transformer-tiny first, pha-tiny second.
  p.setSeries({series("profile: transformer-tiny", 1.2)});
  const QColor transformer = p.colorOf("profile: transformer-tiny");
  p.setSeries({series("profile: transformer-tiny", 1.2), series("profile: pha-tiny", 1.0)});
  const QColor pha = p.colorOf("profile: pha-tiny");
  EXPECT_NE(pha, transformer);
  // Final: read back from the store in another order, with a third model.
  p.setSeries({series("profile: pha-tiny", 1.0), series("profile: sequential-tiny", 0.8), series("profile: transformer-tiny", 1.2)});
  EXPECT_EQ(p.colorOf("profile: transformer-tiny"), transformer);
  EXPECT_EQ(p.colorOf("profile: pha-tiny"), pha);
  EXPECT_NE(p.colorOf("profile: sequential-tiny"), pha);
  EXPECT_NE(p.colorOf("profile: sequential-tiny"), transformer);
}

TEST(EfficiencyPanel, TheLegendStandsOutsideTheCurvesAndIsHiddenWhenEmpty) {
  EfficiencyPanel p;
  p.resize(1000, 600);
  p.show();
  p.setSeries({});
  for (PlotPanel* panel : {p.throughputPlot(), p.memoryPlot()})
    EXPECT_FALSE(panel->plot()->legend->visible()) << "no empty legend box";
  // Nothing measured: the message, no empty frames with default ticks run together.
  EXPECT_FALSE(p.throughputPlot()->plot()->isVisible());
  EXPECT_FALSE(p.memoryPlot()->isVisible());
  EXPECT_FALSE(p.throughputPlot()->emptyMessage().isEmpty());
  p.setSeries({series("profile: pha-tiny", 1.0), series("profile: transformer-tiny", 1.2), series("profile: sequential-tiny", 0.8)});
  for (PlotPanel* panel : {p.throughputPlot(), p.memoryPlot()}) {
    QCustomPlot* plot = panel->plot();
    plot->replot(QCustomPlot::rpImmediateRefresh);
    ASSERT_TRUE(plot->legend->visible());
    EXPECT_EQ(legendEntries(plot), 3);
    const QRect axes = plot->axisRect()->rect(), legend = plot->legend->outerRect();
    EXPECT_FALSE(axes.intersects(legend)) << "axes " << axes.y() << "+" << axes.height() << ", legend " << legend.y() << "+"
                                          << legend.height();
    EXPECT_GE(legend.top(), axes.bottom()) << "under the plot";
    EXPECT_TRUE(plot->isVisible());
  }
}

TEST(StableColors, AKeyHoldsItsColourAndNewKeysTakeFreeOnes) {
  StableColors a, b;
  const QColor first = a.color("pha-tiny");
  a.color("transformer-tiny");
  EXPECT_EQ(a.color("pha-tiny"), first);
  EXPECT_EQ(b.color("pha-tiny"), first) << "the same name prefers the same colour in a fresh palette";
  StableColors c;
  QSet<int> used;
  for (int i = 0; i < 10; ++i) used.insert(c.index(QString("run %1").arg(i)));
  EXPECT_EQ(used.size(), 10) << "distinct while the palette has free colours";
}
