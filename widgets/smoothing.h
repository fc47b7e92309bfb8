// Curve smoothing and thinning for live plots (pure functions, tested on their own).
// Smoothing is TensorBoard's debiased exponential moving average: s_t = w*s_{t-1} + (1-w)*x_t,
// divided by (1 - w^t) so the start is not pulled towards zero. It runs on the full-resolution
// points *before* thinning, so what is drawn is the smoothed curve of every point, not of a
// subsample.
#pragma once

#include <cstddef>
#include <vector>

namespace pha::widgets {

// weight in [0, 1): 0 returns the input. NaN/Inf inputs are skipped (their output repeats the
// last smoothed value, or NaN before the first finite one).
std::vector<double> debiasedEma(const std::vector<double>& values, double weight);

struct Series {
  std::vector<double> x;
  std::vector<double> y;
};

// At most about maxPoints points: per bucket of consecutive points, the min and max (so spikes
// survive) in x order, and always the last point. Returns the input when already small enough.
Series thinMinMax(const Series& in, std::size_t maxPoints);

}  // namespace pha::widgets
