// Internal to project.cpp: the project.json top-level keys of seeded replicas ("seeds",
// "repeats"), of the claims the report tests ("claims") and of how it tests them ("report"),
// read with the config reader.
#pragma once

#include "core/config_reader.h"
#include "project/project.h"

namespace pha::project::detail {

// Fills project.seeds and project.repeats; core::Error naming "seeds" / "repeats" otherwise.
void read_seeds(core::ConfigReader& r, Project& p);
// Fills project.claims, checked against the project's runs (variant and group names) and data.
void read_project_claims(core::ConfigReader& r, Project& p, const DataSpec& dataspec);
// Fills project.report from the "report" section (defaults when absent); the control, when
// given, is checked against the runs (variant and group names). Call after the runs are made.
void read_report_settings(core::ConfigReader& r, Project& p);
// "scaling" (the fits over a ladder of sizes, and the sizes held out to predict); `entry_names`:
// the variants entries, in order. Call after the runs are expanded ("predict" may name grid sizes).
void read_scaling(core::ConfigReader& r, bool is_task, const std::vector<std::string>& entry_names, Project& p);

}  // namespace pha::project::detail
