// The report of a project (analysis/report.h) from its folder: the project's runs as a Study
// (groups, seeds, architecture families, claims), read against its run store. Plain C++: the
// window's Report tab and `pha report` call project_report() and render the result.
#pragma once

#include <string>

#include "analysis/report.h"
#include "project/project.h"

namespace pha::project {

// "ssm" (no attention in any layer), "attention" (no GSS), or "hybrid" (both), from the layers.
std::string architecture_family(const model::ModelConfig& model);

analysis::Study study_of(const Project& project);

// Loads the project (core::Error naming the field when it is bad), opens its store (`store_path`,
// default the project's; core::Error when there is none yet) and builds the report. Writes nothing
// beyond what opening a store does (marking dead runs interrupted).
analysis::Report project_report(const std::string& project_path, const std::string& store_path = "");

}  // namespace pha::project
