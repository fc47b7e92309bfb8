#include "runtime/export.h"

#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace pha::runtime {

using nlohmann::json;

namespace {
store::RunInfo require_run(store::Store& s, std::int64_t id) {
  auto r = s.get_run(id);
  if (!r) throw core::Error(s.path(), "no run with id " + std::to_string(id));
  return *r;
}
std::vector<std::string> keys_of(store::Store& s, std::int64_t id, const std::vector<std::string>& keys) {
  return keys.empty() ? s.metric_keys(id) : keys;
}
std::string number(double v) {
  if (std::isnan(v)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}
json nullable(double v) { return std::isfinite(v) ? json(v) : json(); }
}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void write_metrics_csv(std::ostream& out, const std::vector<MetricCsvSeries>& series) {
  out << "run_id,key,step,tokens,wall_ms,value\n";
  for (const auto& sr : series) {
    const std::string prefix = std::to_string(sr.run_id) + ',' + csv_field(sr.key) + ',';
    for (const auto& p : sr.points)
      out << prefix << p.step << ',' << p.tokens << ',' << p.wall_ms << ',' << number(p.value) << '\n';
  }
}

void export_metrics_csv(store::Store& s, std::int64_t run_id, const std::vector<std::string>& keys, std::ostream& out) {
  require_run(s, run_id);
  std::vector<MetricCsvSeries> series;
  for (const auto& key : keys_of(s, run_id, keys)) series.push_back({run_id, key, s.read_metric_full(run_id, key)});
  write_metrics_csv(out, series);
}

json export_run_json(store::Store& s, std::int64_t run_id, const std::vector<std::string>& keys) {
  const store::RunInfo r = require_run(s, run_id);
  json j;
  json config;
  try {
    config = json::parse(r.config_json);
  } catch (const json::exception&) {
    config = r.config_json;
  }
  j["run"] = {{"id", r.id},           {"project", r.project},        {"name", r.name},
              {"variant", r.variant}, {"kind", store::to_string(r.kind)},
              {"status", store::to_string(r.status)}, {"n_params", r.n_params},
              {"device", r.device},   {"created_at", r.created_at},  {"started_at", r.started_at},
              {"ended_at", r.ended_at}, {"error", r.error},          {"config", config},
              {"world_size", r.world_size}, {"backend", r.backend}, {"notes", r.notes}, {"tags", s.tags(r.id)}};
  const json env = json::parse(r.env_json.empty() ? "{}" : r.env_json, nullptr, false);
  j["run"]["env"] = env.is_object() ? env : json::object();  // provenance (docs/store.md)
  j["metrics"] = json::object();
  for (const auto& key : keys_of(s, run_id, keys)) {
    json pts = json::array();
    for (const auto& p : s.read_metric_full(run_id, key)) pts.push_back({p.step, p.tokens, p.wall_ms, nullable(p.value)});
    j["metrics"][key] = {{"columns", {"step", "tokens", "wall_ms", "value"}}, {"points", pts}};
  }
  j["evals"] = json::array();
  for (const auto& e : s.evals(run_id))
    j["evals"].push_back({{"step", e.step}, {"task", e.task}, {"seq_len", e.seq_len}, {"metric", e.metric}, {"value", nullable(e.value)}});
  j["mixer"] = json::array();
  for (const auto& m : s.read_mixer_all(run_id)) {
    json w = json::array();
    for (float v : m.weights) w.push_back(nullable(v));
    j["mixer"].push_back({{"step", m.step}, {"layers", m.layers}, {"branches", m.branches}, {"weights", w}});
  }
  j["perf"] = json::array();
  for (const auto& p : s.perf(run_id))
    j["perf"].push_back({{"seq_len", p.seq_len}, {"batch", p.batch}, {"tokens_per_s", p.tokens_per_s},
                         {"peak_bytes", p.peak_bytes}, {"device", p.device}, {"phase", p.phase}, {"method", p.method}});
  j["checkpoints"] = json::array();
  for (const auto& c : s.checkpoints(run_id))
    j["checkpoints"].push_back({{"step", c.step}, {"path", c.path}, {"bytes", c.bytes}, {"sha256", c.sha256}});
  return j;
}

}  // namespace pha::runtime
