// Running one run of a project: the API the GUI's worker thread and the headless CLI call. No
// torch, no Qt here.
//
//   auto names = pha::runtime::runs_to_make("projects/quickstart");   // queue order
//   pha::runtime::JobSpec spec;  spec.project = "projects/quickstart";  spec.run = names[0];
//   JobResult r = pha::runtime::run_job(spec, observer, control);      // blocks; call it in a worker
//
// run_job validates everything it can (project, data files, device) before it writes anything:
// bad input throws core::Error (naming the field or file) and leaves the store untouched. Once
// the run exists in the store, failures do not throw: they end the run as failed (or diverged),
// reported through the observer and the returned JobResult. The run is recorded in the
// project's runs.sqlite and its checkpoints under checkpoints/run-<id>/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "project/project.h"
#include "runtime/events.h"

namespace pha::distributed {
class ProcessGroup;  // distributed/process_group.h
}

namespace pha::runtime {

// The project (ProjectSource, project/project.h): the folder, and the project as read when the
// run was queued (QueueItem::resolved), in which `run` is looked up without reading the file
// again; a data-parallel worker receives it serialised (job_spec_to_json).
struct JobSpec : project::ProjectSource {
  std::string run;                  // a name from runs_to_make(); empty: the project's first run
  std::int64_t resume_run_id = 0;   // continue this run (same store) from its last checkpoint
  // Train this run (same store, same name) again from the start under its own id: a run that
  // was cancelled or interrupted before it wrote a checkpoint (store::restart_run empties it),
  // so that continuing a search never leaves two runs for one rung run.
  std::int64_t restart_run_id = 0;
  int threads = 0;                  // 0: training.threads, else all cores / $PHA_THREADS
  std::string device;               // "": training.device
  std::string store_path;           // "": <project>/runs.sqlite
  // The run to train, resolved once before the job (project::RunPlan): a queued run with the
  // queue's overrides applied (queue::WorkQueue::add, project::with_training), a search trial
  // (search_runner/search_job.h); trained as given, never re-read or re-merged. null: the
  // project's run named `run`, as project.json states it. Resuming needs the same name.
  std::shared_ptr<const project::RunPlan> plan;
  // A new run that starts from this checkpoint file (model, optimizer, step, tokens): a branch
  // off another run, e.g. a WSD cooldown off the stable phase. Ignored when resuming.
  std::string branch_from;
  // false: no checkpoint at the end of a finished run (a search rung that nothing continues
  // from); a cancelled run still writes one, and a WSD run its pre-cooldown one.
  bool final_checkpoint = true;
  // Data-parallel (docs/distributed.md): every rank calls run_job with the same spec and its
  // connected group; rank 0 alone writes the store and the checkpoints. null: one process.
  std::shared_ptr<distributed::ProcessGroup> group;
};

struct JobResult {
  std::int64_t run_id = 0;
  JobStatus status = JobStatus::Failed;
  std::string reason;               // failure / divergence / cancellation message
  std::int64_t steps_done = 0;
  double final_loss = 0.0;          // last training loss
  std::string last_checkpoint;      // path, empty when none was written
};

// The project's runs in queue order (variants x grid). Throws core::Error for a bad project.
std::vector<std::string> runs_to_make(const std::string& project);

// Runs (or resumes) one run to its end, cancellation or divergence. Blocks; checks `control`
// every step (pause waits, cancel writes a checkpoint, then ends the run as cancelled).
JobResult run_job(const JobSpec& spec, RunObserver& observer, RunControl& control);

}  // namespace pha::runtime
