// Exports of a run's record from the store, every point (no downsampling): metrics as CSV
// (long format: run_id, key, step, tokens, wall_ms, value) or the whole record as JSON (run,
// metrics, evals, mixer snapshots, perf rows, checkpoints). Weights: trainer.h
// export_checkpoint_weights. Plain C++ (store types, nlohmann): the window includes it.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "store/store.h"

namespace pha::runtime {

// One run's points of one metric key, as the metrics CSV holds them.
struct MetricCsvSeries {
  std::int64_t run_id = 0;
  std::string key;
  std::vector<store::MetricPoint> points;
};

// The one metrics CSV: the header run_id,key,step,tokens,wall_ms,value, then one row per point,
// series after series; keys quoted by csv_field, values as %.9g, NaN as "nan". `pha export
// --format csv` (docs/cli.md), the window's Curves CSV and its run report's metrics.csv
// (docs/gui-compare.md) all write it.
void write_metrics_csv(std::ostream& out, const std::vector<MetricCsvSeries>& series);

// write_metrics_csv of every point of `keys` of one run (keys empty: every key of the run).
// Throws core::Error when the run does not exist.
void export_metrics_csv(store::Store& store, std::int64_t run_id, const std::vector<std::string>& keys, std::ostream& out);
nlohmann::json export_run_json(store::Store& store, std::int64_t run_id, const std::vector<std::string>& keys);

// One CSV field (RFC 4180): quoted, with quotes doubled, when it holds a comma, a quote or a line
// break; as it is otherwise. Every CSV the engine writes goes through it.
std::string csv_field(const std::string& text);

// Writes text to `path` atomically: an export is whole or absent. The CLI's name for
// pha::write_file_atomic (core/atomic_file.h), the one writer.
inline void write_file_atomically(const std::string& path, const std::string& text) { core::write_file_atomic(path, {text}); }

}  // namespace pha::runtime
