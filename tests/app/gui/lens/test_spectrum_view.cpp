// The Spectrum tab's data (gui/lens/spectrum_view.h) on kernel spectra made by hand: the lag
// bins, each bin's largest |K| (floored for log colours), the column labels, the half-life
// histogram with the channels beyond the horizon counted apart, and the training context's place.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gui/lens/spectrum_view.h"

using pha::gui::SpectrumView;

namespace {

// Layer 0: one channel; layer 1 (lags 16): channel 0 |K| 1 at lag 0, channel 1 0.5 at lag 9,
// channel 2 zero everywhere; half-lives 1.5, 9 and beyond the horizon.
pha::runtime::KernelSpectrum handMade() {
  pha::runtime::KernelSpectrum s;
  s.horizon = 16;
  s.train_len = 8;
  s.state = "step 5";
  pha::runtime::KernelSpectrum::Layer a;
  a.layer = 0;
  a.channels = 1;
  a.lags = 16;
  a.abs_k.assign(16, 0.25f);
  a.half_life = {4};
  pha::runtime::KernelSpectrum::Layer b;
  b.layer = 2;
  b.channels = 3;
  b.lags = 16;
  b.abs_k.assign(3 * 16, 0.0f);
  b.abs_k[0] = 1.0f;
  b.abs_k[16 + 9] = 0.5f;
  b.half_life = {1.5f, 9.0f, std::numeric_limits<float>::infinity()};
  s.layers = {a, b};
  return s;
}

}  // namespace

TEST(SpectrumView, LagBinsAreLogSpacedFromLagZeroWithinTheHorizon) {
  EXPECT_EQ(pha::gui::lagBins(1, 96), (std::vector<int64_t>{0}));
  EXPECT_EQ(pha::gui::lagBins(16, 96).size(), 16u) << "fewer lags than bins: one bin per lag";
  EXPECT_EQ(pha::gui::lagBins(16, 4), (std::vector<int64_t>{0, 1, 3, 6}));
  const auto big = pha::gui::lagBins(100000, 96);
  EXPECT_LE(big.size(), 96u);
  EXPECT_EQ(big[0], 0);
  EXPECT_EQ(big[1], 1);
  for (size_t i = 1; i < big.size(); ++i) EXPECT_GT(big[i], big[i - 1]);
  EXPECT_LT(big.back(), 100000);
}

TEST(SpectrumView, EachBinShowsItsLargestKernelValueAndTheHistogramCountsHalfLives) {
  const pha::runtime::KernelSpectrum s = handMade();
  const SpectrumView v = pha::gui::spectrumView(s, 1);
  ASSERT_TRUE(v.empty_reason.empty());
  ASSERT_EQ(v.rows, 3);
  ASSERT_EQ(v.cols, 16);
  EXPECT_FLOAT_EQ(v.floor, 1e-6f) << "a millionth of the largest |K|";
  EXPECT_FLOAT_EQ(v.values[0], 1.0f);
  EXPECT_FLOAT_EQ(v.values[16 + 9], 0.5f);
  EXPECT_FLOAT_EQ(v.values[2 * 16 + 4], v.floor) << "a zero is drawn at the floor";
  EXPECT_EQ(v.col_names[0], "0");
  EXPECT_EQ(v.col_names[1], "") << "beside the lag-0 column";
  EXPECT_EQ(v.col_names[10], "10");
  EXPECT_EQ(v.row_names, (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(v.half_life_bins, (std::vector<std::pair<int, int>>{{0, 1}, {3, 1}})) << "1.5 in [1, 2), 9 in [8, 16)";
  EXPECT_EQ(v.beyond, 1);
  EXPECT_EQ(v.max_bin, 4);
  EXPECT_EQ(v.max_count, 1);
  EXPECT_DOUBLE_EQ(v.context_x, 3.0) << "the training context 8 at log2 8";
  EXPECT_EQ(v.summary, "step 5: 3 channels, lags 0-15; 1 half-life(s) beyond the horizon");

  // Fewer bins than lags: each bin is the largest |K| over its lags.
  const SpectrumView coarse = pha::gui::spectrumView(s, 1, 4);
  ASSERT_EQ(coarse.bin_first, (std::vector<int64_t>{0, 1, 3, 6}));
  EXPECT_EQ(coarse.bin_last, (std::vector<int64_t>{0, 2, 5, 15}));
  EXPECT_FLOAT_EQ(coarse.values[4 + 3], 0.5f) << "lag 9 falls in the last bin, 6-15";
  EXPECT_FLOAT_EQ(coarse.values[4 + 2], coarse.floor);
  EXPECT_EQ(coarse.col_names, (std::vector<std::string>{"0", "", "", "10"}));
}

TEST(SpectrumView, AModelWithoutGssSaysWhyAndALayerIndexIsClamped) {
  pha::runtime::KernelSpectrum none;
  none.none_reason = "transformer has no GSS branch";
  EXPECT_EQ(pha::gui::spectrumView(none, 0).empty_reason, "transformer has no GSS branch");
  EXPECT_EQ(pha::gui::spectrumView(pha::runtime::KernelSpectrum{}, 0).empty_reason, "No GSS layer.");
  EXPECT_EQ(pha::gui::spectrumView(handMade(), 7).rows, 3) << "past the last layer: the last";
  EXPECT_EQ(pha::gui::spectrumView(handMade(), -1).rows, 1) << "no layer chosen yet: the first";
}
