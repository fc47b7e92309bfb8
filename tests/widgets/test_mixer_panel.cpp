#include "widgets/mixer_panel.h"

#include <QFile>
#include <QSlider>
#include <QTemporaryDir>
#include <cmath>
#include <gtest/gtest.h>

#include "widgets/mixer_heatmap.h"
#include <qcustomplot.h>

using namespace pha::widgets;

namespace {
MixerFrame frame(std::int64_t step, float g0) {
  return MixerFrame{step, 2, 3, {g0, 0.3f, 1.0f - g0 - 0.3f, 0.2f, 0.5f, 0.3f}};
}
}  // namespace

TEST(MixerPanel, FollowsLiveFramesAndScrubsBack) {
  MixerPanel p;
  p.appendFrame(frame(10, 0.33f));
  p.appendFrame(frame(20, 0.40f));
  EXPECT_EQ(p.currentFrame(), 1);
  EXPECT_NEAR(p.heatmap()->cellValue(0, 0), 0.40, 1e-6);
  p.findChild<QSlider*>("mixerStepSlider")->setValue(0);  // the user scrubs back
  EXPECT_NEAR(p.heatmap()->cellValue(0, 0), 0.33, 1e-6);
  p.appendFrame(frame(30, 0.5f));  // does not yank the view while scrubbed back
  EXPECT_EQ(p.currentFrame(), 0);
  EXPECT_EQ(p.frameCount(), 3);
  p.showFrame(2);
  EXPECT_NEAR(p.heatmap()->cellValue(0, 0), 0.5, 1e-6);
  EXPECT_TRUE(p.readout().contains("GSS dominates layer 0"));
}

TEST(MixerHeatmap, PrintsEachWeightInItsCell) {
  MixerHeatmap h;
  const float nan = NAN;
  h.setMatrix(2, 3, {0.414f, 0.3f, 0.286f, nan, nan, nan});
  EXPECT_EQ(h.cellText(0, 0), "0.41");
  EXPECT_EQ(h.cellText(0, 2), "0.29");
  EXPECT_EQ(h.cellText(1, 1), "-");
  h.setMatrix(2, 3, {0.2f, 0.5f, 0.3f, 0.6f, 0.2f, 0.2f});  // live update: same cells, new numbers
  EXPECT_EQ(h.cellText(0, 1), "0.50");
  EXPECT_EQ(h.cellText(1, 0), "0.60");
  // Too many cells to print: colours only.
  const int layers = MixerHeatmap::kMaxLabelledCells / 3 + 1;
  h.setMatrix(layers, 3, std::vector<float>(static_cast<size_t>(layers) * 3, 1.0f / 3));
  EXPECT_EQ(h.cellText(0, 0), "");
  h.clear("none");
  EXPECT_EQ(h.cellText(0, 0), "");
}

// A model without any mixer (every row NaN: sequential, transformer) says so instead of drawing
// a grid of grey cells.
TEST(MixerHeatmap, AModelWithoutAMixerSaysSo) {
  MixerHeatmap h;
  const float nan = NAN;
  h.setMatrix(2, 3, {nan, nan, nan, nan, nan, nan});
  EXPECT_EQ(h.layers(), 0);
  EXPECT_TRUE(h.message().contains("No layer of this model has a mixer")) << h.message().toStdString();
  h.setMatrix(2, 3, {0.4f, 0.3f, 0.3f, nan, nan, nan});  // a pattern with one mixed layer: drawn
  EXPECT_EQ(h.layers(), 2);
  EXPECT_EQ(h.cellText(1, 0), "-");
}

TEST(MixerPanel, ReadoutSaysHowFarTheWeightsMovedFromUniform) {
  MixerPanel p;
  p.appendFrame(MixerFrame{5, 2, 3, {0.45f, 0.25f, 0.30f, 0.34f, 0.33f, 0.33f}});
  EXPECT_TRUE(p.readout().contains("largest departure from uniform: GSS +0.117 (layer 0)")) << p.readout().toStdString();
  EXPECT_TRUE(p.readout().contains("max - min weight 0.200")) << p.readout().toStdString();
}

TEST(MixerPanel, NoFramesShowsAMessage) {
  MixerPanel p;
  p.setFrames({});
  EXPECT_EQ(p.frameCount(), 0);
  EXPECT_FALSE(p.heatmap()->message().isEmpty());
}

#include "widgets/efficiency_panel.h"
#include "widgets/plot_panel.h"

TEST(EfficiencyPanel, OneCurvePerVariantAndARowPerMeasurement) {
  EfficiencyPanel p;
  auto row = [](int T, double tps, std::int64_t bytes, const char* phase) {
    pha::store::PerfRow r;
    r.seq_len = T;
    r.batch = 4096 / T;
    r.tokens_per_s = tps;
    r.peak_bytes = bytes;
    r.phase = phase;
    r.method = "peak RSS of a fresh process";
    return r;
  };
  p.setSeries({{"pha-tiny", {row(512, 3000, 900'000'000, "train"), row(1024, 2100, 1'100'000'000, "train"),
                             row(512, 8000, 400'000'000, "forward")}},
               {"transformer-tiny", {row(512, 4300, 700'000'000, "train")}}});
  EXPECT_EQ(p.curveCount(), 2);  // train phase: both variants
  EXPECT_EQ(p.tableRows(), 3);
  p.setSeries({});
  EXPECT_EQ(p.curveCount(), 0);
  EXPECT_FALSE(p.throughputPlot()->emptyMessage().isEmpty());
}

// The issue's case: at step 20 every cell read 0.33 / 0.34 and the readout said "GSS dominates
// layers 0, 2; attention dominates layers 1, 3".
TEST(MixerPanel, WeightsWithinTheMarginAreNearUniform) {
  MixerPanel p;
  p.appendFrame(MixerFrame{20, 4, 3, {0.34f, 0.33f, 0.33f, 0.33f, 0.34f, 0.33f,  //
                                      0.34f, 0.33f, 0.33f, 0.33f, 0.34f, 0.33f}});
  EXPECT_FALSE(p.readout().contains("dominates")) << p.readout().toStdString();
  EXPECT_TRUE(p.readout().contains("near uniform in every layer (within 0.05")) << p.readout().toStdString();
  EXPECT_TRUE(p.readout().contains("all weights within 0.05 of uniform")) << p.readout().toStdString();
  EXPECT_TRUE(p.readoutToolTip().contains("more than 0.05 above")) << p.readoutToolTip().toStdString();
}

TEST(MixerHeatmap, CsvHasOneRowPerCell) {
  MixerHeatmap h;
  const float nan = NAN;
  h.setMatrix(2, 3, {0.414f, 0.3f, 0.286f, nan, nan, nan});
  h.setStep(20);
  QTemporaryDir dir;
  const QString path = dir.filePath("mixer.csv");
  QString error;
  ASSERT_TRUE(h.writeCsv(path, &error)) << error.toStdString();
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QStringList rows = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
  ASSERT_EQ(rows.size(), 1 + 6);
  EXPECT_EQ(rows[0], "layer,branch,step,weight");
  EXPECT_TRUE(rows[1].startsWith("0,GSS,20,0.41")) << rows[1].toStdString();
  EXPECT_EQ(rows[6], "1,FFN,20,nan");
  EXPECT_EQ(h.plot()->legend->itemCount(), 0) << "the colour map has a colour bar, no legend entry";
  h.clear("none");
  EXPECT_FALSE(h.writeCsv(path, &error));
}

TEST(MixerPanel, CsvHoldsEverySnapshot) {
  MixerPanel p;
  p.appendFrame(frame(10, 0.33f));
  p.appendFrame(frame(20, 0.40f));
  QTemporaryDir dir;
  const QString path = dir.filePath("mixer.csv");
  QString error;
  ASSERT_TRUE(p.writeCsv(path, &error)) << error.toStdString();
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QStringList rows = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
  ASSERT_EQ(rows.size(), 1 + 2 * 6);
  EXPECT_EQ(rows[1], "0,GSS,10,0.33");
  EXPECT_EQ(rows[7], "0,GSS,20,0.4");
  EXPECT_EQ(p.currentStep(), 20);
}
