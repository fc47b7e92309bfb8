// `pha plan PROJECT`: the runs the project will train, their training tokens and tokens per
// parameter, the estimated wall time on this machine from a measured training speed, and for
// each claim the smallest effect its seeds can detect (runtime::plan_project: the same function
// the window's plan before Run project calls).
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "device/system_info.h"
#include "runtime/project_plan.h"

namespace pha::cli {

void add_plan_command(CLI::App& app, GlobalOptions& global) {
  struct Opts {
    std::string project, format = "text", store;
    bool no_measure = false;
    int jobs = 0;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("plan", "Before training: the runs, their tokens per parameter, the estimated time on "
                                         "this machine, and what each claim can detect with its seeds");
  cmd->add_option("project", o->project, "Project folder (or its project.json)")->required();
  cmd->add_option("--format", o->format, "text | json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--store", o->store, "Run store file (default: the project's runs.sqlite)");
  cmd->add_flag("--no-measure", o->no_measure,
                "Do not time training steps here: runs whose speed the store has not measured get no time");
  cmd->add_option("--jobs", o->jobs, "Training runs side by side, as `pha train --jobs` (default: this machine's "
                                     "cores / each run's threads)")->check(CLI::Range(1, 256));
  cmd->callback([o, &global] {
    device::configure_threads(global.threads);
    runtime::PlanOptions po;
    po.jobs = o->jobs;
    po.threads = global.threads;
    po.store_path = o->store;
    po.measure = !o->no_measure;
    const runtime::PlanReport plan = runtime::plan_project(o->project, po);
    if (o->format == "json")
      std::cout << runtime::plan_json(plan).dump(2) << "\n";
    else
      std::cout << runtime::render_plan_text(plan);
  });
}

}  // namespace pha::cli
