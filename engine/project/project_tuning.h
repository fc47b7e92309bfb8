// The runs a project's "tune" section plans from results (docs/project-format.md, "tune"): the
// tried values of an axis grow past the edge the choice sits on ("extend"), and the chosen
// setting is trained again on fresh seeds ("confirm_seeds"). They depend on finished runs, so
// they are not in project.json's plan: the work queue plans them when a project's last queued
// run ends (`pha train` and the window alike), and the report and `pha plan` plan them from the
// store to show them. Plain C++: no torch, no Qt.
//
//   runtime::TuningPlan plan = runtime::plan_tuning_followups(project);   // reads its store
//   for (const auto& name : plan.added) ... plan.project.run(name) ...
#pragma once

#include <string>
#include <vector>

#include "project/project.h"

namespace pha::store {
class Store;
}

namespace pha::project {

struct TuningPlan {
  Project project;                 // the project with the follow-up runs appended
  std::vector<std::string> added;  // their names, in the order appended
  std::vector<std::string> notes;  // follow-ups not planned, and why (the project's run limit)
};

// The tune section asks for follow-ups ("extend" or "confirm_seeds").
bool has_tuning_followups(const Project& project);

// Repeated until nothing is added: for each variants entry at each grid point (project order),
// its tuning table from `store` (analysis::tuning_table, selection replicas only); then
//  - a complete table whose choice is at an edge of an "extend" axis short of its bound: the
//    axis's next value (analysis::next_tune_value) for every tried setting at the chosen value
//    of that axis, on the same seeds (RunPlan::origin "extension");
//  - a complete table whose choice is final (inside the values tried, at a bound, or no "extend"
//    axis) when "confirm_seeds" is given: the chosen setting on each confirmation seed, group
//    "<chosen group>,confirm" (origin "confirmation").
// Runs are named like the file's ("pha/lr=0.09,seed=1", "pha/lr=0.003,confirm,seed=10") and
// validated like them. Reads the store, writes nothing. The project's run limit stops it (a note).
TuningPlan plan_tuning_followups(const Project& project, store::Store& store);
// Same, reading the project's own store; the project unchanged when it has no store yet.
TuningPlan plan_tuning_followups(const Project& project);

namespace detail {
using TuneAxes = std::vector<std::pair<std::string, nlohmann::json>>;  // key -> values tried
// The tune section's "extend" and "confirm_seeds" (project.cpp's reader calls them): core::Error
// naming the field. `lists_by_where`: each list of tuned axes with the field it was read from
// ("tune", "tune.variants.pha").
void read_tune_extend(const nlohmann::json& section,
                      const std::vector<std::pair<std::string, const TuneAxes*>>& lists_by_where,
                      analysis::TuneProtocol& protocol);
void read_confirm_seeds(const nlohmann::json& section, analysis::TuneProtocol& protocol);
}  // namespace detail

}  // namespace pha::project
