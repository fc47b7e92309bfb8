// The engine's one scheduler of independent worker processes: up to `jobs` programs at a time,
// each started with posix_spawn (the parent never forks a process that runs torch threads), the
// next started as soon as one ends; a cancel reaches every live worker as SIGINT (each
// checkpoints and ends cancelled) and no new one starts. `pha search --jobs` runs its rung runs
// through it. No torch, no Qt.
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

// Runs argvs[i] (argvs[i][0]: the program's path) in worker processes, at most `jobs` at once,
// in order; returns when every started worker has ended. `started(i)` is called just after
// worker i starts, `ended(i, status)` when it has ended (status as waitpid gives it). Throws
// core::Error naming the program when a worker cannot be started (the workers already running
// are waited for first).
void run_worker_pool(const std::vector<std::vector<std::string>>& argvs, int jobs, RunControl& control,
                     const std::function<void(std::size_t)>& started,
                     const std::function<void(std::size_t, int)>& ended);

}  // namespace pha::runtime
