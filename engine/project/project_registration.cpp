// Pre-registration (project_registration.h).
#include "project/project_registration.h"

#include <chrono>

#include "data/sha256.h"
#include "store/registration_store.h"

namespace pha::project {

using nlohmann::json;

json registered_design(const Project& project) {
  json design = json::object();
  for (const char* key : {"claims", "variants", "grid", "seeds", "repeats", "model", "training", "data", "tune", "report",
                          "scaling"})
    if (project.json.is_object() && project.json.contains(key)) design[key] = project.json.at(key);
  return design;
}

std::string design_hash(const json& design) { return data::sha256_hex(design.dump()); }

bool register_project(store::Store& store, const Project& project) {
  store::Registration r;
  r.project = project.name;
  const json design = registered_design(project);
  r.design_json = design.dump();
  r.hash = design_hash(design);
  r.registered_at = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  return store::register_design(store, r);
}

}  // namespace pha::project
