#include "curve_plot.h"

#include <QSlider>
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include "smoothing.h"

using namespace pha::widgets;

TEST(CurvePlot, HoldsAppendedPointsAndDrawsTheSmoothedCurve) {
  CurvePlot p("loss");
  p.resize(600, 400);
  std::vector<double> values;
  for (int i = 0; i < 50; ++i) {
    values.push_back(5.0 - 0.05 * i + (i % 2 ? 0.3 : -0.3));
    p.appendPoint("train/loss", i + 1, (i + 1) * 1024.0, i * 0.5, values.back());
  }
  p.setSmoothing(0.8);
  EXPECT_EQ(p.seriesCount(), 1);
  EXPECT_EQ(p.pointCount("train/loss"), 50);
  auto drawn = p.drawnSmoothed("train/loss");
  auto expected = debiasedEma(values, 0.8);
  ASSERT_EQ(drawn.size(), expected.size());
  for (size_t i = 0; i < drawn.size(); ++i) EXPECT_NEAR(drawn[i], expected[i], 1e-9);
}

TEST(CurvePlot, SliderSetsTheSmoothingAndXAxisSwitchesUnits) {
  CurvePlot p("loss");
  p.appendPoint("a", 1, 100, 0.1, 1.0);
  p.appendPoint("a", 2, 200, 0.2, 2.0);
  p.findChild<QSlider*>("smoothingSlider")->setValue(0);
  EXPECT_DOUBLE_EQ(p.smoothing(), 0.0);
  EXPECT_EQ(p.drawnSmoothed("a"), (std::vector<double>{1.0, 2.0}));
  p.setXAxis(CurveX::Tokens);
  auto* g = p.plot()->graph(1);
  EXPECT_DOUBLE_EQ(g->data()->at(1)->key, 200.0);
  p.setXAxis(CurveX::WallTime);
  EXPECT_DOUBLE_EQ(p.plot()->graph(1)->data()->at(1)->key, 0.2);
}

TEST(CurvePlot, RemoveAndClearSeries) {
  CurvePlot p("loss");
  p.appendPoint("a", 1, 1, 1, 1);
  p.appendPoint("b", 1, 1, 1, 1);
  p.removeSeries("a");
  EXPECT_EQ(p.seriesCount(), 1);
  EXPECT_EQ(p.plot()->graphCount(), 2);
  p.clearSeries();
  EXPECT_EQ(p.seriesCount(), 0);
  EXPECT_EQ(p.plot()->graphCount(), 0);
}

TEST(CurvePlot, OnePointGetsASmallSpanAroundIt) {
  CurvePlot p("loss");
  p.appendPoint("train/loss", 1, 1024, 0.5, 10.53);
  p.replotLater();
  const QCPRange x = p.plot()->xAxis->range(), y = p.plot()->yAxis->range();
  EXPECT_TRUE(x.contains(1.0));
  EXPECT_LE(x.size(), 2.5);  // not QCustomPlot's arbitrary span of ~125 steps
  EXPECT_GT(x.size(), 0.5);
  EXPECT_TRUE(y.contains(10.53));
  EXPECT_GT(y.size(), 0.1);  // the two tick labels differ
  EXPECT_LT(y.size(), 2.0);
}
