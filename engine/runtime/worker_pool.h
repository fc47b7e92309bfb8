// The engine's one scheduler of independent worker processes: up to `jobs` programs at a time,
// each started with posix_spawn (the parent never forks a process that runs torch threads) in the
// parent's process group (a terminal's Ctrl-Z stops them all, `fg` resumes them), the next
// started as soon as one ends; a cancel reaches every live worker as SIGINT (each checkpoints and
// ends cancelled; a worker takes a second SIGINT, the terminal's, as the same cancel) and no new
// one starts. `pha search --jobs` runs its rung runs
// through it, `pha train --jobs` and the window's queue their side-by-side runs
// (queue/side_by_side.h). No torch, no Qt.
//
//   runtime::run_worker_pool(argvs, 2, control, [&](size_t i) { /* started */ },
//                            [&](size_t i, int status) { /* ended: waitpid status */ });
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "runtime/events.h"

namespace pha::runtime {

// What a pool offers beyond starting and waiting.
struct WorkerPoolOptions {
  // Each worker gets a pipe on descriptor 3 (named to it by $PHA_EVENT_FD, runtime/event_stream.h)
  // and every complete line it writes there is given here, on the caller's thread, in order; the
  // lines a worker wrote before it ended all arrive before its `ended`.
  std::function<void(std::size_t, const std::string&)> on_line;
  // control.paused() is passed on: SIGUSR1 to every live worker when it turns true, SIGUSR2 when
  // it turns false (the workers hold both blocked until they handle them), and no worker starts
  // while paused. For workers that handle the two signals (`pha __train-job`).
  bool forward_pause = false;
};

// Runs argvs[i] (argvs[i][0]: the program's path) in worker processes, at most `jobs` at once,
// in order; returns when every started worker has ended. `started(i)` is called just after
// worker i starts, `ended(i, status)` when it has ended (status as waitpid gives it). Throws
// core::Error naming the program when a worker cannot be started (the workers already running
// are waited for first).
void run_worker_pool(const std::vector<std::vector<std::string>>& argvs, int jobs, RunControl& control,
                     const std::function<void(std::size_t)>& started,
                     const std::function<void(std::size_t, int)>& ended, const WorkerPoolOptions& options = {});

}  // namespace pha::runtime
