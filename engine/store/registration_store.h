// Pre-registration in the run store (table registrations, schema v9; docs/report.md,
// "Registration"): a project's claims and design (variants, seeds, budgets, tuning, the report's
// correction) recorded once, when its first run starts, with a hash and the time, so that the
// report can show what was declared before the data and what changed after it.
//
//   store::register_design(store, {"quickstart", design.dump(), sha256_hex, now_ms});  // once
//   auto r = store::registration(store, "quickstart");  // std::nullopt: never registered
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "store/store.h"

namespace pha::store {

struct Registration {
  std::string project;
  std::string design_json;   // the registered design (project/project_registration.h)
  std::string hash;          // sha256 of design_json, hex
  std::int64_t registered_at = 0;  // ms since the epoch
  std::int64_t runs_before = 0;    // training runs of the project the store already held then
  std::int64_t first_run_at = 0;   // the earliest of them (created_at, ms; 0: none)
};

// Records the project's registration when it has none (one write transaction; the runs already
// there are counted in it). Returns true when this call recorded it, false when one existed:
// a registration is never replaced.
bool register_design(Store& store, const Registration& registration);
std::optional<Registration> registration(Store& store, const std::string& project);

}  // namespace pha::store
