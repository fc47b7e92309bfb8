#include "mixer_panel.h"

#include <QSlider>
#include <gtest/gtest.h>

#include "mixer_heatmap.h"

using namespace pha::gui;

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

TEST(MixerPanel, NoFramesShowsAMessage) {
  MixerPanel p;
  p.setFrames({});
  EXPECT_EQ(p.frameCount(), 0);
  EXPECT_FALSE(p.heatmap()->message().isEmpty());
}
