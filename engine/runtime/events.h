// The engine's event interface (no Qt, no torch): what a running job tells its observers.
// The trainer calls a RunObserver from its own thread; observers must be quick and thread-safe
// (the GUI's observer copies the event into a queue and returns; the CLI prints). RunControl
// is how another thread asks the job to pause, resume or cancel; the trainer checks it every
// step.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "store/types.h"

namespace pha::runtime {

enum class JobStatus { Queued, Running, Paused, Finished, Failed, Cancelled, Diverged, Interrupted };
const char* job_status_name(JobStatus s);  // "queued", "running", ... (store names)

struct StepMetrics {
  std::int64_t run_id = 0;
  std::int64_t step = 0;         // optimizer steps done (1-based after the first step)
  std::int64_t total_steps = 0;
  std::int64_t tokens = 0;       // training tokens seen so far
  double wall_s = 0.0;           // seconds since the run started (excluding pauses)
  double loss = 0.0;             // mean token NLL of this step (nats)
  double perplexity = 0.0;       // exp(loss)
  double learning_rate = 0.0;
  double grad_norm = 0.0;        // global L2 norm before clipping
  double tokens_per_s = 0.0;     // this step's throughput
  std::int64_t memory_bytes = 0; // peak RSS (CPU) or CUDA allocator peak so far
  double eta_s = -1.0;           // estimated seconds left, -1 when unknown
};

struct MixerEvent {
  std::int64_t run_id = 0;
  std::int64_t step = 0;
  int layers = 0;
  int branches = 0;              // 3: gss, attn, ffn
  std::vector<float> weights;    // layer-major; NaN rows for layers without a mixer
};

struct BranchNormEvent {
  std::int64_t run_id = 0;
  std::int64_t step = 0;
  int layers = 0;
  int branches = 0;
  std::vector<float> rms;        // layer-major; NaN where absent
};

struct EvalEvent {
  std::int64_t run_id = 0;
  std::int64_t step = 0;
  std::string split;             // "valid", "test", or a task/eval-set name
  std::string metric;            // "loss", "perplexity", "bpb", "accuracy", "macro_accuracy", "exact_match"
  std::int64_t seq_len = 0;      // 0 unless a length sweep
  double value = 0.0;
};

// One efficiency point of a profile (runtime/profiler.h): its row as the store records it
// (perf_row), or why it failed.
struct EfficiencyEvent {
  std::string variant;
  store::PerfRow row;
  std::string error;             // non-empty: the point failed (row.tokens_per_s is 0)
};

struct LogEvent {
  std::int64_t run_id = 0;
  enum class Level { Info, Warning, Error } level = Level::Info;
  std::string message;
};

struct StatusEvent {
  std::int64_t run_id = 0;
  JobStatus status = JobStatus::Queued;
  std::string reason;            // failure / divergence message, empty otherwise
};

// Default implementations ignore the event.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_step(const StepMetrics&) {}
  virtual void on_mixer(const MixerEvent&) {}
  virtual void on_branch_norms(const BranchNormEvent&) {}
  virtual void on_eval(const EvalEvent&) {}
  virtual void on_efficiency(const EfficiencyEvent&) {}
  virtual void on_log(const LogEvent&) {}
  virtual void on_status(const StatusEvent&) {}
};

// Shared between the job's thread and its controller.
class RunControl {
 public:
  void request_cancel() { cancel_.store(true); }
  void set_paused(bool paused) { paused_.store(paused); }
  bool cancel_requested() const { return cancel_.load(); }
  bool paused() const { return paused_.load(); }
  void reset() { cancel_.store(false); paused_.store(false); }

 private:
  std::atomic<bool> cancel_{false};
  std::atomic<bool> paused_{false};
};

}  // namespace pha::runtime
