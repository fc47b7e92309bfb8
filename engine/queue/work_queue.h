// The engine's one work queue: what `pha train` / `pha quickstart` / `pha search` run and what
// the window's run queue runs in its worker thread. It owns the policy of a pass over queued
// work (the order, the profile skipped after an unfinished run, the one rule for shortening a
// run, the planned steps for progress and the ETA, where the pass stands) and the one way each
// kind of item is run (run_queue_item). Callers keep only their threading and presentation.
// No torch, no Qt.
//
//   runtime::WorkQueue queue(settings);
//   queue.add(runtime::project_queue(project, options));   // or add_project
//   while (auto item = queue.next(&skipped)) {               // skipped: (item, why) to report
//     const auto result = runtime::run_queue_item(*item, queue.settings(), observer, control);
//     queue.ended(*item, result);
//   }
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/events.h"
#include "runtime/job.h"
#include "project/project_queue.h"
#include "search_runner/search_job.h"

namespace pha::distributed {
class ProcessGroup;
}

namespace pha::runtime {
struct ProfileSweep;       // runtime/profiler.h
struct ProfileJobResult;   // runtime/profile_job.h
struct RunEvalResult;      // runtime/run_eval.h
}  // namespace pha::runtime

namespace pha::queue {

// How the queue runs its items (the same for every item of a pass).
struct QueueSettings {
  int threads = 0;                 // per process; 0: the machine's cores
  std::string device;              // "" : each run's training.device
  std::int64_t steps = 0;          // > 0: every training run shortened to this (shortened_training)
  // Other training keys set on every training run (the window's Training tab), applied after
  // `steps`' shortening; a JSON object.
  nlohmann::json training_overrides = nlohmann::json::object();
  int processes = 1;               // data-parallel processes per training run started here (the window)
  std::shared_ptr<distributed::ProcessGroup> group;  // this process's group when it is one rank (`pha train` under torchrun)
  std::string program;             // the `pha` that profile points, ranks and search workers run ("" : this one)
  double dist_timeout_s = 300;
  std::function<void(int world, const std::string& backend)> on_connected;  // a data-parallel run's group is up
  std::function<void(const runtime::ProfileSweep&)> on_profile_start;               // the profile's sweep is known
  std::vector<std::string> searches;  // Search: only these base variants (empty: the section's)
  bool quiet_workers = true;          // Search: the workers print only their final lines
  // The tune section planned follow-up runs and queued them (project/project_tuning.h): their
  // names, and notes on any it could not plan.
  std::function<void(const std::vector<std::string>& runs, const std::vector<std::string>& notes)> on_tuning_followups;
};

// The one rule for shortening a run to `steps` (`pha train --steps`, the window's steps field,
// the responsiveness bench): {"steps": steps}, and the warmup cut to a tenth of that when it is
// longer than the run. Throws core::Error for steps < 1.
nlohmann::json shortened_training(const project::TrainingConfig& training, std::int64_t steps);

// The training overrides `settings` give a run configured with `training`.
nlohmann::json training_overrides_for(const QueueSettings& settings, const project::TrainingConfig& training);

// The job a queued Train item trains (its project, run, resume id and resolved plan, with the
// settings' threads and device): what run_queue_item runs in this process and what a
// side-by-side worker runs (queue/side_by_side.h).
runtime::JobSpec job_spec_of(const project::QueueItem& item, const QueueSettings& settings);

// What running one item came to.
struct QueueItemResult {
  // Train / SearchTrial: job_status_name(...) ("finished", "failed", "diverged", "cancelled",
  // "interrupted"); Profile / Evaluate / Search: "finished", "cancelled" or "failed".
  std::string status = "failed";
  std::string reason;              // why it did not finish, or the error; "" when it did
  std::int64_t run_id = 0;         // Train: the stored run (0: it never reached the store)
  std::int64_t steps_done = 0;     // Train: steps trained (its last step)
  double final_loss = 0.0;         // Train
  std::shared_ptr<const runtime::ProfileJobResult> profile;  // Profile: the points and stored runs
  std::shared_ptr<const runtime::RunEvalResult> evaluation;  // Evaluate: the figures recorded
  std::shared_ptr<const search_runner::SearchResult> search;       // Search / SearchTrial
  std::exception_ptr error;        // the exception that made it fail before it ran (`pha train` rethrows it)
  bool finished() const { return status == "finished"; }
};

// Runs one item in the calling thread (blocks; checks `control`). Bad input (a project, a run,
// a section) ends as status "failed" with the core::Error's message as the reason: nothing is
// thrown, nothing is written. `observer` gets the runs' events; a search's rung starts and
// decisions too.
QueueItemResult run_queue_item(const project::QueueItem& item, const QueueSettings& settings, search_runner::SearchObserver& observer,
                               runtime::RunControl& control);

// The queue's ETA: the current run's steps left at its own measured seconds per step, plus the
// pending runs' steps at the mean seconds per step measured so far in this pass (every run
// trained in it, the current one included). -1 when nothing is measured yet.
double queue_eta_seconds(double current_seconds_per_step, std::int64_t current_steps_left,
                         double queue_seconds_per_step, std::int64_t pending_steps);

// Where a pass stands: "run 2 of 3: transformer-tiny, then sequential-tiny and the profile".
struct QueuePosition {
  int run = 0;                     // the current training run's number in this pass (1-based; 0: none)
  int runs = 0;                    // training runs in this pass (started + pending)
  std::vector<project::QueueItem> next;     // what follows, in order
  std::int64_t pending_steps = 0;  // the pending training runs' planned steps
  bool profile_next = false;       // an efficiency profile is still pending
};

class WorkQueue {
 public:
  explicit WorkQueue(QueueSettings settings = {});

  const QueueSettings& settings() const { return settings_; }
  QueueSettings& settings() { return settings_; }

  // Items join the pass (a training item's planned steps are computed here when `project` is
  // given: its training.steps, or the shortened steps of the settings).
  void add(std::vector<project::QueueItem> items, const project::Project* project = nullptr);
  // project_queue(project, options), added.
  void add_project(const project::Project& project, const project::QueueOptions& options);

  // The next item to start, after dropping the pending ones the policy refuses (each with its
  // reason in *skipped): a profile after a pass in which a training run did not finish.
  // nullopt when nothing is left: the pass is over and its counters start again.
  std::optional<project::QueueItem> next(std::vector<std::pair<project::QueueItem, std::string>>* skipped = nullptr);
  // Side by side (`pha train --jobs`, the window's "runs at once": queue/side_by_side.h): `first`
  // (a Train item `next` gave) and the training runs pending right after it, up to the first
  // item of another kind and at most `max` runs in all, all live from now on. A project's tune
  // follow-ups are planned when its last live or pending run has ended (ended()), so from every
  // run's result, as one after another.
  std::vector<project::QueueItem> with_trains_after(const project::QueueItem& first, std::size_t max);
  // Live items that never started (a cancel came first) go back to the front, in order.
  void put_back(const std::vector<project::QueueItem>& items);
  // An item `next` or `with_trains_after` gave has ended. The last queued training run of a project whose tune section
  // plans follow-ups (QueueItem::tuning_followups) queues them, before the project's profile.
  void ended(const project::QueueItem& item, const QueueItemResult& result);
  void clear();  // drops the pending items (the current one is the caller's to cancel)

  bool empty() const { return pending_.empty(); }
  bool busy() const { return !live_.empty(); }
  // The first live item (the only one unless runs train side by side); nullopt when idle.
  std::optional<project::QueueItem> current() const {
    return live_.empty() ? std::nullopt : std::optional<project::QueueItem>(live_.front());
  }
  const std::vector<project::QueueItem>& live() const { return live_; }
  std::size_t pending() const { return pending_.size(); }
  int unfinished() const { return unfinished_; }
  QueuePosition position() const;

 private:
  void queue_tuning_followups(const project::QueueItem& item);
  // A Train item's plan (QueueItem::plan): the project's run with training_overrides_for applied.
  // core::Error naming the field for an override the run refuses.
  void plan_training(project::QueueItem& item, const project::Project& project) const;

  QueueSettings settings_;
  std::vector<project::QueueItem> pending_;
  std::vector<project::QueueItem> live_;  // started and not ended (several when side by side)
  int unfinished_ = 0;     // training runs (and searches) of this pass that did not finish
  int runs_started_ = 0;   // training runs started in this pass
};

}  // namespace pha::queue
