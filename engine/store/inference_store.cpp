#include "store/inference_store.h"

#include <algorithm>
#include <map>

#include "core/error.h"
#include "store/run_writer.h"

namespace pha::store {

using nlohmann::json;

json to_json(const InferencePointSpec& s) {
  json j = {{"model", s.model},         {"seq_len", s.seq_len},           {"batch", s.batch},
            {"generate", s.generate},   {"decode_timed", s.decode_timed}, {"decode_warmup", s.decode_warmup},
            {"threads", s.threads},     {"device", s.device},             {"source_run", s.source_run},
            {"train_seq_len", s.train_seq_len},
            {"checkpoint", s.checkpoint},       {"repeat", s.repeat}};
  if (!s.model_config.is_null()) j["model_config"] = s.model_config;
  return j;
}

InferencePointSpec inference_spec_from_json(const json& j) {
  if (!j.is_object()) throw core::Error("inference point", "must be a JSON object");
  InferencePointSpec s;
  try {
    s.model = j.value("model", s.model);
    s.seq_len = j.value("seq_len", s.seq_len);
    s.batch = j.value("batch", s.batch);
    s.generate = j.value("generate", s.generate);
    s.decode_timed = j.value("decode_timed", s.decode_timed);
    s.decode_warmup = j.value("decode_warmup", s.decode_warmup);
    s.threads = j.value("threads", s.threads);
    s.device = j.value("device", s.device);
    s.source_run = j.value("source_run", s.source_run);
    s.train_seq_len = j.value("train_seq_len", s.train_seq_len);
    s.checkpoint = j.value("checkpoint", s.checkpoint);
    s.repeat = j.value("repeat", s.repeat);
  } catch (const json::exception& e) {
    throw core::Error("inference point", std::string("a field has the wrong type: ") + e.what());
  }
  if (j.contains("model_config") && !j["model_config"].is_null()) {
    if (!j["model_config"].is_object()) throw core::Error("model_config", "must be a ModelConfig JSON object");
    s.model_config = j["model_config"];
  }
  if (s.seq_len < 1) throw core::Error("seq_len", "must be >= 1, got " + std::to_string(s.seq_len));
  if (s.batch < 1) throw core::Error("batch", "must be >= 1, got " + std::to_string(s.batch));
  if (s.generate < 2) throw core::Error("generate", "must be >= 2 (the first token comes from the prefill)");
  if (s.decode_timed < 1 || s.decode_warmup < 0 || s.decode_warmup + s.decode_timed > s.generate - 1)
    throw core::Error("decode_timed", "decode warm-up + timed steps must fit in generate - 1 (" +
                                    std::to_string(s.generate - 1) + ")");
  if (s.device != "cpu")
    throw core::Error("device", "the inference benchmark measures on \"cpu\" in this build, got \"" + s.device + "\"");
  return s;
}

namespace {

json memory_json(const InferenceMemory& m) {
  return {{"weights", m.weights},       {"kv_cache", m.kv_cache},
          {"kv_formula", m.kv_formula}, {"gss_state", m.gss_state},
          {"gss_state_formula", m.gss_state_formula}, {"activations", m.activations},
          {"baseline", m.baseline},     {"peak", m.peak}};
}

InferenceMemory memory_from_json(const json& j) {
  InferenceMemory m;
  if (!j.is_object()) return m;
  m.weights = j.value("weights", int64_t{0});
  m.kv_cache = j.value("kv_cache", int64_t{0});
  m.kv_formula = j.value("kv_formula", int64_t{0});
  m.gss_state = j.value("gss_state", int64_t{0});
  m.gss_state_formula = j.value("gss_state_formula", int64_t{0});
  m.activations = j.value("activations", int64_t{0});
  m.baseline = j.value("baseline", int64_t{0});
  m.peak = j.value("peak", int64_t{0});
  return m;
}

}  // namespace

json to_json(const InferencePointResult& r) {
  return {{"spec", to_json(r.spec)},
          {"n_params", r.n_params},
          {"context", r.context},
          {"ttft_ms", r.ttft_ms},
          {"prefill_tokens_per_s", r.prefill_tokens_per_s},
          {"decode_ms_per_token", r.decode_ms_per_token},
          {"decode_tokens_per_s", r.decode_tokens_per_s},
          {"e2e_ms", r.e2e_ms},
          {"e2e_tokens_per_s", r.e2e_tokens_per_s},
          {"decode_ms", r.decode_ms},
          {"memory", memory_json(r.memory)},
          {"dtype", r.dtype},
          {"decode_path", r.decode_path},
          {"device", r.device},
          {"method", r.method},
          {"error", r.error},
          {"env", r.env},
          {"started_ms", r.started_ms},
          {"ended_ms", r.ended_ms}};
}

InferencePointResult inference_result_from_json(const json& j) {
  InferencePointResult r;
  r.spec = inference_spec_from_json(j.at("spec"));
  r.n_params = j.value("n_params", int64_t{0});
  r.context = j.value("context", 0);
  r.ttft_ms = j.value("ttft_ms", 0.0);
  r.prefill_tokens_per_s = j.value("prefill_tokens_per_s", 0.0);
  r.decode_ms_per_token = j.value("decode_ms_per_token", 0.0);
  r.decode_tokens_per_s = j.value("decode_tokens_per_s", 0.0);
  r.e2e_ms = j.value("e2e_ms", 0.0);
  r.e2e_tokens_per_s = j.value("e2e_tokens_per_s", 0.0);
  if (j.contains("decode_ms") && j["decode_ms"].is_array()) r.decode_ms = j["decode_ms"].get<std::vector<double>>();
  r.memory = memory_from_json(j.value("memory", json::object()));
  r.dtype = j.value("dtype", std::string());
  r.decode_path = j.value("decode_path", std::string());
  r.device = j.value("device", std::string());
  r.method = j.value("method", std::string());
  r.error = j.value("error", std::string());
  r.env = j.value("env", json::object());
  r.started_ms = j.value("started_ms", int64_t{0});
  r.ended_ms = j.value("ended_ms", int64_t{0});
  return r;
}

std::string inference_run_name(const std::string& model) { return "inference: " + model; }

bool is_inference_run_config(const std::string& config_json) {
  const json cfg = json::parse(config_json, nullptr, /*allow_exceptions=*/false);
  return cfg.is_object() && cfg.contains("inference") && cfg["inference"].is_object();
}

std::vector<int64_t> store_inference_results(const std::string& store_path, const std::string& project,
                                             const std::vector<InferencePointResult>& results) {
  std::map<std::string, std::vector<const InferencePointResult*>> by_model;
  std::vector<std::string> order;
  for (const auto& r : results) {
    if (!by_model.count(r.spec.model)) order.push_back(r.spec.model);
    by_model[r.spec.model].push_back(&r);
  }
  auto store = store::Store::open(store_path);
  std::vector<int64_t> ids;
  for (const std::string& model : order) {
    const auto& points = by_model[model];
    const json& mc = points.front()->spec.model_config;
    json cfg = {{"inference",
                 {{"model", model}, {"model_config", mc}, {"source_run", points.front()->spec.source_run},
                  {"points", json::array()}}}};
    int64_t n_params = 0;
    std::string failures, env;
    for (const auto* p : points) {
      cfg["inference"]["points"].push_back(to_json(*p));
      if (p->n_params > 0) n_params = p->n_params;
      if (!p->error.empty())
        failures += "L=" + std::to_string(p->spec.seq_len) + " B=" + std::to_string(p->spec.batch) + ": " + p->error + "\n";
      else if (env.empty() && p->env.is_object() && !p->env.empty())
        env = p->env.dump();
    }
    store::NewRun nr;
    nr.project = project;
    nr.name = inference_run_name(model);
    nr.kind = store::RunKind::Profile;
    nr.variant = mc.is_object() && mc.contains("variant") && mc["variant"].is_string() ? mc["variant"].get<std::string>()
                                                                                        : model;
    nr.config_json = cfg.dump();
    nr.n_params = n_params;
    nr.device = "cpu";
    nr.env_json = env;
    const int64_t id = store.create_run(nr);
    store.set_status(id, store::RunStatus::Running);
    {
      store::RunWriter writer(store, id);
      for (const auto* p : points) {
        if (!p->error.empty()) continue;
        const auto row = [&](const char* phase, double tokens_per_s) {
          store::PerfRow pr;
          pr.seq_len = p->spec.seq_len;
          pr.batch = p->spec.batch;
          pr.tokens_per_s = tokens_per_s;
          pr.peak_bytes = p->memory.peak;
          pr.device = p->device;
          pr.phase = phase;
          pr.method = p->method;
          writer.perf(pr);
        };
        row("prefill", p->prefill_tokens_per_s);
        row("decode", p->decode_tokens_per_s);
        row("e2e", p->e2e_tokens_per_s);
      }
      writer.finish(store::RunStatus::Finished);
    }
    int64_t first = 0, last = 0;
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

namespace {

ModelInference read_inference_run(const store::RunInfo& run) {
  ModelInference m;
  const json cfg = json::parse(run.config_json, nullptr, /*allow_exceptions=*/false);
  if (!cfg.is_object() || !cfg.contains("inference") || !cfg["inference"].is_object()) return m;
  const json& inf = cfg["inference"];
  m.run_id = run.id;
  m.project = run.project;
  m.model = inf.value("model", run.name);
  m.model_config = inf.value("model_config", json());
  if (inf.contains("points") && inf["points"].is_array())
    for (const json& p : inf["points"]) {
      try {
        m.points.push_back(inference_result_from_json(p));
      } catch (const std::exception&) {
        // A point this program cannot read (a newer writer's) is left out, not fatal.
      }
    }
  return m;
}

}  // namespace

std::vector<ModelInference> inference_runs(store::Store& store, const std::string& project) {
  store::RunListQuery q;
  q.kind = store::RunKind::Profile;
  if (!project.empty()) q.project = project;
  q.include_config = true;
  q.newest_first = true;
  std::vector<ModelInference> out;
  for (const auto& e : store.list_runs(q)) {
    if (e.run.status != store::RunStatus::Finished) continue;
    ModelInference m = read_inference_run(e.run);
    if (m.run_id != 0) out.push_back(std::move(m));
  }
  return out;
}

ModelInference inference_of_model(store::Store& store, const json& model_config) {
  if (!model_config.is_object()) return {};
  json wanted = model_config;
  wanted.erase("name");
  for (ModelInference& m : inference_runs(store)) {
    if (!m.model_config.is_object()) continue;
    json measured = m.model_config;
    measured.erase("name");
    if (measured == wanted) return std::move(m);
  }
  return {};
}

DecodeSlope decode_slope(const std::vector<InferencePointResult>& points, const std::string& model, int64_t batch) {
  std::vector<std::pair<double, double>> xy;
  for (const auto& p : points)
    if (p.error.empty() && p.spec.model == model && p.spec.batch == batch && p.decode_ms_per_token > 0)
      xy.emplace_back(static_cast<double>(p.spec.seq_len), p.decode_ms_per_token);
  std::sort(xy.begin(), xy.end());
  DecodeSlope s;
  s.n = static_cast<int>(xy.size());
  if (s.n < 2) return s;
  double mx = 0, my = 0;
  for (const auto& [x, y] : xy) mx += x, my += y;
  mx /= s.n;
  my /= s.n;
  double sxy = 0, sxx = 0;
  for (const auto& [x, y] : xy) sxy += (x - mx) * (y - my), sxx += (x - mx) * (x - mx);
  const double slope = sxx > 0 ? sxy / sxx : 0.0;
  s.slope_ms_per_1k = slope * 1024.0;
  s.intercept_ms = my - slope * mx;
  s.ratio_last_first = xy.front().second > 0 ? xy.back().second / xy.front().second : 0.0;
  s.first_len = static_cast<int64_t>(xy.front().first);
  s.last_len = static_cast<int64_t>(xy.back().first);
  return s;
}

}  // namespace pha::store
