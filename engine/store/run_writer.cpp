#include "store/run_writer.h"

#include <unistd.h>

#include <algorithm>

#include "core/error.h"
#include "store/internal/series.h"
#include "store/sqlite_db.h"
#include "store/internal/store_impl.h"

namespace pha::store {

using detail::StmtScope;
using detail::Transaction;

namespace {
std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return {};
  return buf;
}
}  // namespace

RunWriter::RunWriter(Store& store, std::int64_t run_id, WriterOptions options)
    : store_(store), run_id_(run_id), options_(options),
      last_flush_(std::chrono::steady_clock::now()) {
  const std::int64_t now = detail::now_ms();
  StmtScope s(store_.db().stmt(
      "UPDATE runs SET status = 'running', started_at = coalesce(started_at, ?2), "
      "ended_at = NULL, error = NULL, pid = ?3, host = ?4, heartbeat_at = ?2 WHERE id = ?1"));
  s->bind(1, run_id).bind(2, now).bind(3, static_cast<std::int64_t>(getpid()));
  s->bind(4, host_name());
  s->run();
  if (store_.db().changes() == 0) {
    throw core::Error(store_.path(), "cannot start run " + std::to_string(run_id) + ": no such run");
  }
}

RunWriter::~RunWriter() {
  if (finished_) return;
  try {
    flush();
  } catch (...) {
    // The destructor must not throw; the status below still records that the run stopped.
  }
  try {
    store_.set_status(run_id_, RunStatus::Interrupted,
                      "the writer was closed without finishing the run");
  } catch (...) {
  }
}

void RunWriter::metric(const std::string& key, std::int64_t step, std::int64_t tokens,
                       std::int64_t wall_ms, double value) {
  if (step < 0) {
    throw core::Error(store_.path(), "metric '" + key + "': step must be >= 0, got " +
                                   std::to_string(step));
  }
  points_[key].push_back(MetricPoint{step, tokens, wall_ms, value});
  ++pending_points_;
  if (pending_points_ >= options_.max_buffered_points) {
    flush();
  } else {
    maybe_flush();
  }
}

void RunWriter::mixer(const MixerSnapshot& snapshot) {
  const auto expected = static_cast<std::size_t>(std::max(snapshot.layers, 0)) *
                        static_cast<std::size_t>(std::max(snapshot.branches, 0));
  if (snapshot.layers <= 0 || snapshot.branches <= 0 || snapshot.weights.size() != expected) {
    throw core::Error(store_.path(), "mixer snapshot at step " + std::to_string(snapshot.step) +
                                   ": " + std::to_string(snapshot.weights.size()) +
                                   " weights for " + std::to_string(snapshot.layers) +
                                   " layers x " + std::to_string(snapshot.branches) +
                                   " branches (need layers, branches > 0 and one weight each)");
  }
  mixers_.push_back(snapshot);
  maybe_flush();
}

void RunWriter::perf(const PerfRow& row) {
  perfs_.push_back(row);
  maybe_flush();
}

void RunWriter::eval(const EvalRow& row) {
  evals_.push_back(row);
  maybe_flush();
}

void RunWriter::checkpoint(const CheckpointRow& row) {
  flush();
  StmtScope s(store_.db().stmt(
      "INSERT INTO checkpoints(run_id, step, path, bytes, sha256) VALUES(?1, ?2, ?3, ?4, ?5)"));
  s->bind(1, run_id_).bind(2, row.step).bind(3, row.path).bind(4, row.bytes).bind(5, row.sha256);
  s->run();
}

bool RunWriter::maybe_flush() {
  if (std::chrono::steady_clock::now() - last_flush_ < options_.flush_interval) return false;
  flush();
  return true;
}

std::int64_t RunWriter::key_id(const std::string& key) {
  auto it = key_ids_.find(key);
  if (it != key_ids_.end()) return it->second;
  detail::Db& db = store_.db();
  {
    StmtScope s(db.stmt("INSERT INTO metric_keys(name) VALUES(?1) ON CONFLICT(name) DO NOTHING"));
    s->bind(1, key);
    s->run();
  }
  std::int64_t id = detail::find_key_id(db, key);
  key_ids_.emplace(key, id);
  return id;
}

void RunWriter::flush_metrics(std::int64_t key, std::vector<MetricPoint>& points) {
  detail::Db& db = store_.db();
  // Sort by step; for a step written twice in one batch the later write wins.
  std::stable_sort(points.begin(), points.end(),
                   [](const MetricPoint& a, const MetricPoint& b) { return a.step < b.step; });
  std::vector<MetricPoint> unique;
  unique.reserve(points.size());
  for (const MetricPoint& p : points) {
    if (!unique.empty() && unique.back().step == p.step) {
      unique.back() = p;
    } else {
      unique.push_back(p);
    }
  }
  auto summary = detail::load_summary(db, run_id_, key);
  if (summary && unique.front().step <= summary->last_step) {
    // A resumed run repeats steps: what was recorded from that step on is superseded.
    detail::truncate_series(db, run_id_, key, unique.front().step);
    summary = detail::load_summary(db, run_id_, key);
  }
  {
    StmtScope s(db.stmt(
        "INSERT INTO metrics(run_id, key_id, step, tokens, wall_ms, value) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6)"));
    for (const MetricPoint& p : unique) {
      s->bind(1, run_id_).bind(2, key).bind(3, p.step).bind(4, p.tokens).bind(5, p.wall_ms);
      s->bind(6, p.value);
      s->run();
      s->reset();
    }
  }
  detail::upsert_rollups(db, run_id_, key, unique);
  detail::SummaryRow row = summary.value_or(detail::SummaryRow());
  row.add(unique, detail::key_goal(db, key));
  detail::save_summary(db, run_id_, key, row);
}

void RunWriter::flush() {
  detail::Db& db = store_.db();
  try {
    Transaction tx(db, Transaction::Kind::Write);
    for (auto& [key, points] : points_) {
      if (!points.empty()) flush_metrics(key_id(key), points);
    }
    for (const MixerSnapshot& m : mixers_) {
      StmtScope s(db.stmt(
          "INSERT OR REPLACE INTO mixer_snapshots(run_id, step, layers, branches, weights) "
          "VALUES(?1, ?2, ?3, ?4, ?5)"));
      s->bind(1, run_id_).bind(2, m.step).bind(3, m.layers).bind(4, m.branches);
      s->bind_blob(5, m.weights.data(), m.weights.size() * sizeof(float));
      s->run();
    }
    for (const PerfRow& p : perfs_) {
      StmtScope s(db.stmt(
          "INSERT INTO perf(run_id, seq_len, batch, tokens_per_s, peak_bytes, device, phase, "
          "method) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"));
      s->bind(1, run_id_).bind(2, p.seq_len).bind(3, p.batch).bind(4, p.tokens_per_s);
      s->bind(5, p.peak_bytes).bind(6, p.device).bind(7, p.phase).bind(8, p.method);
      s->run();
    }
    for (const EvalRow& e : evals_) {
      StmtScope s(db.stmt(
          "INSERT INTO evals(run_id, step, task, seq_len, metric, value) "
          "VALUES(?1, ?2, ?3, ?4, ?5, ?6)"));
      s->bind(1, run_id_).bind(2, e.step).bind(3, e.task).bind(4, e.seq_len).bind(5, e.metric);
      s->bind(6, e.value);
      s->run();
    }
    {
      StmtScope s(db.stmt("UPDATE runs SET heartbeat_at = ?2 WHERE id = ?1"));
      s->bind(1, run_id_).bind(2, detail::now_ms());
      s->run();
    }
    tx.commit();
  } catch (...) {
    key_ids_.clear();  // ids made inside the rolled-back transaction are gone
    throw;
  }
  points_.clear();
  pending_points_ = 0;
  mixers_.clear();
  perfs_.clear();
  evals_.clear();
  last_flush_ = std::chrono::steady_clock::now();
}

void RunWriter::finish(RunStatus status, const std::string& error) {
  if (!is_terminal(status)) {
    throw core::Error(store_.path(), std::string("finish(): '") + to_string(status) +
                                   "' is not a final status (finished, failed, cancelled, "
                                   "diverged, interrupted)");
  }
  flush();
  store_.set_status(run_id_, status, error);
  finished_ = true;
}

}  // namespace pha::store
