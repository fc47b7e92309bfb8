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
#include "runtime/internal/worker_process.h"
#include "store/run_writer.h"

namespace pha::runtime {

using nlohmann::json;

namespace {

model::ModelConfig config_of(const InferencePointSpec& spec) {
  if (spec.model_config.is_object()) return model::model_config_from_json(spec.model_config, "model_config");
  if (spec.model.size() > 5 && spec.model.substr(spec.model.size() - 5) == ".json")
    return model::load_model_config(spec.model);
  return model::preset(spec.model);
}

}  // namespace

InferencePointResult measure_inference_point(const InferencePointSpec& spec) {
  InferencePointResult r;
  r.spec = spec;
  r.memory.baseline = core::current_rss_bytes();
  const int threads = device::configure_threads(spec.threads);
  const model::ModelConfig cfg = config_of(spec);
  r.context = spec.train_seq_len > 0 ? static_cast<int>(spec.train_seq_len) : cfg.context;
  nn::DecodeBenchSpec b;
  b.model = cfg;
  b.checkpoint = spec.checkpoint;
  b.prompt = spec.seq_len;
  b.batch = spec.batch;
  b.generate = spec.generate;
  b.decode_timed = spec.decode_timed;
  b.decode_warmup = spec.decode_warmup;
  const nn::DecodeBenchResult d = nn::bench_decode(b);
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
  r.memory.peak = core::peak_rss_bytes();
  r.memory.activations = std::max<int64_t>(
      0, r.memory.peak - r.memory.baseline - r.memory.weights - r.memory.kv_cache - r.memory.gss_state);
  r.env = device::collect_provenance({"fp32", "fp32", "inference runs in fp32", kernels::kernel_selection(), "cpu", 1, ""});
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
  return measure_in_worker<InferencePointResult>(
      exe, "__inference-point", spec, to_json(spec).dump(), timeout_s, control, "an inference point",
      [](const std::string& line) { return inference_result_from_json(json::parse(line)); });
}

void validate_inference_sweep(const InferenceSweep& s) {
  if (s.models.empty()) throw core::Error("models", "name at least one model");
  const auto sized = [&](std::size_t n, const char* field) {
    if (n != 0 && n != s.models.size()) throw core::Error(field, "must be empty or hold one entry per model");
  };
  sized(s.model_configs.size(), "model_configs");
  sized(s.source_runs.size(), "source_runs");
  sized(s.checkpoints.size(), "checkpoints");
  sized(s.train_seq_lens.size(), "train_seq_lens");
  if (s.seq_lens.empty()) throw core::Error("seq_lens", "list at least one prompt length");
  for (int64_t L : s.seq_lens)
    if (L < 1) throw core::Error("seq_lens", "prompt lengths must be >= 1, got " + std::to_string(L));
  if (s.batches.empty()) throw core::Error("batches", "list at least one batch size");
  for (int64_t B : s.batches)
    if (B < 1) throw core::Error("batches", "batch sizes must be >= 1, got " + std::to_string(B));
  if (s.generate < 2) throw core::Error("generate", "must be >= 2");
  if (s.decode_timed < 1 || s.decode_warmup < 0 || s.decode_warmup + s.decode_timed > s.generate - 1)
    throw core::Error("decode_timed", "decode warm-up + timed steps must fit in generate - 1 (" +
                                    std::to_string(s.generate - 1) + ")");
  if (s.repeats < 1 || s.repeats > 100) throw core::Error("repeats", "must be 1 to 100, got " + std::to_string(s.repeats));
  if (s.device != "cpu")
    throw core::Error("device", "the inference benchmark measures on \"cpu\" in this build, got \"" + s.device + "\"");
}

namespace {
bool skipped(const InferenceSweep& s, int64_t L, int64_t B) { return B > 1 && B * L > s.max_batch_tokens; }
}  // namespace

std::size_t inference_point_count(const InferenceSweep& s) {
  std::size_t n = 0;
  for (int64_t L : s.seq_lens)
    for (int64_t B : s.batches) n += skipped(s, L, B) ? 0 : 1;
  return n * s.models.size() * static_cast<std::size_t>(std::max(1, s.repeats));
}

std::vector<InferencePointResult> inference_sweep(const std::string& exe, const InferenceSweep& sweep,
                                                  const std::function<void(const InferencePointResult&)>& on_point,
                                                  RunControl& control) {
  validate_inference_sweep(sweep);
  std::vector<InferencePointResult> out;
  for (int rep = 0; rep < sweep.repeats; ++rep)
    for (int64_t L : sweep.seq_lens)
      for (int64_t B : sweep.batches)
        for (std::size_t mi = 0; mi < sweep.models.size(); ++mi) {
        if (skipped(sweep, L, B)) continue;
        while (control.paused() && !control.cancel_requested())
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (control.cancel_requested()) return out;
        InferencePointSpec s;
        s.model = sweep.models[mi];
        if (!sweep.model_configs.empty()) s.model_config = sweep.model_configs[mi];
        if (!sweep.source_runs.empty()) s.source_run = sweep.source_runs[mi];
        if (!sweep.checkpoints.empty()) s.checkpoint = sweep.checkpoints[mi];
        if (!sweep.train_seq_lens.empty()) s.train_seq_len = sweep.train_seq_lens[mi];
        s.seq_len = L;
        s.batch = B;
        s.generate = sweep.generate;
        s.decode_timed = sweep.decode_timed;
        s.decode_warmup = sweep.decode_warmup;
        s.threads = sweep.threads;
        s.device = sweep.device;
        s.repeat = rep;
        InferencePointResult r = measure_inference_in_worker(exe, s, sweep.timeout_s, &control);
        if (control.cancel_requested() && r.error == "cancelled") return out;
        if (on_point) on_point(r);
        out.push_back(std::move(r));
      }
  return out;
}

InferenceJobResult run_inference_job(const InferenceJobSpec& spec,
                                     const std::function<void(const InferencePointResult&)>& on_point,
                                     RunControl& control) {
  const project::Project project = spec.get();
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
    r.sweep.train_seq_lens.assign(own.models.size(), 0);
    if (r.sweep.models.empty()) throw core::Error(project.dir, "the project has no model to measure");
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
          if (cfg.contains("training") && cfg["training"].is_object())
            r.sweep.train_seq_lens[i] = cfg["training"].value("seq_len", int64_t{0});
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
  const std::string program = spec.program.empty() ? core::self_executable() : spec.program;
  if (spec.on_start) spec.on_start(r.sweep);
  r.points = inference_sweep(program, r.sweep, on_point, control);
  r.cancelled = control.cancel_requested();
  if (!r.points.empty()) r.run_ids = store_inference_results(r.store_path, r.project, r.points);
  return r;
}

}  // namespace pha::runtime
