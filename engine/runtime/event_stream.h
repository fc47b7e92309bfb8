// A run's events as JSON lines, from a worker process to the process that started it: how
// `pha train --jobs N` and the window's queue see the live curves, the mixer and the end of runs
// that train side by side in `pha __train-job` workers (queue/side_by_side.h). The worker writes
// to the file descriptor named by $PHA_EVENT_FD; the parent reads the lines and replays them into
// its own RunObserver. Plain C++: no torch, no Qt.
//
//   runtime::EventWriter out(fd);                     // worker: observer of run_job
//   out.result(run_job(spec, out, control));          // ... and its result, last
//   runtime::replay_event_line(line, observer, &r);   // parent: one line in, true at the result
#pragma once

#include <string>

#include "runtime/events.h"
#include "runtime/job.h"

namespace pha::runtime {

// The environment variable a worker reads its event descriptor from.
inline constexpr const char* kEventFdEnv = "PHA_EVENT_FD";

class EventWriter : public RunObserver {
 public:
  explicit EventWriter(int fd) : fd_(fd) {}
  void on_step(const StepMetrics& m) override;
  void on_mixer(const MixerEvent& e) override;
  void on_branch_norms(const BranchNormEvent& e) override;
  void on_eval(const EvalEvent& e) override;
  void on_log(const LogEvent& e) override;
  void on_status(const StatusEvent& e) override;
  void result(const JobResult& r);  // the last line

 private:
  void write_line(const std::string& text);
  int fd_;
};

// One line an EventWriter wrote: the event is given to `observer`; a result line fills *result
// and returns true. A line that is not one (a torn or foreign line) is ignored: false.
bool replay_event_line(const std::string& line, RunObserver& observer, JobResult* result);

}  // namespace pha::runtime
