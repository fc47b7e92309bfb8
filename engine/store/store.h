// The SQLite run store: one Store object is one connection. A connection belongs to the
// thread that opened it; every thread (GUI, worker, exporter) opens its own Store on the same
// file. WAL mode lets readers run while one writer commits. See docs/store.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "store/types.h"

namespace pha::store {

namespace detail {
class Db;
}

struct OpenOptions {
  std::chrono::milliseconds busy_timeout{5000};
  // A run still marked running is interrupted when its writer's pid is gone (same host), or
  // when its heartbeat is older than this (any host; covers other hosts and pid reuse).
  std::chrono::milliseconds stale_heartbeat{std::chrono::minutes(15)};
  bool recover_interrupted = true;
  // PRAGMA quick_check before anything is written: a damaged file throws DamagedStore and is
  // left exactly as it was (no migration, no recovery of dead runs, no checkpoint on close).
  bool verify = true;
};

// A run store whose file fails PRAGMA quick_check. The message says what is wrong, that the
// file is kept untouched, and how to recover (`pha runs recover`, store_recover.h).
class DamagedStore : public core::Error {
 public:
  DamagedStore(const std::string& path, std::vector<std::string> problems);
  const std::vector<std::string>& problems() const noexcept { return problems_; }

 private:
  std::vector<std::string> problems_;
};

// PRAGMA quick_check of the store file at `path` through a connection that writes nothing to
// it. Empty: sound (or no file yet); otherwise SQLite's problems, first ones first.
std::vector<std::string> quick_check(const std::string& path);

class Store {
 public:
  // The schema version this code writes. Older stores are migrated on open; newer ones are
  // refused with a core::Error naming the file.
  static constexpr int kSchemaVersion = 9;

  // Opens (creating when missing) the store at path, applies pragmas, migrates, then marks
  // dead running runs as interrupted. Throws core::Error naming the file.
  static Store open(const std::string& path, const OpenOptions& options = {});

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  const std::string& path() const;
  int schema_version();
  // Runs this open() marked interrupted (ids), for a "recovered N runs" message.
  const std::vector<std::int64_t>& recovered_runs() const;

  // --- runs ---
  std::int64_t create_run(const NewRun& run);
  std::optional<RunInfo> get_run(std::int64_t run_id);
  std::vector<RunListEntry> list_runs(const RunListQuery& query = {});
  // The groups of seeded replicas (runs.run_group), in the order of their first run; runs
  // without a group (profiles) are not listed.
  std::vector<RunGroupInfo> list_groups(const GroupListQuery& query = {});
  // Written at once (not batched). Terminal states set ended_at; error may be empty.
  void set_status(std::int64_t run_id, RunStatus status, const std::string& error = {});
  void rename_run(std::int64_t run_id, const std::string& name);
  void set_notes(std::int64_t run_id, const std::string& notes);
  // Replaces the run's provenance (runs.env_json, a JSON object; docs/store.md "Provenance").
  void set_env(std::int64_t run_id, const std::string& env_json);
  // When the run's work really began and ended (ms since the epoch), for a record written after
  // the fact: an efficiency profile is stored once its points were measured in other processes.
  void set_run_times(std::int64_t run_id, std::int64_t started_at, std::int64_t ended_at);
  void add_tag(std::int64_t run_id, const std::string& tag);
  void remove_tag(std::int64_t run_id, const std::string& tag);
  std::vector<std::string> tags(std::int64_t run_id);
  // Every (run id, tag) of the store, by run id then tag: one statement (the run table's Tags).
  std::vector<std::pair<std::int64_t, std::string>> all_tags();
  // Deletes the run and everything recorded for it (metrics, mixer, perf, evals, checkpoint
  // rows; checkpoint files on disk are the caller's business).
  void delete_run(std::int64_t run_id);

  // --- metrics ---
  // Declares a key's goal (default Minimize for keys first seen by a writer).
  void define_metric_key(const std::string& name, Goal goal);
  std::vector<std::string> metric_keys(std::int64_t run_id);
  std::optional<MetricSummary> summary(std::int64_t run_id, const std::string& key);
  // About max_points buckets (never more), each a step range with min, max and last.
  std::vector<MetricBucket> read_metric(std::int64_t run_id, const std::string& key,
                                        std::size_t max_points, XAxis x_axis = XAxis::Step);
  // Every point, ordered by step (export).
  std::vector<MetricPoint> read_metric_full(std::int64_t run_id, const std::string& key);
  // The last point of `key` of every run that wrote it, by run id (the run browser's "tokens
  // seen"): one primary-key lookup per run through run_summary.last_step, no scan of metrics.
  std::vector<std::pair<std::int64_t, MetricPoint>> last_points(const std::string& key);
  // The same for one run (nullopt: it wrote no `key`).
  std::optional<MetricPoint> last_point(std::int64_t run_id, const std::string& key);

  // --- other records ---
  std::vector<std::int64_t> mixer_steps(std::int64_t run_id);
  std::optional<MixerSnapshot> read_mixer(std::int64_t run_id, std::int64_t step);
  std::vector<MixerSnapshot> read_mixer_all(std::int64_t run_id);
  std::vector<PerfRow> perf(std::int64_t run_id);
  std::vector<EvalRow> evals(std::int64_t run_id);
  // Adds evaluation rows to a run in any state (e.g. a finished run evaluated again by
  // `pha eval`), in one transaction, at once (no writer needed). A row with the same step,
  // task, seq_len and metric as an existing one replaces it, so evaluating a checkpoint twice
  // keeps one value per point. Throws core::Error when the run does not exist.
  void record_evals(std::int64_t run_id, const std::vector<EvalRow>& rows);
  std::vector<CheckpointRow> checkpoints(std::int64_t run_id);

  // PRAGMA integrity_check: "ok" or SQLite's list of problems.
  std::string integrity_check();

  // For RunWriter (same connection, same thread).
  detail::Db& db();

 private:
  Store();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pha::store
