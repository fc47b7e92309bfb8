// Recording profiler results in a run store, so the workbench's Efficiency dock (and Compare's
// Pareto chart) can show them: one finished run of kind profile per profiled model, named
// profile_run_name(model) ("profile: <model>", for people: nothing parses it), holding one perf
// row per measured (T, phase) point. Failed points are left out (their error is kept in the
// run's notes). Plain C++, no torch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/profiler.h"
#include "store/store.h"

namespace pha::runtime {

// The name of a model's profile run, as the run table shows it.
std::string profile_run_name(const std::string& model);

// Returns the ids of the runs created (one per model with at least one point). Throws
// core::Error naming the store file when it cannot be opened.
std::vector<std::int64_t> store_profile_results(const std::string& store_path, const std::string& project,
                                                const std::vector<ProfilePointResult>& results);

// The perf rows of the newest finished profile run in `store` that measured `model_config` (a
// run's "model" section; configs are compared without their "name"), with that run's id;
// empty rows when the model was never profiled there. Compare's Pareto chart reads a training
// run's tokens/s and peak memory from them.
struct ModelProfile {
  std::int64_t run_id = 0;
  std::vector<store::PerfRow> rows;
};
ModelProfile profile_of_model(store::Store& store, const nlohmann::json& model_config);

}  // namespace pha::runtime
