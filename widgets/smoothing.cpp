#include "widgets/smoothing.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pha::widgets {

std::vector<double> debiasedEma(const std::vector<double>& values, double weight) {
  std::vector<double> out(values.size(), std::numeric_limits<double>::quiet_NaN());
  if (weight <= 0.0) return values;
  weight = std::min(weight, 0.999999);
  double acc = 0.0;
  double debias = 1.0;  // w^n over the finite points seen
  double last = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (std::isfinite(v)) {
      acc = weight * acc + (1.0 - weight) * v;
      debias *= weight;
      last = acc / (1.0 - debias);
    }
    out[i] = last;
  }
  return out;
}

Series thinMinMax(const Series& in, std::size_t maxPoints) {
  const std::size_t n = std::min(in.x.size(), in.y.size());
  if (n <= maxPoints || maxPoints < 4) return in;
  Series out;
  const std::size_t buckets = maxPoints / 2;
  out.x.reserve(buckets * 2 + 1);
  out.y.reserve(buckets * 2 + 1);
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t lo = b * n / buckets;
    const std::size_t hi = std::max(lo + 1, (b + 1) * n / buckets);
    std::size_t imin = lo, imax = lo;
    for (std::size_t i = lo; i < hi; ++i) {
      if (in.y[i] < in.y[imin]) imin = i;
      if (in.y[i] > in.y[imax]) imax = i;
    }
    const std::size_t first = std::min(imin, imax), second = std::max(imin, imax);
    out.x.push_back(in.x[first]);
    out.y.push_back(in.y[first]);
    if (second != first) {
      out.x.push_back(in.x[second]);
      out.y.push_back(in.y[second]);
    }
  }
  if (out.x.back() != in.x[n - 1]) {
    out.x.push_back(in.x[n - 1]);
    out.y.push_back(in.y[n - 1]);
  }
  return out;
}

}  // namespace pha::widgets
