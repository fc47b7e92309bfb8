// Downsampled reads checked against a brute-force pass over the raw points: every bucket's
// min, max, last and count must equal those of the raw points in its step range, buckets must
// cover every point once, never exceed the requested number, and keep spikes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/error.h"
#include "store/run_writer.h"
#include "store/store.h"
#include "store_test_util.h"

namespace ps = pha::store;
using ps::test::TempDir;

namespace {

struct Series {
  std::vector<ps::MetricPoint> points;  // sorted by step
  double spike = 0;
  std::int64_t spike_step = 0;
};

// n points, step stride `stride` from `first`, noisy decay with one spike; flushed every
// `flush_every` points so rollup buckets straddle flushes.
Series write_series(ps::Store& store, std::int64_t run, const std::string& key, long n,
                    std::int64_t first, std::int64_t stride, long flush_every) {
  Series s;
  std::mt19937 rng(static_cast<unsigned>(n * 31 + stride));
  std::normal_distribution<double> noise(0.0, 0.02);
  ps::WriterOptions opt;
  opt.flush_interval = std::chrono::hours(1);  // flushes only where this test says
  ps::RunWriter w(store, run, opt);
  const long spike_at = n * 2 / 3 + 1;
  for (long i = 0; i < n; ++i) {
    ps::MetricPoint p{first + i * stride, (first + i * stride) * 512, i * 7 + (i % 3),
                      3.0 * std::exp(-static_cast<double>(i) / (n / 4.0 + 1)) + noise(rng)};
    if (i == spike_at) {
      p.value = 1000.0;
      s.spike = p.value;
      s.spike_step = p.step;
    }
    s.points.push_back(p);
    w.metric(key, p.step, p.tokens, p.wall_ms, p.value);
    if ((i + 1) % flush_every == 0) w.flush();
  }
  w.finish(ps::RunStatus::Finished);
  return s;
}

void check_against_raw(const std::vector<ps::MetricBucket>& buckets, const Series& s,
                       std::size_t max_points, ps::XAxis axis) {
  ASSERT_FALSE(buckets.empty());
  EXPECT_LE(buckets.size(), max_points);
  if (s.points.size() > max_points) {
    // Not over-thinned: the grid alignment at most halves the requested resolution.
    EXPECT_GE(buckets.size(), max_points / 3) << "max_points " << max_points;
  } else {
    EXPECT_EQ(buckets.size(), s.points.size());
  }
  std::size_t i = 0;
  std::int64_t covered = 0;
  double top = -1e300;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    const ps::MetricBucket& k = buckets[b];
    if (b > 0) {
      ASSERT_GT(k.step_first, buckets[b - 1].step_last);
    }
    // Raw points in [step_first, step_last]; every point must belong to some bucket.
    ASSERT_LT(i, s.points.size());
    ASSERT_EQ(s.points[i].step, k.step_first) << "bucket " << b << " skips points";
    double lo = 1e300, hi = -1e300;
    const ps::MetricPoint& first = s.points[i];
    std::int64_t n = 0;
    while (i < s.points.size() && s.points[i].step <= k.step_last) {
      lo = std::min(lo, s.points[i].value);
      hi = std::max(hi, s.points[i].value);
      ++n;
      ++i;
    }
    const ps::MetricPoint& last = s.points[i - 1];
    ASSERT_EQ(last.step, k.step_last);
    EXPECT_EQ(k.count, n) << "bucket " << b;
    EXPECT_DOUBLE_EQ(k.min, lo) << "bucket " << b;
    EXPECT_DOUBLE_EQ(k.max, hi) << "bucket " << b;
    EXPECT_DOUBLE_EQ(k.last, last.value) << "bucket " << b;
    auto x = [&](const ps::MetricPoint& p) {
      return axis == ps::XAxis::Tokens ? double(p.tokens)
             : axis == ps::XAxis::WallMs ? double(p.wall_ms) : double(p.step);
    };
    EXPECT_DOUBLE_EQ(k.x_first, x(first));
    EXPECT_DOUBLE_EQ(k.x_last, x(last));
    covered += n;
    top = std::max(top, k.max);
  }
  EXPECT_EQ(covered, static_cast<std::int64_t>(s.points.size()));
  EXPECT_DOUBLE_EQ(top, s.spike);  // the spike survives thinning
  EXPECT_EQ(buckets.back().step_last, s.points.back().step);
  EXPECT_DOUBLE_EQ(buckets.back().last, s.points.back().value);  // true last point
}

}  // namespace

TEST(StoreDownsample, MatchesRawPointsAcrossSizesAndLevels) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::int64_t run = store.create_run({"p", "ds", "", "{}", "", 0, "cpu"});
  // 200k points flushed every 997: exercises the raw path, rollup levels 2^6 and 2^12 and
  // rollup buckets that straddle flushes.
  Series s = write_series(store, run, "loss", 200000, 0, 1, 997);
  for (std::size_t max_points : {1u, 7u, 20u, 100u, 1999u, 2000u, 5000u, 199999u, 300000u}) {
    SCOPED_TRACE(max_points);
    check_against_raw(store.read_metric(run, "loss", max_points), s, max_points, ps::XAxis::Step);
  }
  check_against_raw(store.read_metric(run, "loss", 2000, ps::XAxis::Tokens), s, 2000,
                    ps::XAxis::Tokens);
  check_against_raw(store.read_metric(run, "loss", 500, ps::XAxis::WallMs), s, 500,
                    ps::XAxis::WallMs);
}

TEST(StoreDownsample, SparseStepsNotStartingAtZero) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::int64_t run = store.create_run({"p", "sparse", "", "{}", "", 0, "cpu"});
  Series s = write_series(store, run, "val/loss", 30000, 12345, 37, 4096);
  for (std::size_t max_points : {3u, 64u, 1000u, 2000u, 40000u}) {
    SCOPED_TRACE(max_points);
    check_against_raw(store.read_metric(run, "val/loss", max_points), s, max_points,
                      ps::XAxis::Step);
  }
}

TEST(StoreDownsample, UnknownKeyOrRunIsEmptyAndZeroPointsIsAnError) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::int64_t run = store.create_run({"p", "x", "", "{}", "", 0, "cpu"});
  EXPECT_TRUE(store.read_metric(run, "nothing", 100).empty());
  EXPECT_TRUE(store.read_metric(run + 1, "nothing", 100).empty());
  EXPECT_THROW(store.read_metric(run, "nothing", 0), pha::core::Error);
}
