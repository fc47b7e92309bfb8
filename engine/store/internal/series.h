// Internal: derived data kept beside the raw metric points of one (run, key) series.
//  - run_summary: last/min/max/best_step/count, so listing runs never scans points;
//  - metric_rollups: exact per-bucket aggregates (count, min, max, first and last point) over
//    aligned step buckets of 2^6, 2^12 and 2^18 steps, so a downsampled read of a 1M-point
//    series touches ~16k rollup rows instead of 1M points.
// Both are updated in the writer's flush transaction, so they are always consistent with the
// points that are visible.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "store/types.h"

namespace pha::store::detail {

class Db;
class Stmt;

inline constexpr int kRollupShifts[] = {6, 12, 18};

// Aggregate of consecutive points (by step). NaN values count but do not touch min/max.
struct Agg {
  std::int64_t n = 0;
  double vmin;
  double vmax;
  MetricPoint first;
  MetricPoint last;
  Agg();
  void add(const MetricPoint& p);
  void merge(const Agg& later);  // `later` covers steps after this one's
};

struct SummaryRow {
  double last;
  double min;
  double max;
  std::int64_t best_step = -1;
  std::int64_t last_step = -1;
  std::int64_t count = 0;
  SummaryRow();
  // Folds points (sorted by step, all after last_step) into the summary.
  void add(const std::vector<MetricPoint>& points, Goal goal);
};

std::optional<SummaryRow> load_summary(Db& db, std::int64_t run, std::int64_t key);
void save_summary(Db& db, std::int64_t run, std::int64_t key, const SummaryRow& s);
Goal key_goal(Db& db, std::int64_t key);

// Appends points (sorted by step, strictly after every stored point) to the rollups.
void upsert_rollups(Db& db, std::int64_t run, std::int64_t key,
                    const std::vector<MetricPoint>& points);

// Recomputes the series' rollups from the bucket holding from_step onward, and its summary
// from all its points (migrations, rewinds). Rare and proportional to the series length.
void rebuild_series(Db& db, std::int64_t run, std::int64_t key, std::int64_t from_step);
// Deletes points with step >= from_step (a resumed run rewinding), then rebuild_series().
void truncate_series(Db& db, std::int64_t run, std::int64_t key, std::int64_t from_step);

// Reads a rollup or point row (columns n, vmin, vmax, first_step, first_tokens, first_wall,
// last_step, last_tokens, last_wall, last_value starting at col) into an Agg.
Agg read_agg(const Stmt& s, int col);

}  // namespace pha::store::detail
