// `pha bench inference`: prefill, decode and end-to-end timings and the memory of incremental
// decoding (weights, KV cache, GSS state, the rest) against the prompt length, each point in a
// fresh worker process (runtime/inference_bench.h); with --project the project's models are
// measured and recorded in its store (the Efficiency dock's Inference tab shows them).
// `__inference-point` is the hidden worker.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cmd_bench.h"
#include "cmd_progress.h"
#include "commands.h"
#include "core/error.h"
#include "core/process_stats.h"
#include "runtime/inference_bench.h"

namespace pha::cli {

namespace {

template <typename T>
std::vector<T> parse_list(const std::string& s, const char* option) {
  std::vector<T> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    if constexpr (std::is_same_v<T, std::string>) {
      out.push_back(item);
    } else {
      try {
        std::size_t used = 0;
        const long long v = std::stoll(item, &used);
        if (used != item.size()) throw std::invalid_argument(item);
        out.push_back(static_cast<T>(v));
      } catch (const std::exception&) {
        throw core::Error(option, "\"" + item + "\" is not an integer");
      }
    }
  }
  return out;
}

std::string mib(int64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return b;
}

struct InferenceOpts {
  std::string models = "pha-tiny,transformerpp-tiny,gss-only-tiny";
  std::string seq_lens = "256,512,1024,2048,4096,8192,16384,32768";
  std::string batches = "1,8";
  std::string project_dir;
  std::string json_out;
  runtime::InferenceSweep sweep;
};

}  // namespace

void print_inference_table(const std::vector<runtime::InferencePointResult>& rows) {
  std::printf("\n%-20s %6s %6s %3s %10s %12s %10s %11s %9s %9s %11s %9s %9s %9s\n", "model", "L", "L/ctx", "B",
              "TTFT ms", "prefill t/s", "decode ms", "decode t/s", "e2e s", "weights", "KV MiB", "GSS MiB", "rest MiB",
              "peak MiB");
  for (const auto& r : rows) {
    if (!r.error.empty()) {
      std::printf("%-20s %6lld %6s %3lld  failed: %s\n", r.spec.model.c_str(), static_cast<long long>(r.spec.seq_len),
                  "", static_cast<long long>(r.spec.batch), r.error.c_str());
      continue;
    }
    char ctx[16];
    std::snprintf(ctx, sizeof ctx, "%.2gx", r.context > 0 ? static_cast<double>(r.spec.seq_len) / r.context : 0.0);
    std::printf("%-20s %6lld %6s %3lld %10.1f %12.0f %10.3f %11.1f %9.2f %9s %11s %9s %9s %9s\n", r.spec.model.c_str(),
                static_cast<long long>(r.spec.seq_len), ctx, static_cast<long long>(r.spec.batch), r.ttft_ms,
                r.prefill_tokens_per_s, r.decode_ms_per_token, r.decode_tokens_per_s, r.e2e_ms / 1e3,
                mib(r.memory.weights).c_str(), mib(r.memory.kv_cache).c_str(), mib(r.memory.gss_state).c_str(),
                mib(r.memory.activations).c_str(), mib(r.memory.peak).c_str());
  }
  // The formula check and the decode slope per model and batch.
  bool all_match = true;
  for (const auto& r : rows)
    if (r.error.empty() &&
        (r.memory.kv_cache != r.memory.kv_formula || r.memory.gss_state != r.memory.gss_state_formula)) {
      all_match = false;
      std::printf("note: %s L=%lld B=%lld: allocated KV %lld / GSS %lld bytes, formula %lld / %lld\n",
                  r.spec.model.c_str(), static_cast<long long>(r.spec.seq_len), static_cast<long long>(r.spec.batch),
                  static_cast<long long>(r.memory.kv_cache), static_cast<long long>(r.memory.gss_state),
                  static_cast<long long>(r.memory.kv_formula), static_cast<long long>(r.memory.gss_state_formula));
    }
  if (all_match && !rows.empty())
    std::printf("KV cache and GSS state: allocated bytes = formula (2 x attn layers x G x head_dim x (L+generate) x B x 4; "
                "GSS layers x B x H x N x 2 x 4) at every point\n");
  std::vector<std::pair<std::string, int64_t>> seen;
  for (const auto& r : rows) {
    const std::pair<std::string, int64_t> key{r.spec.model, r.spec.batch};
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    const runtime::DecodeSlope s = runtime::decode_slope(rows, key.first, key.second);
    if (s.n < 2) continue;
    std::printf("decode slope %-20s B=%-3lld %+.4f ms per token per 1k context (intercept %.3f ms, %d points); "
                "ms/token at L=%lld is %.2fx that at L=%lld\n",
                key.first.c_str(), static_cast<long long>(key.second), s.slope_ms_per_1k, s.intercept_ms, s.n,
                static_cast<long long>(s.last_len), s.ratio_last_first, static_cast<long long>(s.first_len));
  }
  for (const auto& r : rows)
    if (r.error.empty()) {
      std::printf("method: %s\n", r.method.c_str());
      break;
    }
}

void add_bench_inference_command(CLI::App& bench, GlobalOptions& global) {
  auto o = std::make_shared<InferenceOpts>();
  auto* cmd = bench.add_subcommand(
      "inference", "Prefill / decode / end-to-end speed and memory (weights, KV cache, GSS state, rest) against the "
                   "prompt length L, each point in a fresh worker process; --project records them in its store");
  auto* models_opt = cmd->add_option("--models", o->models, "Comma-separated presets or model .json files");
  cmd->add_option("--seq-lens", o->seq_lens, "Comma-separated prompt lengths L");
  cmd->add_option("--batches", o->batches, "Comma-separated batch sizes (decode at batch 1 and a larger batch)");
  cmd->add_option("--generate", o->sweep.generate, "Tokens generated after the prompt (end to end)")
      ->check(CLI::Range(2, 1 << 20));
  cmd->add_option("--decode-steps", o->sweep.decode_timed, "Timed decode steps per point (median)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-batch-tokens", o->sweep.max_batch_tokens,
                  "Skip points with batch > 1 and batch x L above this")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--timeout", o->sweep.timeout_s, "Seconds per point before its worker is killed")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--project", o->project_dir,
                  "Measure this project's models (each distinct model config of its runs; --models overrides) and "
                  "record them in its store as runs named \"inference: <model>\"");
  auto* repeats_opt = cmd->add_option("--repeats", o->sweep.repeats,
                                      "Timings of every point, each in a fresh worker, the models interleaved "
                                      "(default 1; with --project 3: an efficiency claim tests its ratios over them)")
                          ->check(CLI::Range(1, 100));
  cmd->add_option("--json", o->json_out, "Also write every point as JSON to this file");
  cmd->callback([o, models_opt, repeats_opt, &global] {
    runtime::InferenceSweep& sweep = o->sweep;
    sweep.models = parse_list<std::string>(o->models, "--models");
    sweep.seq_lens = parse_list<int64_t>(o->seq_lens, "--seq-lens");
    sweep.batches = parse_list<int64_t>(o->batches, "--batches");
    sweep.threads = global.threads;
    if (repeats_opt->count() == 0 && !o->project_dir.empty()) sweep.repeats = 3;
    runtime::RunControl control;
    CancelOnSignal signals(control);
    std::size_t done = 0, total = 0;
    const auto on_point = [&](const runtime::InferencePointResult& r) {
      ++done;
      if (r.error.empty())
        std::fprintf(stderr, "[%zu/%zu] %s L=%lld B=%lld: TTFT %.1f ms, decode %.3f ms/token, peak %s MiB\n", done,
                     total, r.spec.model.c_str(), static_cast<long long>(r.spec.seq_len),
                     static_cast<long long>(r.spec.batch), r.ttft_ms, r.decode_ms_per_token,
                     mib(r.memory.peak).c_str());
      else
        std::fprintf(stderr, "[%zu/%zu] %s L=%lld B=%lld: %s\n", done, total, r.spec.model.c_str(),
                     static_cast<long long>(r.spec.seq_len), static_cast<long long>(r.spec.batch), r.error.c_str());
    };
    std::vector<runtime::InferencePointResult> rows;
    if (o->project_dir.empty()) {
      runtime::validate_inference_sweep(sweep);
      total = runtime::inference_point_count(sweep);
      std::printf("inference benchmark: %zu points, each in a fresh worker process\n", total);
      std::fflush(stdout);
      rows = runtime::inference_sweep(core::self_executable(), sweep, on_point, control);
      print_inference_table(rows);
    } else {
      runtime::InferenceJobSpec spec;
      spec.project = o->project_dir;
      spec.sweep = sweep;
      spec.use_project_models = models_opt->count() == 0;
      spec.on_start = [&](const runtime::InferenceSweep& s) {
        total = runtime::inference_point_count(s);
        std::printf("inference benchmark: %zu points (%zu models), each in a fresh worker process\n", total,
                    s.models.size());
        std::fflush(stdout);
      };
      const runtime::InferenceJobResult r = runtime::run_inference_job(spec, on_point, control);
      rows = r.points;
      print_inference_table(rows);
      std::printf("recorded %zu inference run(s) of project \"%s\" in %s\n", r.run_ids.size(), r.project.c_str(),
                  r.store_path.c_str());
    }
    if (!o->json_out.empty()) {
      nlohmann::json j = nlohmann::json::array();
      for (const auto& r : rows) j.push_back(runtime::to_json(r));
      std::ofstream(o->json_out) << j.dump(1) << "\n";
    }
    if (control.cancel_requested()) throw ExitWith(kCancelled);
  });

  auto spec = std::make_shared<std::string>();
  CLI::App* app = &bench;
  while (app->get_parent()) app = app->get_parent();
  auto* worker = app->add_subcommand("__inference-point", "Worker for `pha bench inference`: one point, JSON out");
  worker->group("");  // hidden
  worker->add_option("--spec", *spec, "InferencePointSpec JSON")->required();
  worker->callback([spec] {
    runtime::InferencePointResult r;
    try {
      r = runtime::measure_inference_point(runtime::inference_spec_from_json(nlohmann::json::parse(*spec)));
    } catch (const std::exception& e) {
      try {
        r.spec = runtime::inference_spec_from_json(nlohmann::json::parse(*spec));
      } catch (const std::exception&) {
      }
      r.error = e.what();
    }
    std::cout << runtime::to_json(r).dump() << std::endl;
  });
}

}  // namespace pha::cli
