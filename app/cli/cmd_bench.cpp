// `pha bench`: the efficiency table (training-step and forward tokens/s and peak memory against
// T, each point in a fresh worker process) for chosen presets or a project's models (then
// recorded in its store by runtime::run_profile_job), plus the run store's figures
// (pha-store-bench, when built next to this program). `__profile-point` is the hidden worker.
#include "cmd_bench.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <fstream>
#include <sstream>

#include "cmd_progress.h"
#include "commands.h"
#include "core/process_stats.h"
#include "core/error.h"
#include "runtime/profiler.h"

namespace pha::cli {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

int run_store_bench(const std::string& args) {
  const fs::path exe_dir = fs::path(core::self_executable()).parent_path();
  for (const fs::path& p : {exe_dir / "../../engine/store/pha-store-bench", exe_dir / "pha-store-bench"}) {
    if (!fs::exists(p)) continue;
    std::fflush(stdout);
    const std::string cmd = "'" + fs::canonical(p).string() + "' " + args;
    return std::system(cmd.c_str());
  }
  std::fprintf(stderr, "pha bench: pha-store-bench not found next to pha; build the target pha-store-bench\n");
  return -1;
}

}  // namespace

void print_profile_table(const std::vector<runtime::ProfilePointResult>& rows) {
  std::printf("\n%-22s %6s %4s %-8s %12s %12s %10s  %s\n", "model", "T", "B", "phase", "tokens/s", "peak RSS",
              "params", "note");
  for (const auto& r : rows)
    std::printf("%-22s %6d %4d %-8s %12.0f %12s %10lld  %s\n", r.spec.model.c_str(), r.spec.seq_len, r.spec.batch,
                r.spec.phase.c_str(), r.tokens_per_s, r.error.empty() ? format_bytes(r.peak_bytes).c_str() : "-",
                static_cast<long long>(r.n_params), r.error.c_str());
  for (const auto& r : rows)
    if (r.error.empty()) {
      std::printf("method: %s\n", r.method.c_str());
      break;
    }
}

void print_profile_header(const runtime::ProfileSweep& sweep) {
  std::printf("\nefficiency profile: %zu points (%zu models x %zu lengths x %zu phases), each in a fresh worker "
              "process\n",
              runtime::sweep_point_count(sweep), sweep.models.size(), sweep.seq_lens.size(), sweep.phases.size());
  std::fflush(stdout);
}

void print_profile_result(const runtime::ProfileJobResult& r) {
  print_profile_table(r.points);
  std::printf("recorded %zu profile run(s) of project \"%s\" in %s\n", r.run_ids.size(), r.project.c_str(),
              r.store_path.c_str());
}

runtime::ProfileJobResult run_project_profile(const runtime::ProfileJobSpec& spec, bool quiet,
                                              runtime::RunControl& control) {
  runtime::ProfileJobSpec s = spec;
  s.on_start = print_profile_header;
  ProgressPrinter printer("profile", quiet);
  const runtime::ProfileJobResult r = runtime::run_profile_job(s, printer, control);
  print_profile_result(r);
  return r;
}

namespace {

struct BenchOpts {
  std::string models = "pha-tiny,transformer-tiny,sequential-tiny";
  std::string seq_lens = "512,1024,2048,4096,8192";
  std::string phases = "forward,train";
  runtime::ProfileSweep sweep;
  std::string json_out;
  std::string project_dir;
  bool store = false;
  std::string store_args;
};

// `pha bench` without a sub-command: presets (or model files) measured and printed, or a
// project's models measured and recorded in its store by the engine's profile job.
void run_bench(BenchOpts& o, bool models_given, int threads) {
  o.sweep.models = split_list(o.models);
  o.sweep.phases = split_list(o.phases);
  o.sweep.seq_lens.clear();
  for (const auto& t : split_list(o.seq_lens)) {
    try {
      o.sweep.seq_lens.push_back(std::stoi(t));
    } catch (const std::exception&) {
      throw core::Error("--seq-lens", "\"" + t + "\" is not an integer");
    }
  }
  for (const auto& p : o.sweep.phases)
    if (p != "forward" && p != "train") throw core::Error("--phases", "entries must be forward or train, got \"" + p + "\"");
  if (!o.project_dir.empty() && !models_given) o.sweep.models.clear();  // the project's own
  o.sweep.threads = threads;
  runtime::RunControl control;
  CancelOnSignal signals(control);
  std::vector<runtime::ProfilePointResult> rows;
  if (o.project_dir.empty()) {
    ProgressPrinter printer("bench");
    rows = runtime::profile_sweep(core::self_executable(), o.sweep, printer, control);
    print_profile_table(rows);
  } else {
    runtime::ProfileJobSpec spec;
    spec.project = o.project_dir;
    spec.sweep = o.sweep;
    spec.threads = threads;
    rows = run_project_profile(spec, false, control).points;
  }
  if (!o.json_out.empty()) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : rows) j.push_back(runtime::to_json(r));
    std::ofstream(o.json_out) << j.dump(1) << "\n";
  }
  if (o.store && run_store_bench(o.store_args) != 0) throw ExitWith(kFailure);
  if (control.cancel_requested()) throw ExitWith(kCancelled);
}

}  // namespace

void add_bench_commands(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<BenchOpts>();
  // `bench` is shared with other areas (`pha bench model`): without a sub-command it prints the
  // efficiency table.
  CLI::App* cmd = nullptr;
  for (CLI::App* s : app.get_subcommands([](CLI::App* a) { return a->get_name() == "bench"; })) cmd = s;
  if (!cmd) cmd = app.add_subcommand("bench", "Benchmarks");
  cmd->description("Benchmarks. Without a sub-command: the efficiency table (tokens/s and peak memory against T per "
                   "model, each point in a fresh worker process); --store adds the run-store figures");
  cmd->require_subcommand(0, 1);
  auto* store_cmd = cmd->add_subcommand("store", "Run-store figures only (runs pha-store-bench)");
  store_cmd->callback([o] {
    if (run_store_bench(o->store_args) != 0) throw ExitWith(kFailure);
  });
  add_bench_inference_command(*cmd, global);
  cmd->add_option("--models", o->models, "Comma-separated presets or model .json files");
  cmd->add_option("--seq-lens", o->seq_lens, "Comma-separated sequence lengths");
  cmd->add_option("--phases", o->phases, "forward,train");
  cmd->add_option("--tokens-per-batch", o->sweep.tokens_per_batch, "B = max(1, this / T)")->check(CLI::PositiveNumber);
  cmd->add_option("--repeats", o->sweep.repeats, "Timed steps per point (median)")->check(CLI::PositiveNumber);
  cmd->add_option("--warmup", o->sweep.warmup, "Untimed steps per point")->check(CLI::NonNegativeNumber);
  cmd->add_option("--timeout", o->sweep.timeout_s, "Seconds per point before the worker is killed");
  cmd->add_option("--device", o->sweep.device, "cpu | cuda | auto")->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  cmd->add_option("--json", o->json_out, "Also write the results as JSON to this file");
  auto* models_opt = cmd->get_option("--models");
  cmd->add_option("--project", o->project_dir,
                  "Profile this project's models (its runs' configs; --models overrides) and record the results in "
                  "its store under its name (one profile run per model; the workbench's Efficiency dock shows them)");
  cmd->add_flag("--store", o->store, "Also run pha-store-bench (store listing / downsampled-read timings)");
  cmd->add_option("--store-args", o->store_args, "Arguments passed to pha-store-bench");
  cmd->callback([o, cmd, models_opt, &global] {
    if (!cmd->get_subcommands().empty()) return;  // `bench model`, `bench store`, ...
    run_bench(*o, models_opt->count() > 0, global.threads);
  });

  auto spec = std::make_shared<std::string>();
  auto* worker = app.add_subcommand("__profile-point", "Worker for `pha bench`: measure one point, print JSON");
  worker->group("");  // hidden
  worker->add_option("--spec", *spec, "ProfilePointSpec JSON")->required();
  worker->callback([spec] {
    runtime::ProfilePointResult r;
    try {
      r = runtime::measure_point(runtime::profile_spec_from_json(nlohmann::json::parse(*spec)));
    } catch (const std::exception& e) {
      r.spec = runtime::profile_spec_from_json(nlohmann::json::parse(*spec));
      r.error = e.what();
    }
    std::cout << runtime::to_json(r).dump() << std::endl;
  });
}

}  // namespace pha::cli
