// One measurement in a fresh worker process: `exe <args...>` started with posix_spawn (the parent
// never forks a process that runs torch threads), its stdout read until it exits, and the last
// stdout line that holds a JSON object returned. The efficiency profiler (profiler.h) and the
// inference benchmark (inference_bench.h) both measure each point this way, so a point's peak
// resident memory is its own. No torch.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "runtime/events.h"

namespace pha::runtime {

struct WorkerAnswer {
  std::string json_line;  // the answer; empty when error is set
  std::string error;      // "cancelled", "timed out after N s", "worker killed by signal ...", "no JSON answer ..."
  int64_t started_ms = 0, ended_ms = 0;  // wall clock (ms since the epoch)
};

// Throws core::Error naming exe when it cannot be started. A worker that crashes, is killed or
// exceeds timeout_s gives an answer with `error` set; when `control` asks to cancel, the worker
// is killed and the error is "cancelled".
WorkerAnswer run_json_worker(const std::string& exe, const std::vector<std::string>& args, int timeout_s,
                             const RunControl* control);

// One point measured in a worker: `exe <command> --spec <spec as JSON>`, its answer parsed by
// `parse` into a Result (a struct with `spec`, `error`, `started_ms` and `ended_ms`); the worker's
// start and end times are the answer's. A worker that failed, or an answer that does not parse,
// gives a Result with `spec` and `error` set ("the worker's answer is not <what>: ..."). The
// profiler's and the inference benchmark's points both go through here.
template <class Result, class Spec, class Parse>
Result measure_in_worker(const std::string& exe, const char* command, const Spec& spec, const std::string& spec_json,
                         int timeout_s, const RunControl* control, const char* what, Parse parse) {
  Result r;
  r.spec = spec;
  const WorkerAnswer a = run_json_worker(exe, {command, "--spec", spec_json}, timeout_s, control);
  r.started_ms = a.started_ms;
  r.ended_ms = a.ended_ms;
  if (!a.error.empty()) {
    r.error = a.error;
    return r;
  }
  try {
    Result got = parse(a.json_line);
    got.started_ms = r.started_ms;
    got.ended_ms = r.ended_ms;
    return got;
  } catch (const std::exception& e) {
    r.error = std::string("the worker's answer is not ") + what + ": " + e.what();
    return r;
  }
}

}  // namespace pha::runtime
