#include "store/internal/series.h"

#include <cmath>
#include <limits>

#include "store/sqlite_db.h"

namespace pha::store::detail {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void fold_min_max(double v, double& lo, double& hi) {
  if (std::isnan(v)) return;
  if (std::isnan(lo) || v < lo) lo = v;
  if (std::isnan(hi) || v > hi) hi = v;
}

constexpr const char* kUpsertRollup =
    "INSERT INTO metric_rollups(run_id, key_id, level, bucket, n, vmin, vmax, first_step, "
    "first_tokens, first_wall, last_step, last_tokens, last_wall, last_value) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) "
    "ON CONFLICT(run_id, key_id, level, bucket) DO UPDATE SET "
    "n = n + excluded.n, "
    "vmin = min(coalesce(vmin, excluded.vmin), coalesce(excluded.vmin, vmin)), "
    "vmax = max(coalesce(vmax, excluded.vmax), coalesce(excluded.vmax, vmax)), "
    "last_step = excluded.last_step, last_tokens = excluded.last_tokens, "
    "last_wall = excluded.last_wall, last_value = excluded.last_value";

void write_rollup(Db& db, std::int64_t run, std::int64_t key, int shift, std::int64_t bucket,
                  const Agg& a) {
  StmtScope s(db.stmt(kUpsertRollup));
  s->bind(1, run).bind(2, key).bind(3, shift).bind(4, bucket).bind(5, a.n);
  s->bind(6, a.vmin).bind(7, a.vmax);
  s->bind(8, a.first.step).bind(9, a.first.tokens).bind(10, a.first.wall_ms);
  s->bind(11, a.last.step).bind(12, a.last.tokens).bind(13, a.last.wall_ms).bind(14, a.last.value);
  s->run();
}

// Aggregates sorted points into aligned buckets of 2^shift steps, one level at a time.
class LevelBuilder {
 public:
  LevelBuilder(int shift, std::int64_t from_step) : shift_(shift), from_(from_step) {}
  void add(Db& db, std::int64_t run, std::int64_t key, const MetricPoint& p) {
    if (p.step < from_) return;
    std::int64_t b = p.step >> shift_;
    if (agg_.n > 0 && b != bucket_) flush(db, run, key);
    bucket_ = b;
    agg_.add(p);
  }
  void flush(Db& db, std::int64_t run, std::int64_t key) {
    if (agg_.n > 0) write_rollup(db, run, key, shift_, bucket_, agg_);
    agg_ = Agg();
  }

 private:
  int shift_;
  std::int64_t from_;
  std::int64_t bucket_ = 0;
  Agg agg_;
};
}  // namespace

Agg::Agg() : vmin(kNaN), vmax(kNaN) {}

void Agg::add(const MetricPoint& p) {
  if (n == 0) first = p;
  last = p;
  ++n;
  fold_min_max(p.value, vmin, vmax);
}

void Agg::merge(const Agg& later) {
  if (later.n == 0) return;
  if (n == 0) {
    *this = later;
    return;
  }
  n += later.n;
  fold_min_max(later.vmin, vmin, vmax);
  fold_min_max(later.vmax, vmin, vmax);
  last = later.last;
}

SummaryRow::SummaryRow() : last(kNaN), min(kNaN), max(kNaN) {}

void SummaryRow::add(const std::vector<MetricPoint>& points, Goal goal) {
  for (const MetricPoint& p : points) {
    ++count;
    last = p.value;
    last_step = p.step;
    if (std::isnan(p.value)) continue;
    // Strict improvement: the earliest step reaching the best value is the best step.
    if (std::isnan(min) || p.value < min) {
      min = p.value;
      if (goal == Goal::Minimize) best_step = p.step;
    }
    if (std::isnan(max) || p.value > max) {
      max = p.value;
      if (goal == Goal::Maximize) best_step = p.step;
    }
  }
}

std::optional<SummaryRow> load_summary(Db& db, std::int64_t run, std::int64_t key) {
  StmtScope s(db.stmt(
      "SELECT last, min, max, best_step, last_step, count FROM run_summary "
      "WHERE run_id = ?1 AND key_id = ?2"));
  s->bind(1, run).bind(2, key);
  if (!s->step()) return std::nullopt;
  SummaryRow r;
  r.last = s->f64(0);
  r.min = s->f64(1);
  r.max = s->f64(2);
  r.best_step = s->is_null(3) ? -1 : s->i64(3);
  r.last_step = s->is_null(4) ? -1 : s->i64(4);
  r.count = s->i64(5);
  return r;
}

void save_summary(Db& db, std::int64_t run, std::int64_t key, const SummaryRow& r) {
  StmtScope s(db.stmt(
      "INSERT OR REPLACE INTO run_summary(run_id, key_id, last, min, max, best_step, count, "
      "last_step) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"));
  s->bind(1, run).bind(2, key).bind(3, r.last).bind(4, r.min).bind(5, r.max);
  if (r.best_step >= 0) {
    s->bind(6, r.best_step);
  } else {
    s->bind_null(6);
  }
  s->bind(7, r.count).bind(8, r.last_step);
  s->run();
}

Goal key_goal(Db& db, std::int64_t key) {
  StmtScope s(db.stmt("SELECT goal FROM metric_keys WHERE id = ?1"));
  s->bind(1, key);
  return (s->step() && s->i64(0) == 1) ? Goal::Maximize : Goal::Minimize;
}

void upsert_rollups(Db& db, std::int64_t run, std::int64_t key,
                    const std::vector<MetricPoint>& points) {
  for (int shift : kRollupShifts) {
    LevelBuilder level(shift, 0);
    for (const MetricPoint& p : points) level.add(db, run, key, p);
    level.flush(db, run, key);
  }
}

void truncate_series(Db& db, std::int64_t run, std::int64_t key, std::int64_t from_step) {
  {
    StmtScope del(db.stmt(
        "DELETE FROM metrics WHERE run_id = ?1 AND key_id = ?2 AND step >= ?3"));
    del->bind(1, run).bind(2, key).bind(3, from_step);
    del->run();
  }
  rebuild_series(db, run, key, from_step);
}

void rebuild_series(Db& db, std::int64_t run, std::int64_t key, std::int64_t from_step) {
  std::vector<LevelBuilder> levels;
  for (int shift : kRollupShifts) {
    std::int64_t bucket = from_step >> shift;
    StmtScope del(db.stmt(
        "DELETE FROM metric_rollups WHERE run_id = ?1 AND key_id = ?2 AND level = ?3 "
        "AND bucket >= ?4"));
    del->bind(1, run).bind(2, key).bind(3, shift).bind(4, bucket);
    del->run();
    levels.emplace_back(shift, bucket << shift);
  }
  // One scan of what remains rebuilds the summary and the cut rollup buckets.
  Goal goal = key_goal(db, key);
  SummaryRow summary;
  std::vector<MetricPoint> one(1);
  StmtScope s(db.stmt(
      "SELECT step, tokens, wall_ms, value FROM metrics WHERE run_id = ?1 AND key_id = ?2 "
      "ORDER BY step"));
  s->bind(1, run).bind(2, key);
  while (s->step()) {
    one[0] = MetricPoint{s->i64(0), s->i64(1), s->i64(2), s->f64(3)};
    summary.add(one, goal);
    for (LevelBuilder& level : levels) level.add(db, run, key, one[0]);
  }
  for (LevelBuilder& level : levels) level.flush(db, run, key);
  if (summary.count > 0) {
    save_summary(db, run, key, summary);
  } else {
    StmtScope del(db.stmt("DELETE FROM run_summary WHERE run_id = ?1 AND key_id = ?2"));
    del->bind(1, run).bind(2, key);
    del->run();
  }
}

Agg read_agg(const Stmt& s, int col) {
  Agg a;
  a.n = s.i64(col);
  a.vmin = s.f64(col + 1);
  a.vmax = s.f64(col + 2);
  a.first = MetricPoint{s.i64(col + 3), s.i64(col + 4), s.i64(col + 5), kNaN};
  a.last = MetricPoint{s.i64(col + 6), s.i64(col + 7), s.i64(col + 8), s.f64(col + 9)};
  return a;
}

}  // namespace pha::store::detail
