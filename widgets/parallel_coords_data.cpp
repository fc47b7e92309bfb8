#include "widgets/parallel_coords_data.h"

#include <algorithm>
#include <QObject>
#include <array>
#include <cmath>
#include <limits>
#include <set>

namespace pha::widgets {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Up to this many distinct values each gets its tick (a grid's settings read exactly).
constexpr std::size_t kMaxValueTicks = 7;

QString numberText(double v) { return QString::number(v, 'g', 4); }

// Round numbers from low to high: the widest step of 1, 0.5, 0.25 or 0.2 times a power of ten
// that puts at least four ticks in the range (2.66 .. 3.46: 2.8, 3.0, 3.2, 3.4).
std::vector<double> niceTicks(double low, double high) {
  const double span = high - low;
  if (!(span > 0)) return {low};
  const double top = std::pow(10.0, std::ceil(std::log10(span)));
  std::vector<double> out;
  for (double scale = 1.0; scale > 1e-3; scale /= 10.0)
    for (double m : {1.0, 0.5, 0.25, 0.2}) {
      const double step = top * scale * m;
      out.clear();
      for (double k = std::ceil(low / step - 1e-9); k * step <= high + step * 1e-9; k += 1.0)
        out.push_back(std::abs(k) < 0.5 ? 0.0 : k * step);
      if (out.size() >= 4) return out;
    }
  return out;
}

}  // namespace

double ParallelAxis::positionOf(double value) const {
  if (!std::isfinite(value)) return kNaN;
  if (scale == AxisScale::Categorical) return categories.size() < 2 ? 0.5 : value / double(categories.size() - 1);
  if (!(high > low)) return 0.5;
  if (scale == AxisScale::Log) {
    if (value <= 0) return kNaN;
    return (std::log10(value) - std::log10(low)) / (std::log10(high) - std::log10(low));
  }
  return (value - low) / (high - low);
}

double ParallelAxis::valueAt(double position) const {
  if (scale == AxisScale::Categorical) return position * double(std::max<qsizetype>(1, categories.size() - 1));
  if (!(high > low)) return low;
  if (scale == AxisScale::Log) return std::pow(10.0, std::log10(low) + position * (std::log10(high) - std::log10(low)));
  return low + position * (high - low);
}

std::vector<std::pair<double, QString>> ParallelAxis::ticks() const {
  std::vector<std::pair<double, QString>> out;
  if (scale == AxisScale::Categorical) {
    for (int i = 0; i < categories.size(); ++i) out.emplace_back(positionOf(i), categories[i]);
    return out;
  }
  std::set<double> distinct;
  for (double v : values)
    if (std::isfinite(v)) distinct.insert(v);
  if (distinct.size() <= kMaxValueTicks) {
    for (double v : distinct) out.emplace_back(positionOf(v), numberText(v));
    return out;
  }
  std::vector<double> at;
  if (scale == AxisScale::Log) {
    for (double e = std::ceil(std::log10(low) - 1e-9); e <= std::log10(high) + 1e-9; e += 1.0) at.push_back(std::pow(10.0, e));
    if (at.size() < 2) at = {low, high};  // less than two decades inside: label the ends
  } else {
    at = niceTicks(low, high);
  }
  for (double v : at) out.emplace_back(positionOf(v), numberText(v));
  return out;
}

QString ParallelAxis::scaleName() const {
  switch (scale) {
    case AxisScale::Linear: return QObject::tr("linear");
    case AxisScale::Log: return QObject::tr("log");
    case AxisScale::Categorical: return QObject::tr("categorical");
  }
  return {};
}

AxisScale numericScale(const std::vector<double>& values) {
  double lo = 0, hi = 0;
  bool any = false;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    if (v <= 0) return AxisScale::Linear;
    lo = any ? std::min(lo, v) : v;
    hi = any ? std::max(hi, v) : v;
    any = true;
  }
  // A relative margin: 0.01 / 0.001 is 10 within rounding.
  return any && hi >= 10.0 * lo * (1 - 1e-9) ? AxisScale::Log : AxisScale::Linear;
}

std::vector<bool> brushedRuns(const ParallelData& data, const QHash<QString, AxisBrush>& brushes) {
  std::vector<bool> kept(static_cast<std::size_t>(data.refs.size()), true);
  constexpr double eps = 1e-9;  // a brush drawn to a tick keeps the run on it
  for (const ParallelAxis& axis : data.axes) {
    auto it = brushes.find(axis.key);
    if (it == brushes.end()) continue;
    for (std::size_t i = 0; i < kept.size(); ++i) {
      const double p = axis.position(i);
      if (!(p >= it->low - eps && p <= it->high + eps)) kept[i] = false;  // NaN: out
    }
  }
  return kept;
}

QColor sequentialColor(double t) {
  // viridis at nine stops (matplotlib's table), linearly interpolated.
  static const std::array<std::array<int, 3>, 9> stops{{{68, 1, 84},
                                                        {71, 44, 122},
                                                        {59, 81, 139},
                                                        {44, 113, 142},
                                                        {33, 144, 141},
                                                        {39, 173, 129},
                                                        {92, 200, 99},
                                                        {170, 220, 50},
                                                        {253, 231, 37}}};
  if (!std::isfinite(t)) t = 0.0;
  t = std::clamp(t, 0.0, 1.0) * double(stops.size() - 1);
  const std::size_t i = std::min<std::size_t>(static_cast<std::size_t>(t), stops.size() - 2);
  const double f = t - double(i);
  auto mix = [&](int c) { return int(std::lround(stops[i][c] + f * (stops[i + 1][c] - stops[i][c]))); };
  return QColor(mix(0), mix(1), mix(2));
}

double metricQuality(const ParallelAxis& metric, core::MetricGoal goal, double value) {
  const double p = metric.positionOf(value);
  if (!std::isfinite(p)) return kNaN;
  return goal == core::MetricGoal::Minimize ? 1.0 - p : p;
}

}  // namespace pha::widgets
