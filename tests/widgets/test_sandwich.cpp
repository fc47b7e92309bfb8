#include "sandwich.h"

#include <cmath>
#include <gtest/gtest.h>

using pha::gui::readSandwich;

TEST(Sandwich, GssAtBothEndsAttentionInTheMiddleIsASandwich) {
  std::vector<float> w = {0.5f, 0.2f, 0.3f,   // 0: GSS
                          0.2f, 0.5f, 0.3f,   // 1: attention
                          0.25f, 0.45f, 0.3f, // 2: attention
                          0.45f, 0.25f, 0.3f};// 3: GSS
  auto r = readSandwich(4, 3, w);
  EXPECT_EQ(r.gssLayers, (std::vector<int>{0, 3}));
  EXPECT_EQ(r.attnLayers, (std::vector<int>{1, 2}));
  EXPECT_TRUE(r.isSandwich);
  EXPECT_EQ(r.summary, "GSS dominates layers 0, 3; attention dominates layers 1-2 - a GSS/attention sandwich");
}

TEST(Sandwich, AttentionAtTheEndsIsNotASandwich) {
  std::vector<float> w = {0.2f, 0.5f, 0.3f, 0.5f, 0.2f, 0.3f, 0.2f, 0.5f, 0.3f};
  auto r = readSandwich(3, 3, w);
  EXPECT_FALSE(r.isSandwich);
  EXPECT_EQ(r.gssLayers, (std::vector<int>{1}));
}

TEST(Sandwich, LayersWithoutAMixerOrARemovedBranchAreSetAside) {
  const float nan = NAN;
  std::vector<float> w = {nan, nan, nan, 0.0f, 0.6f, 0.4f};
  auto r = readSandwich(2, 3, w);
  EXPECT_EQ(r.noMixer, (std::vector<int>{0, 1}));
  EXPECT_EQ(r.summary, "no layer mixes GSS and attention");
}

TEST(Sandwich, WrongSizeSaysSo) { EXPECT_EQ(readSandwich(2, 3, {0.1f}).summary, "no mixer weights"); }
