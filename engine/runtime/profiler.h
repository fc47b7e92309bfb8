// Efficiency profiler: training-step and forward tokens/s and peak memory against sequence
// length, for chosen model variants. Each point runs in a fresh worker process (the `pha`
// binary's hidden `__profile-point` command, started with posix_spawn, answering one JSON line
// on stdout), so the peak resident memory of one point is not inflated by another's and the
// parent never forks a process that runs torch threads. Method: docs/runtime.md. No torch here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "project/project.h"
#include "runtime/events.h"
#include "runtime/step_bench.h"
#include "store/types.h"

namespace pha::runtime {

// One point: the step timing of runtime/step_bench.h ("train": forward, loss, backward, AdamW;
// or "forward") of one model, in a worker process.
struct ProfilePointSpec : StepTiming {
  std::string model = "pha-tiny";  // preset name, or a model config file (.json); the label when model_config is set
  nlohmann::json model_config;     // a ModelConfig JSON object to build instead (a project's variant); null: none
  int threads = 0;                 // 0: all cores
};

// What the point measured (StepMeasure: peak_bytes is the worker process's VmHWM).
struct ProfilePointResult : StepMeasure {
  ProfilePointSpec spec;
  int64_t baseline_bytes = 0;      // RSS after start-up, before the model is built
  std::string method;              // how it was measured, in words
  std::string error;               // non-empty: the point failed (e.g. out of memory, timeout)
  nlohmann::json env = nlohmann::json::object();  // the worker's provenance (device/provenance.h)
  // Wall clock of the worker process (ms since the epoch; 0: measured in this process): when
  // it was started and when it ended, the profile run's start and end in the store.
  int64_t started_ms = 0, ended_ms = 0;
};

// The point as the store records it (the one conversion: the profile's stored runs and the
// live efficiency events both use it).
store::PerfRow perf_row(const ProfilePointResult& r);

nlohmann::json to_json(const ProfilePointSpec& s);
ProfilePointSpec profile_spec_from_json(const nlohmann::json& j);
nlohmann::json to_json(const ProfilePointResult& r);
ProfilePointResult profile_result_from_json(const nlohmann::json& j);

// Measures one point in this process (the worker side) with the engine's step benchmark
// (step_bench.h bench_steps: Trainer's train step or a no-grad forward, VmHWM).
ProfilePointResult measure_point(const ProfilePointSpec& spec);

// Runs `exe __profile-point --spec <json>` and parses its answer; a worker that crashes, is
// killed or exceeds timeout_s gives a result with `error` set. When `control` asks to cancel,
// the worker is killed and the result's error is "cancelled".
ProfilePointResult measure_point_in_worker(const std::string& exe, const ProfilePointSpec& spec, int timeout_s,
                                           const RunControl* control = nullptr);

// A sweep over models: how it measures (SweepSettings, project/project.h; a project's sweep
// takes its "profile" section's) and which models. Defaults: `pha bench`'s.
struct ProfileSweep : project::SweepSettings {
  std::vector<std::string> models = {"pha-tiny", "transformer-tiny", "sequential-tiny"};
  // Empty, or one ModelConfig JSON per entry of `models` (then models[i] is only its label).
  std::vector<nlohmann::json> model_configs;
  int threads = 0;
  ProfileSweep() {
    seq_lens = {512, 1024, 2048, 4096, 8192};
    phases = {"forward", "train"};
    tokens_per_batch = 4096;  // B = max(1, tokens_per_batch / T)
    repeats = 3;
    timeout_s = 600;
    device = "cpu";
  }
};

// Every (model, T, phase) point in a worker, in that nesting order; reports each through
// observer.on_efficiency, waits between points while control is paused, and stops when it
// asks to cancel (the point being measured is dropped).
std::vector<ProfilePointResult> profile_sweep(const std::string& exe, const ProfileSweep& sweep, RunObserver& observer,
                                              RunControl& control);
std::size_t sweep_point_count(const ProfileSweep& sweep);

// The sweep a project's "profile" section asks for, over the models of the project's runs:
// each distinct model config once (grid points that differ only in training settings share
// one), labelled by the first run's name.
ProfileSweep project_profile_sweep(const project::Project& project);

}  // namespace pha::runtime
