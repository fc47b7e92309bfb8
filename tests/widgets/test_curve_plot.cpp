#include "widgets/curve_plot.h"

#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include "widgets/smoothing.h"

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
  EXPECT_EQ(p.plot()->graphCount(), 3);  // faint raw, bold, final-point dot
  EXPECT_EQ(p.seriesNames(), QStringList{"b"});
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

// The case: validation every 50 steps, smoothing 0.6. The bold val/loss line used to
// be smoothed too and end at 2.157 while the stored final value is 2.091.
TEST(CurvePlot, SparseSeriesAreDrawnRawAndEndAtTheirFinalValue) {
  CurvePlot p("loss");
  p.resize(600, 400);
  p.setSeriesKind("val/loss", SeriesKind::Sparse);
  for (int i = 1; i <= 150; ++i) p.appendPoint("train/loss", i, i * 1024.0, i * 0.5, 4.0 - 0.01 * i);
  const std::vector<double> val{2.5, 2.2, 2.091};
  for (int i = 0; i < 3; ++i) p.appendPoint("val/loss", 50.0 * (i + 1), 51200.0 * (i + 1), 25.0 * (i + 1), val[i]);
  p.setSmoothing(0.6);
  EXPECT_EQ(p.drawnSmoothed("val/loss"), val);
  EXPECT_EQ(p.finalLabel("val/loss"), "2.091");
  // Dense series are still smoothed; their final mark is the last raw value.
  EXPECT_NE(p.drawnSmoothed("train/loss").back(), 4.0 - 1.5);
  EXPECT_EQ(p.finalLabel("train/loss"), "2.5");
}

// A cancelled run's one evaluation: a line through one point draws nothing, a marker does.
TEST(CurvePlot, ASingleSparsePointIsDrawn) {
  CurvePlot p("loss");
  p.resize(600, 400);
  p.show();
  p.setSeriesKind("val/loss", SeriesKind::Sparse);
  for (int i = 1; i <= 20; ++i) p.appendPoint("train/loss", i, i, i, 3.0 - 0.02 * i);
  const QColor val(255, 127, 14);
  p.appendPoint("val/loss", 10, 10, 10, 2.9, val);
  p.setSmoothing(0.0);  // no faint raw curve of another colour near the point
  p.replotLater();
  p.plot()->replot();
  const QImage image = p.plot()->toPixmap(p.plot()->width(), p.plot()->height()).toImage();
  // The marker is drawn around (10, 2.9) ...
  const int cx = static_cast<int>(p.plot()->xAxis->coordToPixel(10));
  const int cy = static_cast<int>(p.plot()->yAxis->coordToPixel(2.9));
  int orange = 0;
  for (int dx = -5; dx <= 5; ++dx)
    for (int dy = -5; dy <= 5; ++dy) {
      const QColor c = image.pixelColor(cx + dx, cy + dy);
      if (std::abs(c.red() - val.red()) < 40 && std::abs(c.green() - val.green()) < 40 && c.blue() < 90) ++orange;
    }
  EXPECT_GE(orange, 6) << "no val/loss marker near its point";
}

TEST(CurvePlot, SliderShowsItsValue) {
  CurvePlot p("loss");
  auto* label = p.findChild<QLabel*>("smoothingValue");
  ASSERT_NE(label, nullptr);
  EXPECT_EQ(label->text(), "0.60");
  p.findChild<QSlider*>("smoothingSlider")->setValue(35);
  EXPECT_EQ(label->text(), "0.35");
  p.setSmoothing(0.0);
  EXPECT_EQ(label->text(), "0.00");
}

TEST(CurvePlot, HoverReadoutNamesEverySeriesUnderTheCursor) {
  CurvePlot p("loss");
  p.resize(700, 400);
  p.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&p));
  p.setSeriesKind("val/loss", SeriesKind::Sparse);
  std::vector<double> train;
  for (int i = 1; i <= 40; ++i) {
    train.push_back(3.0 - 0.02 * i + (i % 2 ? 0.1 : -0.1));
    p.appendPoint("train/loss", i, i * 2048.0, i * 0.25, train.back());
  }
  p.appendPoint("val/loss", 20, 20 * 2048.0, 5.0, 2.5);
  p.appendPoint("val/loss", 40, 40 * 2048.0, 10.0, 2.25);
  p.setSmoothing(0.5);
  p.plot()->replot();
  const QPoint at(static_cast<int>(p.plot()->xAxis->coordToPixel(20)), p.plot()->axisRect()->center().y());
  QTest::mouseMove(p.plot(), at);
  const QString text = p.hoverText();
  EXPECT_TRUE(text.startsWith("step 20 · 40,960 tokens · 5.0 s")) << text.toStdString();
  const double smoothed = debiasedEma(train, 0.5)[19];
  EXPECT_TRUE(text.contains(QString("train/loss: raw %1, smoothed %2").arg(train[19], 0, 'f', 4).arg(smoothed, 0, 'f', 4)))
      << text.toStdString();
  EXPECT_TRUE(text.contains("val/loss: raw 2.5000 (evaluation, not smoothed)")) << text.toStdString();
  // Leaving the plot clears it.
  QEvent leave(QEvent::Leave);
  QApplication::sendEvent(p.plot(), &leave);
  EXPECT_TRUE(p.hoverText().isEmpty());
}

TEST(CurvePlot, CsvColumnsAreNamedBySeriesAndKind) {
  CurvePlot p("loss");
  p.setSeriesKind("val/loss", SeriesKind::Sparse);
  std::vector<double> train;
  for (int i = 1; i <= 4; ++i) {
    train.push_back(1.0 * i);
    p.appendPoint("train/loss", i, i * 100.0, i * 0.5, train.back());
  }
  p.appendPoint("val/loss", 2, 200, 1.1, 0.75);
  p.setSmoothing(0.5);
  QTemporaryDir dir;
  const QString path = dir.filePath("curves.csv");
  QString error;
  ASSERT_TRUE(p.writeCsv(path, &error)) << error.toStdString();
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QStringList rows = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
  ASSERT_EQ(rows.size(), 5);
  EXPECT_EQ(rows[0], "step,tokens,wall_s,train/loss raw,train/loss smoothed (w=0.50),val/loss raw");
  const auto ema = debiasedEma(train, 0.5);
  EXPECT_EQ(rows[1], "1,100,0.5,1,1,");  // the debiased EMA starts at the first value
  EXPECT_TRUE(rows[2].startsWith("2,200,1,2,")) << rows[2].toStdString();
  EXPECT_TRUE(rows[2].endsWith(",0.75")) << rows[2].toStdString();
  EXPECT_NEAR(rows[4].section(',', 4, 4).toDouble(), ema[3], 1e-12);
}

// Two series ending at the same step with close values near the bottom of the plot (train and
// validation perplexity): their final-value labels do not overlap and both stay inside the plot.
TEST(CurvePlot, CloseFinalLabelsStackInsideThePlot) {
  CurvePlot p("perplexity");
  p.resize(500, 180);
  p.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&p));
  p.setSeriesKind("val/ppl", SeriesKind::Sparse);
  for (int i = 1; i <= 40; ++i) p.appendPoint("train/ppl", i, i * 2048.0, i * 0.25, 12.66 + 440.0 / i - 11.0);
  p.appendPoint("val/ppl", 20, 20 * 2048.0, 5.0, 30.0);
  p.appendPoint("val/ppl", 40, 40 * 2048.0, 10.0, 14.1);
  p.setSmoothing(0.6);  // rebuilds the curves and places the labels
  p.plot()->replot();
  struct Box {
    double top, bottom;
  };
  std::vector<Box> boxes;
  for (int i = 0; i < p.plot()->itemCount(); ++i) {
    auto* t = qobject_cast<QCPItemText*>(p.plot()->item(i));
    if (!t || !t->visible() || t->text().isEmpty()) continue;
    // The text itself: the item's box less its padding (the lift is bottom padding).
    boxes.push_back({t->topLeft->pixelPosition().y() + t->padding().top(),
                     t->bottomRight->pixelPosition().y() - t->padding().bottom()});
  }
  ASSERT_EQ(boxes.size(), 2u) << p.plot()->itemCount() << " items; labels " << p.finalLabel("train/ppl").toStdString()
                              << " " << p.finalLabel("val/ppl").toStdString();
  const QRect inside = p.plot()->axisRect()->rect();
  for (const Box& b : boxes) {
    EXPECT_GE(b.top, inside.top());
    EXPECT_LE(b.bottom, inside.bottom()) << "a label falls under the x axis";
  }
  EXPECT_TRUE(boxes[0].bottom <= boxes[1].top || boxes[1].bottom <= boxes[0].top)
      << boxes[0].top << "-" << boxes[0].bottom << " overlaps " << boxes[1].top << "-" << boxes[1].bottom;
}

// With nine runs compared, the legend (top right) covered half of the final-value labels: it
// now keeps to the left, in the corner the curves leave free, and covers no label.
TEST(CurvePlot, TheLegendCoversNoFinalValueLabel) {
  CurvePlot p("loss");
  p.resize(900, 420);
  p.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&p));
  for (int r = 0; r < 9; ++r)
    for (int i = 1; i <= 60; ++i) p.appendPoint(QString("run-%1").arg(r), i, i, i, 2.0 + 0.05 * r + 3.0 / i);
  p.setSmoothing(0.6);
  p.plot()->replot();
  const QRect legend = p.plot()->legend->outerRect();
  ASSERT_TRUE(p.plot()->legend->visible());
  int labels = 0;
  for (int i = 0; i < p.plot()->itemCount(); ++i) {
    auto* t = qobject_cast<QCPItemText*>(p.plot()->item(i));
    if (!t || !t->visible() || t->text().isEmpty()) continue;
    ++labels;
    const QRectF box(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition());
    EXPECT_FALSE(box.intersects(legend)) << "label " << t->text().toStdString() << " under the legend";
  }
  EXPECT_EQ(labels, 9);
  EXPECT_LT(legend.center().x(), p.plot()->axisRect()->rect().center().x()) << "the legend is on the left";
}
