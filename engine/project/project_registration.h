// Pre-registration of a project's claims and design (docs/report.md, "Registration"): what is
// recorded in the store when the project's first run starts, so that the report can say which
// claims and which design existed before the data, and what was changed after it. Plain C++.
//
//   runtime::register_project(store, project);   // the job calls it before a new run's row
//   json d = runtime::registered_design(project); // what is recorded (and compared)
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "project/project.h"

namespace pha::store {
class Store;
}

namespace pha::project {

// The sections of project.json that decide what a verdict means, as written: "claims",
// "variants", "grid", "seeds", "repeats", "model", "training", "data", "tune", "report" and
// "scaling" (absent ones left out). Not: name, description, profile, search.
nlohmann::json registered_design(const Project& project);
// sha256 (hex) of the design's compact JSON (keys sorted).
std::string design_hash(const nlohmann::json& design);
// Records the project's design in `store` unless it holds a registration of the project
// already (which is never replaced). True when this call recorded it.
bool register_project(store::Store& store, const Project& project);

}  // namespace pha::project
