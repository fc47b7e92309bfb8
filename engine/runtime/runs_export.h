// The runs table for analysis (pandas, R): one row per run with its record, tags and notes,
// every key of its config flattened ("model.d_model", "training.lr") and the final value of
// every metric it recorded ("val/bpb"), as CSV or JSON lines. `pha runs export` writes it; the
// window can call the same functions. The run filter is the one `pha runs list` uses.
//
//   runtime::RunFilter only;
//   only.tags = {"baseline"};
//   runtime::write_runs_csv(runtime::runs_table(store, only), out);
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/store.h"

namespace pha::runtime {

// Which runs: every filter given must hold.
struct RunFilter {
  std::optional<store::RunKind> kind;
  std::optional<store::RunStatus> status;
  std::string group;              // empty: any group
  std::vector<std::string> tags;  // the run carries every one of them
};

// store.list_runs(query) narrowed to the runs the filter admits (kind and group go into the
// query; status and tags are checked per run).
std::vector<store::RunListEntry> select_runs(store::Store& store, const RunFilter& filter, store::RunListQuery query = {});

struct RunsTable {
  std::vector<std::string> columns;
  std::vector<std::vector<nlohmann::json>> rows;  // one cell per column; null: no value
};

// Columns: id, project, name, variant, kind, status, group, seed, n_params, device, world_size,
// created_at, started_at, ended_at (ms since the epoch), error, tags (comma-separated: a tag
// holds no comma), notes; then the config keys of every selected run, flattened with dots and
// sorted (an array stays one value); then the metric keys, sorted, each the run's last value
// (NaN as null). A config or metric key that repeats an earlier column's name is prefixed
// "config." or "metric.". Rows in run id order.
RunsTable runs_table(store::Store& store, const RunFilter& filter = {});

// RFC 4180 CSV (runtime::csv_field): a header line, then one line per run; null is an empty
// field, an array or object its JSON text.
void write_runs_csv(const RunsTable& table, std::ostream& out);
// One JSON object per line, every column present (null when the run has no value).
void write_runs_jsonl(const RunsTable& table, std::ostream& out);

}  // namespace pha::runtime
