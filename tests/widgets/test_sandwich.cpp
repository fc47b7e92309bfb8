#include "widgets/sandwich.h"

#include <cmath>
#include <gtest/gtest.h>

using pha::widgets::readSandwich;

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

using pha::widgets::mixerDeviation;

TEST(MixerDeviation, FindsTheLargestDepartureFromUniformAndTheWidestLayer) {
  const float nan = NAN;
  std::vector<float> w = {0.34f, 0.33f, 0.33f,   // 0: nearly uniform
                          nan, nan, nan,         // 1: no mixer
                          0.45f, 0.24f, 0.31f,   // 2: GSS +0.117, spread 0.21
                          0.0f, 0.62f, 0.38f};   // 3: GSS removed: uniform is 1/2, attention +0.12
  auto d = mixerDeviation(4, 3, w);
  EXPECT_EQ(d.layer, 3);
  EXPECT_EQ(d.branch, 1);
  EXPECT_NEAR(d.signedAt, 0.12, 1e-6);
  EXPECT_NEAR(d.maxAbs, 0.12, 1e-6);
  EXPECT_EQ(d.spreadLayer, 3);
  EXPECT_NEAR(d.maxSpread, 0.24, 1e-6);
  EXPECT_EQ(d.summary, "largest departure from uniform: attention +0.120 (layer 3); widest layer: 3 (max - min weight 0.240)");
}

TEST(MixerDeviation, UniformMixingIsZeroAndNoMixerSaysSo) {
  const float third = 1.0f / 3.0f;
  auto d = mixerDeviation(2, 3, {third, third, third, third, third, third});
  EXPECT_NEAR(d.maxAbs, 0.0, 1e-7);
  EXPECT_NEAR(d.maxSpread, 0.0, 1e-7);
  EXPECT_EQ(d.layer, 0);
  const float nan = NAN;
  EXPECT_EQ(mixerDeviation(1, 3, {nan, nan, nan}).summary, "no layer mixes two or more branches");
  EXPECT_EQ(mixerDeviation(2, 3, {0.1f}).summary, "no mixer weights");
}

TEST(Sandwich, ABranchDominatesOnlyBeyondTheMargin) {
  // 0: GSS +0.06 (beyond 0.05); 1: attention +0.04 (inside); 2: +0.01; 3: GSS +0.2.
  std::vector<float> w = {0.38f, 0.32f, 0.30f,  //
                          0.30f, 0.34f, 0.36f,  //
                          0.34f, 0.33f, 0.33f,  //
                          0.50f, 0.30f, 0.20f};
  auto r = readSandwich(4, 3, w);
  EXPECT_EQ(r.gssLayers, (std::vector<int>{0, 3}));
  EXPECT_TRUE(r.attnLayers.empty());
  EXPECT_EQ(r.nearUniform, (std::vector<int>{1, 2}));
  EXPECT_FALSE(r.isSandwich) << "attention does not dominate in between: no sandwich claimed";
  EXPECT_EQ(r.summary, "GSS dominates layers 0, 3; layers 1-2 near uniform (within 0.05)");
  // Every layer inside the margin: no claim at all.
  auto u = readSandwich(2, 3, {0.34f, 0.33f, 0.33f, 0.33f, 0.34f, 0.33f});
  EXPECT_TRUE(u.gssLayers.empty());
  EXPECT_TRUE(u.attnLayers.empty());
  EXPECT_EQ(u.summary, "GSS and attention weights still near uniform in every layer (within 0.05 of each other)");
  // A wider margin is stated as given.
  EXPECT_EQ(readSandwich(1, 3, {0.45f, 0.30f, 0.25f}, 0.2).summary,
            "GSS and attention weights still near uniform in every layer (within 0.2 of each other)");
}

TEST(MixerDeviation, InsideTheMarginSaysSo) {
  auto d = mixerDeviation(1, 3, {0.35f, 0.33f, 0.32f});
  EXPECT_EQ(d.summary.rfind("all weights within 0.05 of uniform: largest departure from uniform: GSS +0.017", 0), 0u)
      << d.summary;
}
