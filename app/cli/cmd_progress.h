// The CLI's RunObserver: a progress line with ETA on a terminal (rewritten in place, at most
// ~10 times a second), plain lines when stderr is not a TTY (one per ~5% of the run or 10 s),
// log and evaluation lines, and SIGINT / SIGTERM turned into a graceful cancel.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "core/duration_format.h"
#include "runtime/events.h"

namespace pha::cli {

class ProgressPrinter : public runtime::RunObserver {
 public:
  // lines: plain lines even on a terminal (runs side by side share it).
  explicit ProgressPrinter(std::string label, bool quiet = false, bool lines = false);
  ~ProgressPrinter() override;
  void on_step(const runtime::StepMetrics& m) override;
  void on_eval(const runtime::EvalEvent& e) override;
  void on_log(const runtime::LogEvent& e) override;
  void on_status(const runtime::StatusEvent& e) override;
  void on_efficiency(const runtime::EfficiencyEvent& e) override;

 private:
  void end_line();
  std::string label_;
  bool quiet_;
  bool tty_;
  bool line_open_ = false;
  std::chrono::steady_clock::time_point last_print_{};
  int64_t last_bucket_ = -1;
};

// While alive, SIGINT and SIGTERM request a cancel on `control` (a second signal exits at once,
// except in a worker process: `worker` true, where a terminal's Ctrl-C and the one its parent
// passes on both arrive, and a cancel always ends with its checkpoint).
class CancelOnSignal {
 public:
  explicit CancelOnSignal(runtime::RunControl& control, bool worker = false);
  ~CancelOnSignal();
  bool triggered() const;
};

// While alive, SIGUSR1 pauses `control` and SIGUSR2 resumes it: how a side-by-side worker
// (`pha __train-job`) is paused by the process that started it (runtime/worker_pool.h). Unblocks
// the two signals, which the pool starts the worker with blocked.
class PauseOnSignal {
 public:
  explicit PauseOnSignal(runtime::RunControl& control);
  ~PauseOnSignal();
};

// Durations: pha::format_duration (core/duration_format.h), included above for the commands.
std::string format_bytes(int64_t bytes);  // "978 MB"

}  // namespace pha::cli
