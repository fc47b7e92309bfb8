// Training runs side by side: `pha train --jobs N` and the window's "runs at once". Each run of
// the batch trains in a `pha __train-job` worker process (runtime::run_worker_pool, the engine's
// one scheduler of worker processes, as the search's rung runs), at most `jobs` at once, each with
// its own threads from its plan's rule (project/run_threads.h), so a run computes the same
// numbers whatever runs beside it. The workers write the store themselves and send their events
// back as JSON lines (runtime/event_stream.h), replayed here into each run's observer. Pause and
// cancel reach every live worker. No torch, no Qt.
//
//   auto batch = queue.with_trains_after(*item, SIZE_MAX);
//   queue::run_side_by_side(batch, queue.settings(), jobs, control, hooks);
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "queue/work_queue.h"
#include "runtime/events.h"
#include "runtime/job.h"

namespace pha::queue {

struct SideBySideHooks {
  std::function<runtime::RunObserver&(std::size_t)> observer;  // item i's events (required)
  std::function<void(std::size_t)> started;                     // item i's worker started
  std::function<void(std::size_t, const QueueItemResult&)> ended;  // item i ended (every item that started)
};

// Trains `items` (Train items) in worker processes, at most `jobs` at once, in order; returns the
// indices of the items that never started (a cancel came first), for WorkQueue::put_back.
// Throws core::Error when the program cannot be started.
std::vector<std::size_t> run_side_by_side(const std::vector<project::QueueItem>& items, const QueueSettings& settings,
                                          int jobs, runtime::RunControl& control, const SideBySideHooks& hooks);

// The worker's side (`pha __train-job SPEC`): runs the job, its events and result on the
// descriptor $PHA_EVENT_FD names (none: on no descriptor), pause on SIGUSR1 / SIGUSR2 and cancel
// on SIGINT / SIGTERM handled by the caller. Returns the result.
runtime::JobResult run_side_by_side_worker(const nlohmann::json& spec, runtime::RunControl& control,
                                           runtime::RunObserver* also);

}  // namespace pha::queue
