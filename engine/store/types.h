// Plain value types of the run store. No SQLite, torch or Qt here: the GUI includes this file
// and builds its item models over these structs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pha::store {

enum class RunStatus { Queued, Running, Finished, Failed, Cancelled, Diverged, Interrupted };

// "queued", "running", ... as stored in runs.status.
const char* to_string(RunStatus status);
// Throws core::Error naming the allowed values for an unknown string.
RunStatus run_status_from_string(const std::string& text);
// Finished, failed, cancelled, diverged and interrupted are terminal.
bool is_terminal(RunStatus status);

// What a run is (runs.kind): a training run of a project (train), or the efficiency profile of
// one model (profile: perf rows only, no curves). The set is enforced here, not by a CHECK in
// SQL, so that a new kind needs no rebuild of the runs table; a program that adds a kind also
// raises the schema version, so older programs refuse the store instead of misreading it.
enum class RunKind { Train, Profile };

// "train", "profile" as stored in runs.kind.
const char* to_string(RunKind kind);
// Throws core::Error naming runs.kind and the allowed values for an unknown string.
RunKind run_kind_from_string(const std::string& text);

// Which way is better for a metric key; decides run_summary.best_step.
enum class Goal { Minimize, Maximize };

// The x axis a downsampled read reports (buckets are always step ranges).
enum class XAxis { Step, Tokens, WallMs };

// What the caller supplies to create a run (status starts as queued).
struct NewRun {
  std::string project;
  std::string name;
  std::string variant;
  std::string config_json = "{}";
  std::string config_hash;
  std::int64_t n_params = 0;
  std::string device;
  RunKind kind = RunKind::Train;
  // Seeded replicas of one run of a project share a group: the run name without its seed
  // ("pha-tiny" for "pha-tiny/seed=1"; a run without seeds is a group of one, its own name).
  // Empty: no group (profile runs).
  std::string group{};
  std::int64_t seed = -1;  // training seed; -1: not recorded (stored as NULL)
  // Data-parallel training (docs/distributed.md): how many processes trained the run, and the
  // collective backend ("gloo", "nccl"; "" for one process).
  int world_size = 1;
  std::string backend{};
  // What produced the run's numbers (docs/store.md, "Provenance"): a flat JSON object of
  // strings, e.g. {"precision": "bf16", "kernels": "fused", "program.commit": "59c53af"}.
  std::string env_json = "{}";
};

// Times are milliseconds since the Unix epoch; 0 means "not set".
struct RunInfo {
  std::int64_t id = 0;
  std::string project;
  std::string name;
  std::string variant;
  RunKind kind = RunKind::Train;
  RunStatus status = RunStatus::Queued;
  std::string config_json;  // empty in list_runs() unless ListQuery::include_config
  std::string config_hash;
  std::int64_t n_params = 0;
  std::string device;
  std::int64_t created_at = 0;
  std::int64_t started_at = 0;
  std::int64_t ended_at = 0;
  std::string error;  // failure / divergence / interruption reason
  std::int64_t pid = 0;  // writer process while running (0: none)
  std::string host;      // writer host name
  std::int64_t heartbeat_at = 0;
  std::string notes;
  std::string group;       // runs.run_group ("" for none)
  std::int64_t seed = -1;  // -1: not recorded
  int world_size = 1;      // processes that trained it (schema v5; older runs: 1)
  std::string backend;     // "gloo" | "nccl" | "" (one process)
  std::string env_json = "{}";  // provenance (schema v7; older runs: "{}")
};

struct MetricPoint {
  std::int64_t step = 0;
  std::int64_t tokens = 0;
  std::int64_t wall_ms = 0;
  double value = 0.0;  // NaN is stored as NULL and read back as NaN
};

// Maintained on every flush, so listing runs never scans metrics.
struct MetricSummary {
  std::string key;
  double last = 0.0;  // value at last_step (may be NaN)
  double min = 0.0;   // over non-NaN values; NaN when there are none
  double max = 0.0;
  std::int64_t best_step = -1;  // step of min (Goal::Minimize) or max (Maximize); -1: none
  std::int64_t last_step = -1;
  std::int64_t count = 0;
};

// One downsampled bucket: a contiguous step range. min/max keep spikes, last is the value at
// the bucket's last step. x_first / x_last are in the requested XAxis units.
struct MetricBucket {
  std::int64_t step_first = 0;
  std::int64_t step_last = 0;
  double x_first = 0.0;
  double x_last = 0.0;
  double min = 0.0;
  double max = 0.0;
  double last = 0.0;
  std::int64_t count = 0;
};

struct RunListQuery {
  std::optional<std::string> project;        // all projects when empty
  std::optional<RunKind> kind;               // every kind when empty
  std::optional<std::string> group;          // only the replicas of this group
  std::vector<std::string> summary_keys;     // e.g. {"train/loss", "val/loss"}
  bool include_config = false;               // config_json is large; the browser rarely needs it
  bool newest_first = true;
};

struct RunListEntry {
  RunInfo run;
  // One entry per RunListQuery::summary_keys, in that order; nullopt when the run has no
  // points for that key.
  std::vector<std::optional<MetricSummary>> summaries;
};

struct GroupListQuery {
  std::optional<std::string> project;  // all projects when empty
  std::optional<RunKind> kind;         // every kind when empty
};

// One group of replicas as list_groups() reports it.
struct RunGroupInfo {
  std::string project;
  std::string group{};
  std::int64_t runs = 0;            // every run of the group, any status
  std::int64_t finished = 0;        // finished runs
  std::int64_t finished_seeds = 0;  // distinct seeds among the finished runs (the replicas)
  std::int64_t first_run = 0;       // smallest and largest run id
  std::int64_t last_run = 0;
};

// Mixer weights at one step: layers x branches float32, layer-major (w[l * branches + b]).
struct MixerSnapshot {
  std::int64_t step = 0;
  int layers = 0;
  int branches = 0;
  std::vector<float> weights;
};

struct PerfRow {
  std::int64_t seq_len = 0;
  std::int64_t batch = 0;
  double tokens_per_s = 0.0;
  std::int64_t peak_bytes = 0;
  std::string device;
  std::string phase;   // "train", "forward", "decode", ...
  std::string method;  // how it was measured, e.g. "median of 20 after 3 warm-up"
};

struct EvalRow {
  std::int64_t step = 0;
  std::string task;
  std::int64_t seq_len = 0;
  std::string metric;
  double value = 0.0;
};

struct CheckpointRow {
  std::int64_t step = 0;
  std::string path;
  std::int64_t bytes = 0;
  std::string sha256;
};

}  // namespace pha::store
