// Study and report of a project: the plans as plain data for the analysis library.
#include "project/project_report.h"

#include <filesystem>

#include "core/error.h"
#include "model/flops.h"
#include "project/project_registration.h"
#include "project/project_tuning.h"
#include "store/store.h"

namespace pha::project {

std::string architecture_family(const model::ModelConfig& model) {
  bool gss = false, attn = false;
  for (const auto& layer : model.layers)
    for (const auto& sub : layer.sublayers)
      for (model::Branch b : sub.branches) {
        gss = gss || b == model::Branch::Gss;
        attn = attn || b == model::Branch::Attention;
      }
  return gss && attn ? "hybrid" : attn ? "attention" : "ssm";
}

analysis::Study study_of(const Project& project) {
  analysis::Study s;
  s.project = project.name;
  s.description = project.description;
  s.claims = project.claims;
  s.tune = project.tune;
  s.scaling = project.scaling;
  s.settings = project.report;
  s.design = registered_design(project);
  for (const RunPlan& plan : project.runs) {
    if (s.runs.empty()) {
      s.is_task = plan.data.is_task;
      for (const auto& [name, config] : plan.data.test_tasks) s.test_sets.push_back(name);
    }
    analysis::StudyRun r;
    r.name = plan.name;
    r.group = plan.group;
    r.entry = plan.entry;
    r.grid_point = plan.grid_point;
    r.seed = static_cast<int64_t>(plan.seed);
    r.variant = plan.variant;
    r.family = architecture_family(plan.model);
    r.n_layers = plan.model.n_layers;
    r.tune_point = plan.tune_point;
    r.confirmation = plan.origin == "confirmation";
    // Training FLOPs per token at the run's window and batch (model/flops.h): the x of budgets
    // and scaling fits on compute.
    r.train_flops_per_token =
        model::estimate_flops(plan.model, plan.training.seq_len, plan.training.batch_size).training.total();
    r.n_params = model::count_parameters(plan.model).total;
    r.d_model = plan.model.d_model;
    for (const auto& layer : plan.model.layers)
      for (const auto& sub : layer.sublayers)
        for (model::Branch b : sub.branches)
          if (b == model::Branch::Attention) {
            r.head_dim = plan.model.head_dim();
            r.attention_heads = plan.model.attention.heads;
          }
    r.config = {{"model", plan.config.value("model", nlohmann::json())},
                {"training", plan.config.value("training", nlohmann::json())},
                {"data", plan.config.value("data", nlohmann::json())}};
    s.runs.push_back(std::move(r));
  }
  return s;
}

analysis::Report project_report(const std::string& project_path, const std::string& store_path) {
  // A report reads the plans and the store, never the data: a project trained elsewhere (its
  // corpus not on this machine) is reported like any other.
  LoadOptions browse;
  browse.require_data = false;
  const Project project = load_project(project_path, browse);
  const std::string path =
      std::filesystem::path(store_path.empty() ? project.store_path() : store_path).lexically_normal().string();
  if (!std::filesystem::exists(path))
    throw core::Error(path, "no run store yet: train the project first (pha train " + project.dir + ")");
  store::Store store = store::Store::open(path);
  // The tune section's follow-up runs, planned from the same store: the tables show the extended
  // values, and claims read the confirmation replicas.
  return analysis::build_report(study_of(plan_tuning_followups(project, store).project), store);
}

}  // namespace pha::project
