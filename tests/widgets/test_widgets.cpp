#include <QApplication>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>

#include "widgets/mixer_heatmap.h"
#include "widgets/plot_panel.h"
#include "widgets/theme.h"

using namespace pha::widgets;

TEST(MixerHeatmap, HoldsTheLayersByBranchesMatrix) {
  MixerHeatmap h;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> w = {0.5f, 0.3f, 0.2f,   //
                          0.1f, 0.8f, 0.1f,   //
                          nan,  nan,  nan};
  h.setMatrix(3, 3, w);
  EXPECT_EQ(h.layers(), 3);
  EXPECT_EQ(h.branches(), 3);
  EXPECT_NEAR(h.cellValue(0, 0), 0.5, 1e-6);
  EXPECT_NEAR(h.cellValue(1, 1), 0.8, 1e-6);
  EXPECT_NEAR(h.cellValue(0, 2), 0.2, 1e-6);
  EXPECT_TRUE(std::isnan(h.cellValue(2, 0)));
  EXPECT_TRUE(h.message().isEmpty());
}

TEST(MixerHeatmap, WrongSizeIsReportedNotDrawn) {
  MixerHeatmap h;
  h.setMatrix(2, 3, {0.1f, 0.2f});
  EXPECT_EQ(h.layers(), 0);
  EXPECT_TRUE(h.message().contains("wrong size"));
}

TEST(PlotPanel, EmptyMessageShowsAndHides) {
  PlotPanel p("x", "y");
  p.show();
  p.setEmptyMessage("nothing yet");
  EXPECT_EQ(p.emptyMessage(), "nothing yet");
  p.setEmptyMessage("");
  EXPECT_TRUE(p.emptyMessage().isEmpty());
}

TEST(Theme, DarkPaletteComesFromTheResource) {
  QPalette dark = loadPalette(Theme::Dark);
  QPalette light = loadPalette(Theme::Light);
  EXPECT_EQ(dark.color(QPalette::Window), QColor("#202124"));
  EXPECT_EQ(light.color(QPalette::Window), QColor("#f5f5f5"));
  EXPECT_LT(dark.color(QPalette::Window).lightness(), dark.color(QPalette::WindowText).lightness());
}
