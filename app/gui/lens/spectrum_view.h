// The Lens's Spectrum tab as data (no Qt): one GSS layer's kernel spectrum turned into what the
// tab draws: the channels x log-spaced-lag-bins map of max |K| (floored for log colours), its row
// and column labels, the histogram of half-lives in log2 bins (those beyond the horizon counted
// apart), where the training context stands on it, and the line under the map.
// LensSpectrumTab only draws this; unit tests check it on spectra made by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/lens.h"

namespace pha::gui {

struct SpectrumView {
  std::string empty_reason;           // non-empty: nothing to draw (no GSS layer), and why
  int rows = 0, cols = 0;             // channels x lag bins
  std::vector<float> values;          // rows x cols, row-major: each bin's largest |K|, at least `floor`
  float floor = 0;                    // log colours: zeros drawn at top * 1e-6
  std::vector<int64_t> bin_first;     // cols: each bin's first lag
  std::vector<int64_t> bin_last;      // cols: each bin's last lag
  std::vector<std::string> row_names; // every channel's number, thinned to about 16 labels
  std::vector<std::string> col_names; // the powers of ten each bin holds ("0", "10", "100"), else ""
  std::vector<std::pair<int, int>> half_life_bins;  // (k, channels with half-life in [2^k, 2^(k+1)))
  int beyond = 0;                     // channels whose half-life is beyond the horizon
  int max_bin = 0;                    // the histogram's x range [0, max_bin] (log2 lags)
  int max_count = 1;                  // its tallest bar (at least 1)
  double context_x = -1;              // log2 of the training context on that axis; < 0: none
  std::string summary;                // "step 600: 16 channels, lags 0-1023; 2 half-life(s) beyond the horizon"
};

// Log-spaced lag bins over [0, horizon): the first lag of each bin (bin 0 = lag 0).
std::vector<int64_t> lagBins(int64_t horizon, int maxBins);

// Layer `layer` (clamped to the spectrum's layers) of `s`, in at most `maxBins` lag bins.
SpectrumView spectrumView(const runtime::KernelSpectrum& s, int layer, int maxBins = 96);

}  // namespace pha::gui
