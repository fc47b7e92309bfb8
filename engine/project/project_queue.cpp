#include "project/project_queue.h"

#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "model/saved_config.h"
#include "store/store.h"

namespace pha::project {

std::vector<QueueItem> project_queue(const Project& project, const QueueOptions& o) {
  std::vector<std::string> names = o.runs;
  if (names.empty())
    for (const RunPlan& r : project.runs) names.push_back(r.name);
  for (const auto& n : names) project.run(n);  // core::Error listing the names otherwise
  if (o.resume_run_id > 0 && names.size() != 1) {
    // Resuming one run of a project with several: the stored run says which.
    auto s = store::Store::open(project.store_path());
    const auto info = s.get_run(o.resume_run_id);
    if (!info) throw core::Error(project.store_path(), "no run with id " + std::to_string(o.resume_run_id));
    names = {info->name};
  }
  const auto resolved = std::make_shared<const Project>(project);
  std::vector<QueueItem> items;
  for (const auto& n : names) {
    QueueItem item;
    item.kind = QueueItemKind::Train;
    item.run = n;
    item.resume_run_id = o.resume_run_id;
    item.project = project.dir;
    item.planned_steps = project.run(n).training.steps;
    item.resolved = resolved;
    item.tuning_followups = o.resume_run_id == 0 && (o.runs.empty() || o.tuning_followups);
    items.push_back(std::move(item));
  }
  if (o.profile && o.runs.empty() && o.resume_run_id == 0 && project.profile.present && project.profile.after_runs) {
    QueueItem item;
    item.kind = QueueItemKind::Profile;
    item.after_finished_runs = true;
    item.project = project.dir;
    item.resolved = resolved;
    items.push_back(std::move(item));
  }
  return items;
}

bool same_run_config(nlohmann::json a, nlohmann::json b) {
  for (nlohmann::json* j : {&a, &b})
    if (j->is_object() && j->contains("model")) (*j)["model"] = model::canonical_model_json((*j)["model"]);
  return a == b;
}

std::vector<TrainedRun> trained_runs(const Project& project) {
  std::vector<TrainedRun> out;
  if (!std::filesystem::exists(project.store_path())) return out;
  auto s = store::Store::open(project.store_path());
  store::RunListQuery q;
  q.kind = store::RunKind::Train;
  q.include_config = true;
  q.newest_first = true;
  const auto stored = s.list_runs(q);
  std::set<std::string> plan_names;
  for (const RunPlan& plan : project.runs) plan_names.insert(plan.name);
  for (const RunPlan& plan : project.runs) {
    std::int64_t renamed = 0;
    std::string renamed_name;
    for (const auto& e : stored) {  // newest first
      if (e.run.status != store::RunStatus::Finished) continue;
      const bool named = e.run.name == plan.name;
      if (!named && (renamed != 0 || plan_names.count(e.run.name))) continue;
      const nlohmann::json config = nlohmann::json::parse(e.run.config_json, nullptr, /*allow_exceptions=*/false);
      if (config.is_discarded() || !same_run_config(config, plan.config)) continue;
      if (named) {
        renamed = 0;
        out.push_back({plan.name, e.run.id, e.run.name});
        break;
      }
      renamed = e.run.id;  // used only when no run keeps the plan's name
      renamed_name = e.run.name;
    }
    if (renamed != 0) out.push_back({plan.name, renamed, renamed_name});
  }
  return out;
}

std::string skip_reason(const QueueItem& item, int unfinished_runs_before) {
  if (!item.after_finished_runs || unfinished_runs_before <= 0) return "";
  return std::to_string(unfinished_runs_before) + (unfinished_runs_before == 1 ? " run" : " runs") +
         " of the queue did not finish (the profile follows a complete pass over the project's runs)";
}

}  // namespace pha::project
