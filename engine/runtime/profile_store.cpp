#include "runtime/profile_store.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "store/run_writer.h"
#include "store/store.h"

namespace pha::runtime {

std::string profile_run_name(const std::string& model) { return "profile: " + model; }

std::vector<std::int64_t> store_profile_results(const std::string& store_path, const std::string& project,
                                                const std::vector<ProfilePointResult>& results) {
  std::map<std::string, std::vector<const ProfilePointResult*>> by_model;  // keeps model order stable
  std::vector<std::string> order;
  for (const auto& r : results) {
    if (!by_model.count(r.spec.model)) order.push_back(r.spec.model);
    by_model[r.spec.model].push_back(&r);
  }
  auto store = store::Store::open(store_path);
  std::vector<std::int64_t> ids;
  for (const std::string& model : order) {
    const auto& points = by_model[model];
    nlohmann::json cfg = {{"profile", {{"model", model}, {"points", nlohmann::json::array()}}}};
    std::int64_t n_params = 0;
    std::string device, failures;
    for (const auto* p : points) {
      cfg["profile"]["points"].push_back(to_json(*p));
      if (p->n_params > 0) n_params = p->n_params;
      if (!p->device.empty()) device = p->device;
      if (!p->error.empty())
        failures += "T=" + std::to_string(p->spec.seq_len) + " " + p->spec.phase + ": " + p->error + "\n";
    }
    store::NewRun nr;
    nr.project = project;
    nr.name = profile_run_name(model);
    nr.kind = store::RunKind::Profile;
    const nlohmann::json& mc = points.front()->spec.model_config;
    nr.variant = mc.is_object() && mc.contains("variant") && mc["variant"].is_string() ? mc["variant"].get<std::string>()
                                                                                        : model;
    nr.config_json = cfg.dump();
    nr.n_params = n_params;
    nr.device = device;
    // Each point ran in its own worker process; the first measured one's record stands for the
    // run (the points of one sweep share the machine, program and settings).
    for (const auto* p : points)
      if (p->error.empty() && p->env.is_object() && !p->env.empty()) {
        nr.env_json = p->env.dump();
        break;
      }
    const std::int64_t id = store.create_run(nr);
    store.set_status(id, store::RunStatus::Running);
    {
      store::RunWriter writer(store, id);
      for (const auto* p : points) {
        if (!p->error.empty()) continue;
        writer.perf(perf_row(*p));
      }
      writer.finish(store::RunStatus::Finished);
    }
    // The run's time is when its points were measured (each in its own worker process), not
    // the moment it was recorded.
    std::int64_t first = 0, last = 0;
    for (const auto* p : points) {
      if (p->started_ms > 0 && (first == 0 || p->started_ms < first)) first = p->started_ms;
      last = std::max(last, p->ended_ms);
    }
    if (first > 0 && last >= first) store.set_run_times(id, first, last);
    if (!failures.empty()) store.set_notes(id, "points that failed:\n" + failures);
    ids.push_back(id);
  }
  return ids;
}

ModelProfile profile_of_model(store::Store& store, const nlohmann::json& model_config) {
  if (!model_config.is_object()) return {};
  nlohmann::json wanted = model_config;
  wanted.erase("name");
  store::RunListQuery q;
  q.kind = store::RunKind::Profile;
  q.include_config = true;
  q.newest_first = true;
  for (const auto& e : store.list_runs(q)) {
    if (e.run.status != store::RunStatus::Finished) continue;
    const nlohmann::json cfg = nlohmann::json::parse(e.run.config_json, nullptr, /*allow_exceptions=*/false);
    if (cfg.is_discarded() || !cfg.contains("profile") || !cfg["profile"].contains("points")) continue;
    for (const auto& point : cfg["profile"]["points"]) {
      if (!point.is_object() || !point.contains("spec") || !point["spec"].contains("model_config")) continue;
      nlohmann::json measured = point["spec"]["model_config"];
      if (!measured.is_object()) continue;
      measured.erase("name");
      if (measured == wanted) return {e.run.id, store.perf(e.run.id)};
      break;  // one model per profile run: its first point says which
    }
  }
  return {};
}

}  // namespace pha::runtime
