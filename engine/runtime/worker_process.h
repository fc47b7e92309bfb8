// One measurement in a fresh worker process: `exe <args...>` started with posix_spawn (the parent
// never forks a process that runs torch threads), its stdout read until it exits, and the last
// stdout line that holds a JSON object returned. The efficiency profiler (profiler.h) and the
// inference benchmark (inference_bench.h) both measure each point this way, so a point's peak
// resident memory is its own. No torch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/events.h"

namespace pha::runtime {

struct WorkerAnswer {
  std::string json_line;  // the answer; empty when error is set
  std::string error;      // "cancelled", "timed out after N s", "worker killed by signal ...", "no JSON answer ..."
  int64_t started_ms = 0, ended_ms = 0;  // wall clock (ms since the epoch)
};

// Throws pha::Error naming exe when it cannot be started. A worker that crashes, is killed or
// exceeds timeout_s gives an answer with `error` set; when `control` asks to cancel, the worker
// is killed and the error is "cancelled".
WorkerAnswer run_json_worker(const std::string& exe, const std::vector<std::string>& args, int timeout_s,
                             const RunControl* control);

}  // namespace pha::runtime
