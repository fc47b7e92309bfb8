#include "queue/pass_plan.h"

#include <algorithm>
#include <exception>

#include "core/error.h"
#include "project/project_tuning.h"

namespace pha::queue {

PassPlan read_pass(const std::string& project_dir) {
  project::TuningPlan tuning = project::plan_tuning_followups(project::load_project(project_dir));
  PassPlan plan;
  plan.notes = std::move(tuning.notes);
  plan.project = std::make_shared<const project::Project>(std::move(tuning.project));
  try {
    plan.trained = project::trained_runs(*plan.project);
  } catch (const std::exception& e) {
    plan.store_problem = e.what();
  }
  return plan;
}

namespace {

std::vector<std::string> wanted_runs(const PassPlan& plan, const PassRequest& request) {
  std::vector<std::string> wanted = request.runs;
  if (wanted.empty())
    for (const auto& r : plan.project->runs) wanted.push_back(r.name);
  return wanted;
}

bool is_trained(const PassPlan& plan, const std::string& run) {
  return std::any_of(plan.trained.begin(), plan.trained.end(), [&](const project::TrainedRun& t) { return t.run == run; });
}

}  // namespace

std::vector<project::TrainedRun> left_out(const PassPlan& plan, const PassRequest& request) {
  std::vector<project::TrainedRun> out;
  if (!request.only_new) return out;
  const std::vector<std::string> wanted = wanted_runs(plan, request);
  for (const auto& t : plan.trained)
    if (std::find(wanted.begin(), wanted.end(), t.run) != wanted.end()) out.push_back(t);
  return out;
}

std::vector<project::QueueItem> pass_items(const PassPlan& plan, const PassRequest& request) {
  project::QueueOptions options;
  options.runs = request.runs;
  options.resume_run_id = request.resume_run_id;
  options.profile = request.profile;
  if (request.only_new) {
    if (!plan.store_problem.empty())
      throw core::Error(plan.project->store_path(), "cannot tell which runs are already trained: " + plan.store_problem);
    std::vector<std::string> wanted = wanted_runs(plan, request);
    wanted.erase(std::remove_if(wanted.begin(), wanted.end(), [&](const std::string& r) { return is_trained(plan, r); }),
                 wanted.end());
    if (wanted.empty()) return {};
    options.runs = wanted;
    options.tuning_followups = true;
  }
  return project::project_queue(*plan.project, options);
}

nlohmann::json queue_item_json(const project::QueueItem& item) {
  static const char* const kinds[] = {"train", "profile", "evaluate", "search", "search_trial"};
  return {{"kind", kinds[static_cast<int>(item.kind)]},
          {"run", item.run},
          {"resume_run_id", item.resume_run_id},
          {"planned_steps", item.planned_steps},
          {"training_overrides", item.training_overrides},
          {"tuning_followups", item.tuning_followups},
          {"after_finished_runs", item.after_finished_runs},
          {"project", item.project},
          // the run as it will train (what the store will record): its plan once queued
          {"config", item.plan ? item.plan->config
                     : item.resolved && !item.run.empty() && item.kind == project::QueueItemKind::Train
                         ? item.resolved->run(item.run).config
                         : nlohmann::json()}};
}

}  // namespace pha::queue
