#include "runtime/inference_bench.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "common/kernel_select.h"
#include "core/error.h"
#include "core/process_stats.h"
#include "device/provenance.h"
#include "device/system_info.h"
#include "model/flops.h"
#include "model/model_config.h"
#include "model/presets.h"
#include "nn/decode_bench.h"
#include "runtime/profiler.h"
#include "runtime/run_eval.h"
#include "runtime/worker_process.h"
#include "store/run_writer.h"

namespace pha::runtime {

using nlohmann::json;

json to_json(const InferencePointSpec& s) {
  json j = {{"model", s.model},         {"seq_len", s.seq_len},           {"batch", s.batch},
            {"generate", s.generate},   {"decode_timed", s.decode_timed}, {"decode_warmup", s.decode_warmup},
            {"threads", s.threads},     {"device", s.device},             {"source_run", s.source_run},
            {"checkpoint", s.checkpoint}};
  if (!s.model_config.is_null()) j["model_config"] = s.model_config;
  return j;
}

InferencePointSpec inference_spec_from_json(const json& j) {
  if (!j.is_object()) throw Error("inference point", "must be a JSON object");
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
    s.checkpoint = j.value("checkpoint", s.checkpoint);
  } catch (const json::exception& e) {
    throw Error("inference point", std::string("a field has the wrong type: ") + e.what());
  }
  if (j.contains("model_config") && !j["model_config"].is_null()) {
    if (!j["model_config"].is_object()) throw Error("model_config", "must be a ModelConfig JSON object");
    s.model_config = j["model_config"];
  }
  if (s.seq_len < 1) throw Error("seq_len", "must be >= 1, got " + std::to_string(s.seq_len));
  if (s.batch < 1) throw Error("batch", "must be >= 1, got " + std::to_string(s.batch));
  if (s.generate < 2) throw Error("generate", "must be >= 2 (the first token comes from the prefill)");
  if (s.decode_timed < 1 || s.decode_warmup < 0 || s.decode_warmup + s.decode_timed > s.generate - 1)
    throw Error("decode_timed", "decode warm-up + timed steps must fit in generate - 1 (" +
                                    std::to_string(s.generate - 1) + ")");
  if (s.device != "cpu")
    throw Error("device", "the inference benchmark measures on \"cpu\" in this build, got \"" + s.device + "\"");
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

model::ModelConfig config_of(const InferencePointSpec& spec) {
  if (spec.model_config.is_object()) return model::model_config_from_json(spec.model_config, "model_config");
  if (spec.model.size() > 5 && spec.model.substr(spec.model.size() - 5) == ".json")
    return model::load_model_config(spec.model);
  return model::preset(spec.model);
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

InferencePointResult measure_inference_point(const InferencePointSpec& spec) {
  InferencePointResult r;
  r.spec = spec;
  r.memory.baseline = current_rss_bytes();
  const int threads = pha::configure_threads(spec.threads);
  const model::ModelConfig cfg = config_of(spec);
  r.context = cfg.context;
  model::DecodeBenchSpec b;
  b.model = cfg;
  b.checkpoint = spec.checkpoint;
  b.prompt = spec.seq_len;
  b.batch = spec.batch;
  b.generate = spec.generate;
  b.decode_timed = spec.decode_timed;
  b.decode_warmup = spec.decode_warmup;
  const model::DecodeBenchResult d = model::bench_decode(b);
  r.n_params = d.n_params;
  r.device = "cpu";
  r.dtype = d.dtype;
  r.decode_path = d.decode_path;
  const double B = static_cast<double>(spec.batch), L = static_cast<double>(spec.seq_len);
  r.ttft_ms = d.prefill_s * 1e3;
  r.prefill_tokens_per_s = d.prefill_s > 0 ? B * L / d.prefill_s : 0.0;
  r.decode_ms_per_token = d.decode_step_s * 1e3;
  r.decode_tokens_per_s = d.decode_step_s > 0 ? B / d.decode_step_s : 0.0;
  r.e2e_ms = d.e2e_s * 1e3;
  r.e2e_tokens_per_s = d.e2e_s > 0 ? B * spec.generate / d.e2e_s : 0.0;
  for (double s : d.step_s) r.decode_ms.push_back(s * 1e3);
  const model::DecodeMemory formula = model::decode_memory(cfg, spec.batch, spec.seq_len + spec.generate, 4);
  r.memory.weights = d.weights_bytes;
  r.memory.kv_cache = d.kv_bytes;
  r.memory.kv_formula = formula.kv_bytes;
  r.memory.gss_state = d.gss_state_bytes;
  r.memory.gss_state_formula = formula.gss_state_bytes;
  r.memory.peak = peak_rss_bytes();
  r.memory.activations = std::max<int64_t>(
      0, r.memory.peak - r.memory.baseline - r.memory.weights - r.memory.kv_cache - r.memory.gss_state);
  r.env = collect_provenance({"fp32", "fp32", "inference runs in fp32", kernels::kernel_selection(), "cpu", 1, ""});
  r.method = "prefill: one call, L = " + std::to_string(spec.seq_len) + " tokens in, the first token out (greedy), after "
             "an untimed warm-up on 64 tokens; decode: median of " + std::to_string(spec.decode_timed) +
             " steps after " + std::to_string(spec.decode_warmup) + " untimed ones (depth L+" +
             std::to_string(spec.decode_warmup + 1) + " .. L+" +
             std::to_string(spec.decode_warmup + spec.decode_timed) + "); end to end: L in, " +
             std::to_string(spec.generate) + " out; " + std::to_string(threads) +
             " thread(s), fp32, no autograd; memory: state tensors' bytes, weights' bytes, VmHWM of a fresh worker "
             "process minus its RSS before the model";
  return r;
}

InferencePointResult measure_inference_in_worker(const std::string& exe, const InferencePointSpec& spec, int timeout_s,
                                                 const RunControl* control) {
  InferencePointResult r;
  r.spec = spec;
  const WorkerAnswer a = run_json_worker(exe, {"__inference-point", "--spec", to_json(spec).dump()}, timeout_s, control);
  r.started_ms = a.started_ms;
  r.ended_ms = a.ended_ms;
  if (!a.error.empty()) {
    r.error = a.error;
    return r;
  }
  try {
    InferencePointResult got = inference_result_from_json(json::parse(a.json_line));
    got.started_ms = r.started_ms;
    got.ended_ms = r.ended_ms;
    return got;
  } catch (const std::exception& e) {
    r.error = std::string("the worker's answer is not an inference point: ") + e.what();
    return r;
  }
}

void validate_inference_sweep(const InferenceSweep& s) {
  if (s.models.empty()) throw Error("models", "name at least one model");
  const auto sized = [&](std::size_t n, const char* field) {
    if (n != 0 && n != s.models.size()) throw Error(field, "must be empty or hold one entry per model");
  };
  sized(s.model_configs.size(), "model_configs");
  sized(s.source_runs.size(), "source_runs");
  sized(s.checkpoints.size(), "checkpoints");
  if (s.seq_lens.empty()) throw Error("seq_lens", "list at least one prompt length");
  for (int64_t L : s.seq_lens)
    if (L < 1) throw Error("seq_lens", "prompt lengths must be >= 1, got " + std::to_string(L));
  if (s.batches.empty()) throw Error("batches", "list at least one batch size");
  for (int64_t B : s.batches)
    if (B < 1) throw Error("batches", "batch sizes must be >= 1, got " + std::to_string(B));
  if (s.generate < 2) throw Error("generate", "must be >= 2");
  if (s.decode_timed < 1 || s.decode_warmup < 0 || s.decode_warmup + s.decode_timed > s.generate - 1)
    throw Error("decode_timed", "decode warm-up + timed steps must fit in generate - 1 (" +
                                    std::to_string(s.generate - 1) + ")");
  if (s.device != "cpu")
    throw Error("device", "the inference benchmark measures on \"cpu\" in this build, got \"" + s.device + "\"");
}

namespace {
bool skipped(const InferenceSweep& s, int64_t L, int64_t B) { return B > 1 && B * L > s.max_batch_tokens; }
}  // namespace

std::size_t inference_point_count(const InferenceSweep& s) {
  std::size_t n = 0;
  for (int64_t L : s.seq_lens)
    for (int64_t B : s.batches) n += skipped(s, L, B) ? 0 : 1;
  return n * s.models.size();
}

std::vector<InferencePointResult> inference_sweep(const std::string& exe, const InferenceSweep& sweep,
                                                  const std::function<void(const InferencePointResult&)>& on_point,
                                                  RunControl& control) {
  validate_inference_sweep(sweep);
  std::vector<InferencePointResult> out;
  for (std::size_t mi = 0; mi < sweep.models.size(); ++mi)
    for (int64_t L : sweep.seq_lens)
      for (int64_t B : sweep.batches) {
        if (skipped(sweep, L, B)) continue;
        while (control.paused() && !control.cancel_requested())
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (control.cancel_requested()) return out;
        InferencePointSpec s;
        s.model = sweep.models[mi];
        if (!sweep.model_configs.empty()) s.model_config = sweep.model_configs[mi];
        if (!sweep.source_runs.empty()) s.source_run = sweep.source_runs[mi];
        if (!sweep.checkpoints.empty()) s.checkpoint = sweep.checkpoints[mi];
        s.seq_len = L;
        s.batch = B;
        s.generate = sweep.generate;
        s.decode_timed = sweep.decode_timed;
        s.decode_warmup = sweep.decode_warmup;
        s.threads = sweep.threads;
        s.device = sweep.device;
        InferencePointResult r = measure_inference_in_worker(exe, s, sweep.timeout_s, &control);
        if (control.cancel_requested() && r.error == "cancelled") return out;
        if (on_point) on_point(r);
        out.push_back(std::move(r));
      }
  return out;
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

InferenceJobResult run_inference_job(const InferenceJobSpec& spec,
                                     const std::function<void(const InferencePointResult&)>& on_point,
                                     RunControl& control) {
  const Project project = spec.get();
  InferenceJobResult r;
  r.project = project.name;
  r.store_path = spec.store_path.empty() ? project.store_path() : spec.store_path;
  r.sweep = spec.sweep;
  if (spec.use_project_models) {
    const ProfileSweep own = project_profile_sweep(project);
    r.sweep.models = own.models;
    r.sweep.model_configs = own.model_configs;
    r.sweep.source_runs.assign(own.models.size(), 0);
    r.sweep.checkpoints.assign(own.models.size(), "");
    if (r.sweep.models.empty()) throw Error(project.dir, "the project has no model to measure");
  }
  validate_inference_sweep(r.sweep);
  {
    // The store must open (and migrate) before minutes of measuring; each model's newest
    // finished training run of the same config is its source (and its checkpoint the weights).
    auto store = store::Store::open(r.store_path);
    if (spec.use_project_models) {
      store::RunListQuery q;
      q.project = project.name;
      q.kind = store::RunKind::Train;
      q.include_config = true;
      q.newest_first = true;
      const auto runs = store.list_runs(q);
      for (std::size_t i = 0; i < r.sweep.models.size(); ++i) {
        json wanted = r.sweep.model_configs[i];
        wanted.erase("name");
        for (const auto& e : runs) {
          if (e.run.status != store::RunStatus::Finished) continue;
          const json cfg = json::parse(e.run.config_json, nullptr, false);
          if (!cfg.is_object() || !cfg.contains("model")) continue;
          json m = cfg["model"];
          model::apply_saved_model_defaults(m);
          m.erase("name");
          if (m != wanted) continue;
          r.sweep.source_runs[i] = e.run.id;
          try {
            r.sweep.checkpoints[i] = pick_run_checkpoint(store, e.run.id, "", -1).first;
          } catch (const std::exception&) {
            r.sweep.checkpoints[i].clear();  // no checkpoint kept: the seed's weights (timing does not depend on them)
          }
          break;
        }
      }
    }
  }
  const std::string program = spec.program.empty() ? self_executable() : spec.program;
  if (spec.on_start) spec.on_start(r.sweep);
  r.points = inference_sweep(program, r.sweep, on_point, control);
  r.cancelled = control.cancel_requested();
  if (!r.points.empty()) r.run_ids = store_inference_results(r.store_path, r.project, r.points);
  return r;
}

}  // namespace pha::runtime

namespace pha::runtime {

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

}  // namespace pha::runtime
