// Local data parallel for a caller that is itself rank 0 (the window, docs/gui.md "Processes"):
// its thread joins the process group and runs the same run_job as one process, with its own
// observer (live curves, mixer snapshots), while ranks 1 .. N-1 run in `pha __train-rank`
// worker processes started here. The workers receive the spec itself (job_spec_to_json), so
// they cannot build a different run; job.cpp checks on every rank that they agree anyway. No
// torch, no Qt here.
//
//   runtime::LocalParallelOptions o{2, "/usr/bin/pha"};
//   JobResult r = runtime::run_job_local_parallel(spec, o, observer, control);  // blocks
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/job.h"

namespace pha::runtime {

struct LocalParallelOptions {
  int processes = 1;     // world size; 1: plain run_job
  std::string program;   // the `pha` executable the workers run
  double timeout_s = 300;  // rendezvous and every collective (PHA_DIST_TIMEOUT's meaning)
  // Called from the calling thread once the group is connected: (world size, backend).
  std::function<void(int, const std::string&)> on_connected;
};

// The spec as JSON and back: everything but the group (a worker connects its own).
nlohmann::json job_spec_to_json(const JobSpec& spec);
JobSpec job_spec_from_json(const nlohmann::json& j);  // a missing or mistyped field: core::Error

// Starts processes - 1 workers, connects this thread as rank 0 and calls run_job(spec, ...)
// with the group. Each rank gets spec.threads threads, or cores / processes when it is 0. Bad
// input throws before any worker starts (as run_job does). A worker that dies makes rank 0's
// next collective fail (or time out), and the run ends failed with the worker's exit in the
// reason; Cancel reaches every rank at the same step (run_job). On every return or throw the
// workers have ended: a worker still running 5 s after rank 0 is done gets SIGKILL.
JobResult run_job_local_parallel(JobSpec spec, const LocalParallelOptions& options, RunObserver& observer,
                                 RunControl& control);

}  // namespace pha::runtime
