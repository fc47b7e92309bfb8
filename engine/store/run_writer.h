// Writes one run's records from the training thread. Points are buffered in memory and
// committed in one transaction about once a second (checked on every call; no background
// thread, so the writer uses only its Store's connection). Status changes and checkpoints are
// written at once. Each flush also refreshes the run's heartbeat, which crash detection uses.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/store.h"
#include "store/types.h"

namespace pha::store {

struct WriterOptions {
  std::chrono::milliseconds flush_interval{1000};
  std::size_t max_buffered_points = 1u << 20;  // flush early rather than grow without bound
};

class RunWriter {
 public:
  // Marks the run running with this process's pid, host and started_at.
  RunWriter(Store& store, std::int64_t run_id, WriterOptions options = {});
  // Flushes; a run left running (no finish()) is marked interrupted. Never throws.
  ~RunWriter();
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;

  std::int64_t run_id() const { return run_id_; }

  void metric(const std::string& key, std::int64_t step, std::int64_t tokens,
              std::int64_t wall_ms, double value);
  void mixer(const MixerSnapshot& snapshot);  // weights.size() must be layers * branches
  void perf(const PerfRow& row);
  void eval(const EvalRow& row);
  void checkpoint(const CheckpointRow& row);  // flushes, then records the checkpoint at once

  // Flushes when flush_interval has passed since the last flush; true if it flushed.
  bool maybe_flush();
  void flush();
  // Flushes, then records the final status (finished, failed, cancelled, diverged).
  void finish(RunStatus status, const std::string& error = {});

  std::size_t pending_points() const { return pending_points_; }

 private:
  std::int64_t key_id(const std::string& key);
  void flush_metrics(std::int64_t key_id, std::vector<MetricPoint>& points);

  Store& store_;
  std::int64_t run_id_;
  WriterOptions options_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point last_flush_;
  std::unordered_map<std::string, std::vector<MetricPoint>> points_;
  std::unordered_map<std::string, std::int64_t> key_ids_;
  std::size_t pending_points_ = 0;
  std::vector<MixerSnapshot> mixers_;
  std::vector<PerfRow> perfs_;
  std::vector<EvalRow> evals_;
};

}  // namespace pha::store
