#include "runtime/profiler.h"

#include <algorithm>
#include <map>
#include <chrono>
#include <thread>

#include "common/kernel_select.h"
#include "device/provenance.h"
#include "core/error.h"
#include "device/system_info.h"
#include "model/model_config.h"
#include "model/presets.h"
#include "core/process_stats.h"
#include "runtime/step_bench.h"
#include "runtime/internal/worker_process.h"

namespace pha::runtime {

using nlohmann::json;

json to_json(const ProfilePointSpec& s) {
  json j = {{"model", s.model},     {"seq_len", s.seq_len}, {"batch", s.batch},     {"phase", s.phase},
            {"warmup", s.warmup},   {"repeats", s.repeats}, {"threads", s.threads}, {"device", s.device}};
  if (!s.model_config.is_null()) j["model_config"] = s.model_config;
  return j;
}

ProfilePointSpec profile_spec_from_json(const json& j) {
  ProfilePointSpec s;
  s.model = j.value("model", s.model);
  s.seq_len = j.value("seq_len", s.seq_len);
  s.batch = j.value("batch", s.batch);
  s.phase = j.value("phase", s.phase);
  s.warmup = j.value("warmup", s.warmup);
  s.repeats = j.value("repeats", s.repeats);
  s.threads = j.value("threads", s.threads);
  s.device = j.value("device", s.device);
  if (j.contains("model_config") && !j["model_config"].is_null()) {
    if (!j["model_config"].is_object()) throw core::Error("model_config", "must be a ModelConfig JSON object");
    s.model_config = j["model_config"];
  }
  if (s.phase != "train" && s.phase != "forward") throw core::Error("phase", "must be \"train\" or \"forward\"");
  if (s.seq_len < 2 || s.batch < 1 || s.repeats < 1 || s.warmup < 0) throw core::Error("seq_len", "invalid profile point");
  return s;
}

json to_json(const ProfilePointResult& r) {
  return {{"spec", to_json(r.spec)},         {"tokens_per_s", r.tokens_per_s}, {"median_step_s", r.median_step_s},
          {"peak_bytes", r.peak_bytes},      {"baseline_bytes", r.baseline_bytes}, {"n_params", r.n_params},
          {"device", r.device},              {"method", r.method},             {"error", r.error},
          {"env", r.env}};
}

ProfilePointResult profile_result_from_json(const json& j) {
  ProfilePointResult r;
  r.spec = profile_spec_from_json(j.at("spec"));
  r.tokens_per_s = j.value("tokens_per_s", 0.0);
  r.median_step_s = j.value("median_step_s", 0.0);
  r.peak_bytes = j.value("peak_bytes", int64_t{0});
  r.baseline_bytes = j.value("baseline_bytes", int64_t{0});
  r.n_params = j.value("n_params", int64_t{0});
  r.device = j.value("device", std::string());
  r.method = j.value("method", std::string());
  r.error = j.value("error", std::string());
  r.env = j.value("env", json::object());
  return r;
}

store::PerfRow perf_row(const ProfilePointResult& r) {
  store::PerfRow row;
  row.seq_len = r.spec.seq_len;
  row.batch = r.spec.batch;
  row.tokens_per_s = r.tokens_per_s;
  row.peak_bytes = r.peak_bytes;
  row.device = r.device;
  row.phase = r.spec.phase;
  row.method = r.method;
  return row;
}

ProfilePointResult measure_point(const ProfilePointSpec& spec) {
  ProfilePointResult r;
  r.spec = spec;
  r.baseline_bytes = core::current_rss_bytes();
  device::configure_threads(spec.threads);
  StepBenchSpec bench;
  static_cast<StepTiming&>(bench) = spec;
  bench.model = spec.model_config.is_object() ? model::model_config_from_json(spec.model_config, "model_config")
                : spec.model.size() > 5 && spec.model.substr(spec.model.size() - 5) == ".json"
                    ? model::load_model_config(spec.model)
                    : model::preset(spec.model);
  const StepBenchResult b = bench_steps(bench);
  static_cast<StepMeasure&>(r) = b;
  r.env = device::collect_provenance({b.precision.precision, b.precision.setting, b.precision.reason,
                              kernels::kernel_selection(), b.device, 1, ""});
  // B is left out: each row records its batch.
  r.method = "median of " + std::to_string(spec.repeats) + " " + spec.phase + " steps after " +
             std::to_string(spec.warmup) + " warm-up; peak RSS (VmHWM) of a fresh worker process";
  return r;
}

ProfilePointResult measure_point_in_worker(const std::string& exe, const ProfilePointSpec& spec, int timeout_s,
                                           const RunControl* control) {
  ProfilePointResult got = measure_in_worker<ProfilePointResult>(
      exe, "__profile-point", spec, to_json(spec).dump(), timeout_s, control, "a profile point",
      [](const std::string& line) { return profile_result_from_json(json::parse(line)); });
  // An older worker ignores an inline config and would measure the preset of that name.
  if (!spec.model_config.is_null() && got.spec.model_config.is_null() && got.error.empty())
    got.error = exe + " does not understand inline model configs (an older pha?); rebuild or reinstall it";
  return got;
}

std::vector<ProfilePointResult> profile_sweep(const std::string& exe, const ProfileSweep& sweep, RunObserver& observer,
                                              RunControl& control) {
  if (!sweep.model_configs.empty() && sweep.model_configs.size() != sweep.models.size())
    throw core::Error("profile", "model_configs must be empty or hold one config per model");
  std::vector<ProfilePointResult> out;
  for (size_t mi = 0; mi < sweep.models.size(); ++mi)
    for (int T : sweep.seq_lens)
      for (const auto& phase : sweep.phases) {
        while (control.paused() && !control.cancel_requested())
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (control.cancel_requested()) return out;
        ProfilePointSpec s;
        s.model = sweep.models[mi];
        if (!sweep.model_configs.empty()) s.model_config = sweep.model_configs[mi];
        s.seq_len = T;
        s.batch = static_cast<int>(std::max<int64_t>(1, sweep.tokens_per_batch / T));
        s.phase = phase;
        s.warmup = sweep.warmup;
        s.repeats = sweep.repeats;
        s.threads = sweep.threads;
        s.device = sweep.device;
        ProfilePointResult r = measure_point_in_worker(exe, s, sweep.timeout_s, &control);
        if (control.cancel_requested() && r.error == "cancelled") return out;
        observer.on_efficiency({s.model, perf_row(r), r.error});
        out.push_back(std::move(r));
      }
  return out;
}

std::size_t sweep_point_count(const ProfileSweep& sweep) {
  return sweep.models.size() * sweep.seq_lens.size() * sweep.phases.size();
}

ProfileSweep project_profile_sweep(const project::Project& project) {
  ProfileSweep sweep;
  static_cast<project::SweepSettings&>(sweep) = project.profile;
  sweep.models.clear();
  // One point per distinct model (configs without their name: a custom model is named after its
  // run). A model is named after its variants entry ("transformer-tiny") when the entry trains
  // one model whatever its grid or tune point (only training keys vary), else after its grid
  // point ("pha-tiny/d_model=64"), else after the run.
  const auto unnamed_of = [](const project::RunPlan& run) {
    json cfg = model::to_json(run.model);
    cfg.erase("name");
    return cfg;
  };
  std::map<std::string, std::vector<json>> models_of_entry;
  for (const project::RunPlan& run : project.runs) {
    auto& models = models_of_entry[run.entry];
    json unnamed = unnamed_of(run);
    if (std::find(models.begin(), models.end(), unnamed) == models.end()) models.push_back(std::move(unnamed));
  }
  std::vector<json> seen;
  for (const project::RunPlan& run : project.runs) {
    json unnamed = unnamed_of(run);
    if (std::find(seen.begin(), seen.end(), unnamed) != seen.end()) continue;
    seen.push_back(std::move(unnamed));
    std::string name = run.name;
    if (!run.entry.empty() && models_of_entry[run.entry].size() == 1)
      name = run.entry;
    else if (!run.entry.empty() && !run.grid_point.empty())
      name = run.entry + "/" + run.grid_point;
    if (std::find(sweep.models.begin(), sweep.models.end(), name) != sweep.models.end()) name = run.name;
    sweep.models.push_back(name);
    sweep.model_configs.push_back(model::to_json(run.model));
  }
  return sweep;
}


}  // namespace pha::runtime
