// The queue of a project's work, in order: its training runs, then the efficiency profile when
// project.json's "profile" section asks for it after the runs. This file owns that policy:
// `pha train` / `pha quickstart` run the items one after another, the window's run queue
// enqueues them, and the list lets either say where it is ("run 2 of 3, then the profile").
// No torch, no Qt.
//
//   const auto items = runtime::project_queue(runtime::load_project(dir), {});
//   int unfinished = 0;
//   for (const auto& item : items) {
//     if (!runtime::skip_reason(item, unfinished).empty()) continue;
//     ... run_job / run_profile_job; a training run that does not finish: ++unfinished
//   }
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "project/project.h"

namespace pha::project {

// Train: a run of the project. Profile: its efficiency profile. Evaluate: a stored run evaluated
// again (`pha eval`). Search: the project's architecture search (`pha search`). SearchTrial:
// one rung run of it (`pha search --only ID`, what a search worker trains).
enum class QueueItemKind { Train, Profile, Evaluate, Search, SearchTrial };

struct QueueItem {
  QueueItemKind kind = QueueItemKind::Train;
  std::string run;                   // Train: the run's name in the project; SearchTrial: the SearchJobId text
  std::int64_t resume_run_id = 0;    // Train: continue this stored run from its last checkpoint
  // The profile after the runs measures a complete pass: it starts only when every training
  // item before it finished (skip_reason).
  bool after_finished_runs = false;
  std::string project;               // the project folder (Evaluate: the store's path)
  std::int64_t eval_run_id = 0;      // Evaluate: the stored run
  int search_jobs = 1;               // Search: rung runs at once (> 1: `pha search --only` workers)
  std::int64_t planned_steps = 0;    // Train: its steps after the queue's overrides (progress, ETA); else 0
  // Train: the training keys the queue sets on it (WorkQueue::add: training_overrides_for), as a
  // record of what the queue changed; `plan` holds them applied.
  nlohmann::json training_overrides = nlohmann::json::object();
  // Train: the run to train, resolved once when queued (WorkQueue::add: the project's run with
  // the overrides, project::with_training); the trainer takes it as it is. null: the run as
  // `resolved` (or project.json when it starts) states it.
  std::shared_ptr<const RunPlan> plan;
  // Train / Profile: the project as it was read when the item was queued (project_queue sets
  // it, shared by the items of one call): the trainer trains this plan, not the file as it is
  // when the item starts (an edit of project.json in between does not change a queued run).
  // null: the item reads `project` when it starts.
  std::shared_ptr<const Project> resolved;
  // Train: when the last queued run of its project ends, the queue plans the project's tune
  // follow-ups (project/project_tuning.h) and queues them before its profile.
  bool tuning_followups = false;
};

struct QueueOptions {
  std::vector<std::string> runs;     // only these runs, in this order (empty: all, in project order)
  std::int64_t resume_run_id = 0;    // resume this stored run (it names the run when several exist)
  bool profile = true;               // false: no profile after the runs (`--no-profile`)
  // Plan the tune section's follow-up runs when the queued runs end: always when the whole
  // project is queued (no `runs`, no resume); with `runs` only when set (`pha train --only-new`).
  bool tuning_followups = false;
};

// The items for `options` (each holding a copy of `project`: QueueItem::resolved): the chosen runs, then the profile when the whole project is trained
// from the start (no `runs`, no resume), `profile` is on, and project.json has a "profile"
// section with after_runs. Throws core::Error naming the run for an unknown run name, or the
// store for a resume id it does not hold.
std::vector<QueueItem> project_queue(const Project& project, const QueueOptions& options);

// A run of the project that its store already holds finished with the same name and
// configuration: on CPU the same seed trains to the same result, so training it again repeats
// it. The window asks before it does (train only the runs not trained yet, or all again).
struct TrainedRun {
  std::string run;             // the run's name in the project
  std::int64_t run_id = 0;     // its newest finished stored run with that configuration
  std::string stored_name;     // that run's name in the store (differs when it was renamed)
};
// In project order; empty when the store does not exist yet. Reads the store, writes nothing.
// The one rule for "already trained": the window's confirmation, its plan and `pha plan` all
// read it (a plan's state is "finished" exactly when this lists it).
// A plan's run is its newest finished stored run named like it with its configuration; else
// (renamed in the run table) the newest finished one with its configuration whatever its name,
// unless that name is another plan's (so two plans never claim one run). The stored config
// holds the plan's name ("run"), so a renamed run still equals only its own plan's config.
std::vector<TrainedRun> trained_runs(const Project& project);
// Equal stored run configs (the "config" a RunPlan records), the model sections compared in
// their canonical form (a run stored before a model key existed was trained with the value its
// absence means: model_config.h). The one rule for "already trained with this config".
bool same_run_config(nlohmann::json a, nlohmann::json b);

// Why `item` is not to be started, given how many training items before it did not finish
// (failed, diverged, cancelled): "" when it is to be started.
std::string skip_reason(const QueueItem& item, int unfinished_runs_before);

}  // namespace pha::project
