#include "queue/work_queue.h"

#include <algorithm>
#include <exception>

#include "core/error.h"
#include "project/project_tuning.h"
#include "runtime/job.h"
#include "runtime/local_parallel.h"
#include "runtime/profile_job.h"
#include "runtime/run_eval.h"

namespace pha::queue {

using nlohmann::json;

json shortened_training(const project::TrainingConfig& training, std::int64_t steps) {
  if (steps < 1) throw core::Error("steps", "must be at least 1 to shorten a run (got " + std::to_string(steps) + ")");
  json j = {{"steps", steps}};
  // A warmup given as a fraction of the steps shortens with them (training.warmup_fraction).
  if (training.warmup_fraction <= 0 && training.warmup_steps > steps) j["warmup_steps"] = steps / 10;
  return j;
}

json training_overrides_for(const QueueSettings& settings, const project::TrainingConfig& training) {
  json j = settings.steps > 0 ? shortened_training(training, settings.steps) : json::object();
  if (settings.training_overrides.is_object()) {
    // A steps value among the window's overrides is a shortening too: the same rule.
    if (settings.training_overrides.contains("steps") && settings.training_overrides["steps"].is_number_integer()) {
      const auto steps = settings.training_overrides["steps"].get<std::int64_t>();
      if (steps >= 1) j.merge_patch(shortened_training(training, steps));
    }
    for (const auto& [k, v] : settings.training_overrides.items())
      if (k != "steps") j[k] = v;
  }
  return j;
}

namespace {

// The one way a queued item names its project to the job that runs it.
project::ProjectSource source_of(const project::QueueItem& item) { return {item.project, item.resolved}; }

}  // namespace

runtime::JobSpec job_spec_of(const project::QueueItem& item, const QueueSettings& settings) {
  runtime::JobSpec spec;
  static_cast<project::ProjectSource&>(spec) = source_of(item);
  spec.run = item.run;
  spec.resume_run_id = item.resume_run_id;
  spec.threads = settings.threads;
  spec.device = settings.device;
  spec.plan = item.plan;  // resolved when queued (WorkQueue::add)
  return spec;
}

namespace {

QueueItemResult run_train(const project::QueueItem& item, const QueueSettings& settings, runtime::RunObserver& observer,
                          runtime::RunControl& control) {
  runtime::JobSpec spec = job_spec_of(item, settings);
  runtime::JobResult r;
  if (settings.group) {  // this process is one rank of a group its launcher made
    spec.group = settings.group;
    r = runtime::run_job(spec, observer, control);
  } else {  // one process: run_job itself; N: the same run_job as rank 0 of a local group
    runtime::LocalParallelOptions parallel;
    parallel.processes = std::max(1, settings.processes);
    parallel.program = settings.program;
    parallel.timeout_s = settings.dist_timeout_s;
    parallel.on_connected = settings.on_connected;
    r = runtime::run_job_local_parallel(spec, parallel, observer, control);
  }
  QueueItemResult out;
  out.status = runtime::job_status_name(r.status);
  out.reason = r.reason;
  out.run_id = r.run_id;
  out.steps_done = r.steps_done;
  out.final_loss = r.final_loss;
  return out;
}

QueueItemResult run_profile(const project::QueueItem& item, const QueueSettings& settings, runtime::RunObserver& observer,
                            runtime::RunControl& control) {
  runtime::ProfileJobSpec spec;
  static_cast<project::ProjectSource&>(spec) = source_of(item);
  spec.threads = settings.threads;
  spec.program = settings.program;
  spec.on_start = settings.on_profile_start;
  auto r = std::make_shared<runtime::ProfileJobResult>(runtime::run_profile_job(spec, observer, control));
  QueueItemResult out;
  out.status = r->cancelled ? "cancelled" : "finished";
  out.profile = std::move(r);
  return out;
}

QueueItemResult run_evaluation(const project::QueueItem& item, runtime::RunControl&) {
  QueueItemResult out;
  out.evaluation = std::make_shared<runtime::RunEvalResult>(runtime::evaluate_run(item.project, item.eval_run_id, runtime::RunEvalOptions{}));
  out.status = "finished";
  out.run_id = item.eval_run_id;
  return out;
}

QueueItemResult run_search_item(const project::QueueItem& item, const QueueSettings& settings, search_runner::SearchObserver& observer,
                                runtime::RunControl& control) {
  search_runner::SearchOptions options;
  options.jobs = item.kind == project::QueueItemKind::SearchTrial ? 1 : std::max(1, item.search_jobs);
  options.only = item.kind == project::QueueItemKind::SearchTrial ? item.run : "";
  options.searches = settings.searches;
  options.program = settings.program;
  options.quiet_workers = settings.quiet_workers;
  options.nproc = settings.group ? 1 : std::max(1, settings.processes);  // each rung run data parallel
  auto r = std::make_shared<search_runner::SearchResult>(search_runner::run_search(item.project, options, observer, control));
  QueueItemResult out;
  out.status = r->cancelled ? "cancelled" : "finished";
  out.search = std::move(r);
  return out;
}

bool is_training(project::QueueItemKind k) { return k == project::QueueItemKind::Train; }

}  // namespace

QueueItemResult run_queue_item(const project::QueueItem& item, const QueueSettings& settings, search_runner::SearchObserver& observer,
                               runtime::RunControl& control) {
  try {
    switch (item.kind) {
      case project::QueueItemKind::Train: return run_train(item, settings, observer, control);
      case project::QueueItemKind::Profile: return run_profile(item, settings, observer, control);
      case project::QueueItemKind::Evaluate: return run_evaluation(item, control);
      case project::QueueItemKind::Search:
      case project::QueueItemKind::SearchTrial: return run_search_item(item, settings, observer, control);
    }
    throw core::Error("queue", "unknown item kind");
  } catch (const std::exception& e) {  // bad project, data, section or checkpoint: nothing was written
    QueueItemResult out;
    out.status = "failed";
    out.reason = e.what();
    out.error = std::current_exception();
    out.run_id = item.kind == project::QueueItemKind::Evaluate ? item.eval_run_id : 0;
    return out;
  }
}

double queue_eta_seconds(double current_seconds_per_step, std::int64_t current_steps_left,
                         double queue_seconds_per_step, std::int64_t pending_steps) {
  const double current = current_seconds_per_step > 0 ? current_seconds_per_step : queue_seconds_per_step;
  if (current <= 0 && (current_steps_left > 0 || queue_seconds_per_step <= 0)) return -1;
  const double pending = queue_seconds_per_step > 0 ? queue_seconds_per_step : current;
  return static_cast<double>(std::max<std::int64_t>(0, current_steps_left)) * current +
         static_cast<double>(std::max<std::int64_t>(0, pending_steps)) * pending;
}

WorkQueue::WorkQueue(QueueSettings settings) : settings_(std::move(settings)) {}

void WorkQueue::plan_training(project::QueueItem& item, const project::Project& project) const {
  const project::RunPlan& base = project.run(item.run);
  item.training_overrides = training_overrides_for(settings_, base.training);
  item.plan = std::make_shared<const project::RunPlan>(project::with_training(project, base, item.training_overrides));
  item.planned_steps = item.plan->training.steps;
}

void WorkQueue::add(std::vector<project::QueueItem> items, const project::Project* project) {
  for (project::QueueItem& item : items)  // every plan first: a bad override queues nothing
    if (project && is_training(item.kind)) plan_training(item, *project);
  for (project::QueueItem& item : items) pending_.push_back(std::move(item));
}

void WorkQueue::add_project(const project::Project& project, const project::QueueOptions& options) {
  add(project::project_queue(project, options), &project);
}

std::optional<project::QueueItem> WorkQueue::next(std::vector<std::pair<project::QueueItem, std::string>>* skipped) {
  live_.clear();
  while (!pending_.empty()) {
    const std::string why = project::skip_reason(pending_.front(), unfinished_);
    if (why.empty()) break;
    if (skipped) skipped->emplace_back(pending_.front(), why);
    pending_.erase(pending_.begin());
  }
  if (pending_.empty()) {  // the pass is over
    unfinished_ = 0;
    runs_started_ = 0;
    return std::nullopt;
  }
  live_.push_back(pending_.front());
  pending_.erase(pending_.begin());
  if (is_training(live_.back().kind)) ++runs_started_;
  return live_.back();
}

namespace {
bool same_item(const project::QueueItem& a, const project::QueueItem& b) {
  return a.kind == b.kind && a.project == b.project && a.run == b.run && a.resume_run_id == b.resume_run_id &&
         a.eval_run_id == b.eval_run_id;
}
}  // namespace

std::vector<project::QueueItem> WorkQueue::with_trains_after(const project::QueueItem& first, std::size_t max) {
  std::vector<project::QueueItem> batch = {first};
  if (!is_training(first.kind)) return batch;
  while (batch.size() < max && !pending_.empty() && is_training(pending_.front().kind)) {
    batch.push_back(pending_.front());
    pending_.erase(pending_.begin());
    live_.push_back(batch.back());
    ++runs_started_;
  }
  return batch;
}

void WorkQueue::put_back(const std::vector<project::QueueItem>& items) {
  for (auto it = items.rbegin(); it != items.rend(); ++it) {
    auto at = std::find_if(live_.begin(), live_.end(), [&](const project::QueueItem& q) { return same_item(q, *it); });
    if (at == live_.end()) continue;
    live_.erase(at);
    if (is_training(it->kind)) --runs_started_;
    pending_.insert(pending_.begin(), *it);
  }
}

void WorkQueue::ended(const project::QueueItem& item, const QueueItemResult& result) {
  const bool counts = item.kind == project::QueueItemKind::Train || item.kind == project::QueueItemKind::SearchTrial ||
                      item.kind == project::QueueItemKind::Search;
  if (counts && !result.finished()) {
    ++unfinished_;
    // One rank of a group: the ranks' collectives no longer line up after a run that ended early.
    if (settings_.group && item.kind == project::QueueItemKind::Train) pending_.clear();
  }
  auto at = std::find_if(live_.begin(), live_.end(), [&](const project::QueueItem& q) { return same_item(q, item); });
  if (at != live_.end()) live_.erase(at);
  if (item.kind == project::QueueItemKind::Train && item.tuning_followups) queue_tuning_followups(item);
}

void WorkQueue::queue_tuning_followups(const project::QueueItem& item) {
  // One rank of a data-parallel group plans nothing on its own: the ranks' queues must agree.
  if (!item.resolved || settings_.group || !project::has_tuning_followups(*item.resolved)) return;
  for (const auto* list : {&pending_, &live_})
    for (const project::QueueItem& q : *list)
      if (q.kind == project::QueueItemKind::Train && q.project == item.project) return;  // not its last run yet
  project::TuningPlan plan = project::plan_tuning_followups(*item.resolved);
  if (plan.added.empty() && plan.notes.empty()) return;
  const auto project = std::make_shared<const project::Project>(std::move(plan.project));
  std::vector<project::QueueItem> items;
  std::vector<std::string> queued;
  for (const std::string& name : plan.added) {
    project::QueueItem q;
    q.kind = project::QueueItemKind::Train;
    q.run = name;
    q.project = item.project;
    q.resolved = project;
    q.tuning_followups = true;
    try {
      plan_training(q, *project);
    } catch (const core::Error& e) {  // the queue's overrides do not fit this follow-up: said, not queued
      plan.notes.push_back("\"" + name + "\" is not queued: " + e.what());
      continue;
    }
    items.push_back(std::move(q));
    queued.push_back(name);
  }
  // Before the project's profile (which measures the models of a complete pass).
  auto at = std::find_if(pending_.begin(), pending_.end(), [&](const project::QueueItem& q) {
    return q.kind == project::QueueItemKind::Profile && q.project == item.project;
  });
  if (at != pending_.end()) at->resolved = project;
  pending_.insert(at, items.begin(), items.end());
  if (settings_.on_tuning_followups) settings_.on_tuning_followups(queued, plan.notes);
}

void WorkQueue::clear() { pending_.clear(); }

QueuePosition WorkQueue::position() const {
  QueuePosition p;
  p.run = !live_.empty() && is_training(live_.front().kind) ? runs_started_ : 0;
  p.runs = runs_started_;
  for (const project::QueueItem& q : pending_) {
    if (is_training(q.kind)) {
      ++p.runs;
      p.pending_steps += q.planned_steps;
    }
    if (q.kind == project::QueueItemKind::Profile) p.profile_next = true;
  }
  p.next = pending_;
  return p;
}

}  // namespace pha::queue
