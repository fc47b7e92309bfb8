#include "runtime/runs_export.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/provenance_fields.h"
#include "runtime/export.h"

namespace pha::runtime {

using nlohmann::json;

namespace {

bool has_every_tag(store::Store& s, std::int64_t run_id, const std::vector<std::string>& wanted) {
  if (wanted.empty()) return true;
  const std::vector<std::string> tags = s.tags(run_id);
  return std::all_of(wanted.begin(), wanted.end(),
                     [&](const std::string& t) { return std::find(tags.begin(), tags.end(), t) != tags.end(); });
}

// {"model": {"d_model": 32}} -> {"model.d_model": 32}; arrays and scalars are leaves.
void flatten(const json& j, const std::string& prefix, std::map<std::string, json>& out) {
  if (!j.is_object() || (j.empty() && !prefix.empty())) {
    if (!prefix.empty()) out[prefix] = j;
    return;
  }
  for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out);
}

std::map<std::string, json> flat_config(const std::string& config_json) {
  std::map<std::string, json> out;
  const json c = json::parse(config_json, nullptr, false);
  if (c.is_discarded()) out["config"] = config_json;  // not JSON: kept whole, as text
  else flatten(c, "", out);
  return out;
}

json when(std::int64_t ms) { return ms > 0 ? json(ms) : json(); }

std::string tags_text(store::Store& s, std::int64_t run_id) {
  std::string out;
  for (const auto& t : s.tags(run_id)) out += (out.empty() ? "" : ",") + t;
  return out;
}

std::vector<json> record_cells(store::Store& s, const store::RunInfo& r) {
  return {r.id, r.project, r.name, r.variant, store::to_string(r.kind), store::to_string(r.status),
          r.group, r.seed >= 0 ? json(r.seed) : json(), r.n_params, r.device, r.world_size,
          when(r.created_at), when(r.started_at), when(r.ended_at), r.error, tags_text(s, r.id), r.notes};
}

const std::vector<std::string> kRecordColumns = {
    "id",         "project",    "name",       "variant",  "kind",  "status", "group", "seed", "n_params",
    "device",     "world_size", "created_at", "started_at", "ended_at", "error", "tags", "notes"};

// Adds `name` (or `prefix` + name when an earlier column took it) and returns its index.
std::size_t add_column(std::vector<std::string>& columns, const std::string& name, const std::string& prefix) {
  const bool taken = std::find(columns.begin(), columns.end(), name) != columns.end();
  columns.push_back(taken ? prefix + name : name);
  return columns.size() - 1;
}

std::string cell_text(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

std::vector<store::RunListEntry> select_runs(store::Store& s, const RunFilter& filter, store::RunListQuery query) {
  if (filter.kind) query.kind = filter.kind;
  if (!filter.group.empty()) query.group = filter.group;
  std::vector<store::RunListEntry> out;
  for (auto& e : s.list_runs(query)) {
    if (filter.status && e.run.status != *filter.status) continue;
    if (!has_every_tag(s, e.run.id, filter.tags)) continue;
    out.push_back(std::move(e));
  }
  return out;
}

RunsTable runs_table(store::Store& s, const RunFilter& filter) {
  store::RunListQuery q;
  q.newest_first = false;
  std::set<std::string> keys;
  for (const auto& e : select_runs(s, filter, q))
    for (const auto& k : s.metric_keys(e.run.id)) keys.insert(k);
  q.summary_keys.assign(keys.begin(), keys.end());
  q.include_config = true;
  const std::vector<store::RunListEntry> entries = select_runs(s, filter, q);

  std::vector<std::map<std::string, json>> configs;
  std::vector<std::map<std::string, std::string>> envs;
  std::set<std::string> config_keys, env_keys;
  for (const auto& e : entries) {
    configs.push_back(flat_config(e.run.config_json));
    for (const auto& [k, v] : configs.back()) config_keys.insert(k);
    envs.push_back(core::provenance_fields(e.run.env_json));
    for (const auto& [k, v] : envs.back()) env_keys.insert(k);
  }
  RunsTable t;
  t.columns = kRecordColumns;
  // Provenance (what produced the numbers: docs/store.md) as env.<key>, always prefixed.
  std::map<std::string, std::size_t> env_column;
  for (const auto& k : env_keys) env_column[k] = add_column(t.columns, "env." + k, "env.");
  std::map<std::string, std::size_t> config_column;
  for (const auto& k : config_keys) config_column[k] = add_column(t.columns, k, "config.");
  const std::size_t first_metric = t.columns.size();
  for (const auto& k : q.summary_keys) add_column(t.columns, k, "metric.");

  for (std::size_t i = 0; i < entries.size(); ++i) {
    std::vector<json> row = record_cells(s, entries[i].run);
    row.resize(t.columns.size());
    for (const auto& [k, v] : configs[i]) row[config_column[k]] = v;
    for (const auto& [k, v] : envs[i]) row[env_column[k]] = v;
    for (std::size_t m = 0; m < entries[i].summaries.size(); ++m) {
      const auto& sum = entries[i].summaries[m];
      if (sum && std::isfinite(sum->last)) row[first_metric + m] = sum->last;
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

void write_runs_csv(const RunsTable& t, std::ostream& out) {
  for (std::size_t c = 0; c < t.columns.size(); ++c) out << (c ? "," : "") << csv_field(t.columns[c]);
  out << '\n';
  for (const auto& row : t.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) out << (c ? "," : "") << csv_field(cell_text(row[c]));
    out << '\n';
  }
}

void write_runs_jsonl(const RunsTable& t, std::ostream& out) {
  // Written by hand to keep the columns' order (json objects sort their keys).
  for (const auto& row : t.rows) {
    for (std::size_t c = 0; c < row.size(); ++c) out << (c ? "," : "{") << json(t.columns[c]).dump() << ':' << row[c].dump();
    out << (row.empty() ? "{}" : "}") << '\n';
  }
}

}  // namespace pha::runtime
