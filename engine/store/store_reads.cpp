// Store reads: downsampled and full metric series, mixer snapshots, perf, evals, checkpoints.
#include <cmath>
#include <cstring>
#include <string>

#include "core/error.h"
#include "store/internal/series.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "store/internal/store_impl.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "mixer weights are stored as little-endian float32 and copied as they are");

namespace pha::store {

using detail::Agg;
using detail::StmtScope;
using detail::Transaction;

namespace {

double x_of(const MetricPoint& p, XAxis axis) {
  switch (axis) {
    case XAxis::Tokens: return static_cast<double>(p.tokens);
    case XAxis::WallMs: return static_cast<double>(p.wall_ms);
    case XAxis::Step: break;
  }
  return static_cast<double>(p.step);
}

// Merges aggregates arriving in step order into buckets of `width` steps counted from `base`.
class Bucketer {
 public:
  Bucketer(std::int64_t base, std::int64_t width, XAxis axis, std::size_t reserve)
      : base_(base), width_(width), axis_(axis) {
    out_.reserve(reserve);
  }
  void add(const Agg& a) {
    std::int64_t b = (a.first.step - base_) / width_;
    if (cur_.n > 0 && b != bucket_) emit();
    bucket_ = b;
    cur_.merge(a);
  }
  std::vector<MetricBucket> finish() {
    if (cur_.n > 0) emit();
    return std::move(out_);
  }

 private:
  void emit() {
    out_.push_back(MetricBucket{cur_.first.step, cur_.last.step, x_of(cur_.first, axis_),
                                x_of(cur_.last, axis_), cur_.vmin, cur_.vmax, cur_.last.value,
                                cur_.n});
    cur_ = Agg();
  }
  std::int64_t base_;
  std::int64_t width_;
  XAxis axis_;
  std::int64_t bucket_ = 0;
  Agg cur_;
  std::vector<MetricBucket> out_;
};

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::vector<MetricBucket> Store::read_metric(std::int64_t run_id, const std::string& key,
                                             std::size_t max_points, XAxis x_axis) {
  if (max_points == 0) throw core::Error(path(), "read_metric: max_points must be at least 1");
  detail::Db& d = db();
  Transaction snapshot(d, Transaction::Kind::Read);  // summary, range and rows agree
  std::int64_t key_id = detail::find_key_id(d, key);
  if (key_id < 0) return {};
  auto summary = detail::load_summary(d, run_id, key_id);
  if (!summary || summary->count == 0) return {};
  std::int64_t first_step = 0;
  {
    StmtScope s(d.stmt("SELECT min(step) FROM metrics WHERE run_id = ?1 AND key_id = ?2"));
    s->bind(1, run_id).bind(2, key_id);
    s->step();
    first_step = s->i64(0);
  }
  const std::int64_t last_step = summary->last_step;
  const auto cap = static_cast<std::int64_t>(max_points);
  // Buckets are step ranges of equal width; only non-empty ones are returned, so the result
  // has at most min(count, max_points) buckets.
  std::int64_t width =
      summary->count <= cap ? 1 : std::max<std::int64_t>(1, ceil_div(last_step - first_step + 1, cap));

  int shift = -1;  // the coarsest rollup level no wider than a bucket
  for (int s : detail::kRollupShifts) {
    if ((std::int64_t{1} << s) <= width) shift = s;
  }
  if (shift < 0) {
    // Fewer than 64 steps per bucket: at most 64 * max_points points, scan them.
    Bucketer out(first_step, width, x_axis, std::min<std::int64_t>(summary->count, cap));
    StmtScope s(d.stmt(
        "SELECT step, tokens, wall_ms, value FROM metrics WHERE run_id = ?1 AND key_id = ?2 "
        "ORDER BY step"));
    s->bind(1, run_id).bind(2, key_id);
    Agg one;
    while (s->step()) {
      one = Agg();
      one.add(MetricPoint{s->i64(0), s->i64(1), s->i64(2), s->f64(3)});
      out.add(one);
    }
    return out.finish();
  }
  // Align buckets to the rollup grid so every rollup row falls inside one output bucket.
  const std::int64_t unit = std::int64_t{1} << shift;
  const std::int64_t base = (first_step >> shift) << shift;
  width = ceil_div(ceil_div(last_step - base + 1, cap), unit) * unit;
  Bucketer out(base, width, x_axis, max_points);
  StmtScope s(d.stmt(
      "SELECT n, vmin, vmax, first_step, first_tokens, first_wall, last_step, last_tokens, "
      "last_wall, last_value FROM metric_rollups WHERE run_id = ?1 AND key_id = ?2 "
      "AND level = ?3 ORDER BY bucket"));
  s->bind(1, run_id).bind(2, key_id).bind(3, shift);
  while (s->step()) out.add(detail::read_agg(*s, 0));
  return out.finish();
}

std::vector<MetricPoint> Store::read_metric_full(std::int64_t run_id, const std::string& key) {
  std::vector<MetricPoint> out;
  detail::Db& d = db();
  std::int64_t key_id = detail::find_key_id(d, key);
  if (key_id < 0) return out;
  StmtScope s(d.stmt(
      "SELECT step, tokens, wall_ms, value FROM metrics WHERE run_id = ?1 AND key_id = ?2 "
      "ORDER BY step"));
  s->bind(1, run_id).bind(2, key_id);
  while (s->step()) out.push_back(MetricPoint{s->i64(0), s->i64(1), s->i64(2), s->f64(3)});
  return out;
}

std::vector<std::pair<std::int64_t, MetricPoint>> Store::last_points(const std::string& key) {
  std::vector<std::pair<std::int64_t, MetricPoint>> out;
  detail::Db& d = db();
  const std::int64_t key_id = detail::find_key_id(d, key);
  if (key_id < 0) return out;
  StmtScope s(d.stmt(
      // CROSS JOIN keeps runs as the outer loop: two primary-key lookups per run.
      "SELECT r.id, m.step, m.tokens, m.wall_ms, m.value FROM runs r "
      "CROSS JOIN run_summary s ON s.run_id = r.id AND s.key_id = ?1 "
      "CROSS JOIN metrics m ON m.run_id = r.id AND m.key_id = ?1 AND m.step = s.last_step "
      "ORDER BY r.id"));
  s->bind(1, key_id);
  while (s->step()) out.push_back({s->i64(0), MetricPoint{s->i64(1), s->i64(2), s->i64(3), s->f64(4)}});
  return out;
}

std::optional<MetricPoint> Store::last_point(std::int64_t run_id, const std::string& key) {
  detail::Db& d = db();
  const std::int64_t key_id = detail::find_key_id(d, key);
  if (key_id < 0) return std::nullopt;
  StmtScope s(d.stmt(
      "SELECT m.step, m.tokens, m.wall_ms, m.value FROM run_summary s "
      "CROSS JOIN metrics m ON m.run_id = s.run_id AND m.key_id = s.key_id AND m.step = s.last_step "
      "WHERE s.run_id = ?1 AND s.key_id = ?2"));
  s->bind(1, run_id);
  s->bind(2, key_id);
  if (!s->step()) return std::nullopt;
  return MetricPoint{s->i64(0), s->i64(1), s->i64(2), s->f64(3)};
}

std::optional<MetricSummary> Store::summary(std::int64_t run_id, const std::string& key) {
  detail::Db& d = db();
  std::int64_t key_id = detail::find_key_id(d, key);
  if (key_id < 0) return std::nullopt;
  auto row = detail::load_summary(d, run_id, key_id);
  if (!row) return std::nullopt;
  return MetricSummary{key, row->last, row->min, row->max, row->best_step, row->last_step,
                       row->count};
}

std::vector<std::string> Store::metric_keys(std::int64_t run_id) {
  StmtScope s(db().stmt(
      "SELECT mk.name FROM run_summary s JOIN metric_keys mk ON mk.id = s.key_id "
      "WHERE s.run_id = ?1 ORDER BY mk.name"));
  s->bind(1, run_id);
  std::vector<std::string> out;
  while (s->step()) out.push_back(s->text(0));
  return out;
}

namespace {
MixerSnapshot read_snapshot(const detail::Stmt& s, const std::string& path, std::int64_t run) {
  MixerSnapshot m;
  m.step = s.i64(0);
  m.layers = static_cast<int>(s.i64(1));
  m.branches = static_cast<int>(s.i64(2));
  std::vector<unsigned char> bytes = s.blob(3);
  const std::size_t expected =
      static_cast<std::size_t>(m.layers) * static_cast<std::size_t>(m.branches) * sizeof(float);
  if (bytes.size() != expected) {
    throw core::Error(path, "mixer snapshot of run " + std::to_string(run) + " at step " +
                          std::to_string(m.step) + " has " + std::to_string(bytes.size()) +
                          " bytes, expected " + std::to_string(expected));
  }
  m.weights.resize(expected / sizeof(float));
  if (expected) std::memcpy(m.weights.data(), bytes.data(), expected);
  return m;
}
}  // namespace

std::vector<std::int64_t> Store::mixer_steps(std::int64_t run_id) {
  StmtScope s(db().stmt("SELECT step FROM mixer_snapshots WHERE run_id = ?1 ORDER BY step"));
  s->bind(1, run_id);
  std::vector<std::int64_t> out;
  while (s->step()) out.push_back(s->i64(0));
  return out;
}

std::optional<MixerSnapshot> Store::read_mixer(std::int64_t run_id, std::int64_t step) {
  StmtScope s(db().stmt(
      "SELECT step, layers, branches, weights FROM mixer_snapshots "
      "WHERE run_id = ?1 AND step = ?2"));
  s->bind(1, run_id).bind(2, step);
  if (!s->step()) return std::nullopt;
  return read_snapshot(*s, path(), run_id);
}

std::vector<MixerSnapshot> Store::read_mixer_all(std::int64_t run_id) {
  StmtScope s(db().stmt(
      "SELECT step, layers, branches, weights FROM mixer_snapshots WHERE run_id = ?1 "
      "ORDER BY step"));
  s->bind(1, run_id);
  std::vector<MixerSnapshot> out;
  while (s->step()) out.push_back(read_snapshot(*s, path(), run_id));
  return out;
}

std::vector<PerfRow> Store::perf(std::int64_t run_id) {
  StmtScope s(db().stmt(
      "SELECT seq_len, batch, tokens_per_s, peak_bytes, device, phase, method FROM perf "
      "WHERE run_id = ?1 ORDER BY id"));
  s->bind(1, run_id);
  std::vector<PerfRow> out;
  while (s->step()) {
    out.push_back(PerfRow{s->i64(0), s->i64(1), s->f64(2), s->i64(3), s->text(4), s->text(5),
                          s->text(6)});
  }
  return out;
}

std::vector<EvalRow> Store::evals(std::int64_t run_id) {
  StmtScope s(db().stmt(
      "SELECT step, task, seq_len, metric, value FROM evals WHERE run_id = ?1 "
      "ORDER BY step, task, seq_len, id"));
  s->bind(1, run_id);
  std::vector<EvalRow> out;
  while (s->step()) out.push_back(EvalRow{s->i64(0), s->text(1), s->i64(2), s->text(3), s->f64(4)});
  return out;
}

std::vector<CheckpointRow> Store::checkpoints(std::int64_t run_id) {
  StmtScope s(db().stmt(
      "SELECT step, path, bytes, sha256 FROM checkpoints WHERE run_id = ?1 ORDER BY step, id"));
  s->bind(1, run_id);
  std::vector<CheckpointRow> out;
  while (s->step()) out.push_back(CheckpointRow{s->i64(0), s->text(1), s->i64(2), s->text(3)});
  return out;
}

}  // namespace pha::store
