// Exports of a run's record from the store, every point (no downsampling): metrics as CSV
// (long format: key, step, tokens, wall_ms, value) or the whole record as JSON (run, metrics,
// evals, mixer snapshots, perf rows, checkpoints). Weights: trainer.h export_checkpoint_weights.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/store.h"

namespace pha::runtime {

// keys empty: every key of the run. Throws pha::Error when the run does not exist.
void export_metrics_csv(store::Store& store, std::int64_t run_id, const std::vector<std::string>& keys, std::ostream& out);
nlohmann::json export_run_json(store::Store& store, std::int64_t run_id, const std::vector<std::string>& keys);

// Writes text to `path` atomically (temporary file, then rename): an export is whole or absent.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace pha::runtime
