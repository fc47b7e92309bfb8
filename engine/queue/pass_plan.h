// A pass over a project, planned once: the one route from project.json to the queue's items for
// `pha train` and the window's Run alike. The project is read once, with the tune follow-ups its
// store already plans (project/project_tuning.h); the runs its store already trained with their
// configuration are listed (project::trained_runs); the items then hold that plan
// (QueueItem::resolved), so an edit of project.json after Run changes nothing queued, and the
// same project and request give the CLI and the window equal items. No torch, no Qt.
//
//   const queue::PassPlan plan = queue::read_pass(dir);      // project.json and the store, once
//   ... the window asks about plan.trained; `pha train --only-new` leaves them out ...
//   queue.add(queue::pass_items(plan, request), plan.project.get());
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "project/project.h"
#include "project/project_queue.h"

namespace pha::queue {

// What a caller asks of a pass (`pha train`'s options, the window's choice).
struct PassRequest {
  std::vector<std::string> runs;    // only these runs, in this order (empty: every run, in project order)
  std::int64_t resume_run_id = 0;   // resume this stored run from its last checkpoint
  bool profile = true;              // the efficiency profile after a whole pass, when project.json asks for it
  // Leave out the runs `PassPlan::trained` lists (`pha train --only-new`, the window's "Train
  // only the new runs"); the tune section's follow-ups are then planned when the rest ends.
  bool only_new = false;
};

// A project as one pass reads it.
struct PassPlan {
  std::shared_ptr<const project::Project> project;  // project.json with the follow-ups the store plans
  std::vector<std::string> notes;                   // the tune section's notes on what it could not plan
  std::vector<project::TrainedRun> trained;         // already trained with their configuration, project order
  std::string store_problem;                        // why the store could not say what is trained ("" : it could)
};

// Reads the project at `project_dir` and its store once. Throws core::Error naming the file and
// field for a bad project. An unreadable store is not an error here (it is the run's, when it
// opens it): `trained` is then empty and store_problem says why.
PassPlan read_pass(const std::string& project_dir);

// The queue's items for `request` (each holding plan.project): empty when only_new leaves nothing
// to train. Throws core::Error for an unknown run name or resume id (project::project_queue), and
// for only_new when the store could not be read (store_problem).
std::vector<project::QueueItem> pass_items(const PassPlan& plan, const PassRequest& request);

// The runs pass_items leaves out for `request` (only_new: those `trained` lists among the wanted
// ones), in project order: what the CLI prints and the window says before it starts.
std::vector<project::TrainedRun> left_out(const PassPlan& plan, const PassRequest& request);

// One queued item as JSON (kind, run, resume_run_id, planned_steps, training_overrides,
// tuning_followups, after_finished_runs, project, and a run's config as the plan holds it): `pha train --print-queue` prints a pass this
// way, and the test that the CLI and the window queue equal passes compares these.
nlohmann::json queue_item_json(const project::QueueItem& item);

}  // namespace pha::queue
