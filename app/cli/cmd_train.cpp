// `pha train`, `pha quickstart`, `pha generate`: run a project's runs headless into its store
// (the same runs.sqlite the GUI reads), and sample text from a run's checkpoint.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "cmd_progress.h"
#include "cmd_runs.h"
#include "commands.h"
#include "core/error.h"
#include "core/paths.h"
#include "device/system_info.h"
#include "data/tokenizer.h"
#include "runtime/generation.h"
#include "runtime/job.h"
#include "runtime/profile_store.h"
#include "runtime/profiler.h"
#include "runtime/project.h"
#include "runtime/project_files.h"
#include "runtime/trainer.h"
#include "store/store.h"

namespace pha::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct TrainOptions {
  std::string project;
  std::vector<std::string> runs;
  int64_t resume = 0;
  int64_t steps = 0;
  std::string device;
  bool quiet = false;
  bool profile = true;  // run the project's efficiency profile after its runs (project.json "profile")
};

int exit_code_for(runtime::JobStatus s) {
  switch (s) {
    case runtime::JobStatus::Finished: return kOk;
    case runtime::JobStatus::Diverged: return kDiverged;
    case runtime::JobStatus::Cancelled:
    case runtime::JobStatus::Interrupted: return kCancelled;
    default: return kFailure;
  }
}

// The project's efficiency profile after its runs, as the workbench does (project.json "profile"
// with after_runs): each distinct model, each point in a fresh worker; stored as one
// "profile: <run>" run per model.
int profile_project(const runtime::Project& project, int threads, bool quiet, runtime::RunControl& control) {
  runtime::ProfileSweep sweep = runtime::project_profile_sweep(project);
  sweep.threads = threads;
  std::printf("\nefficiency profile (project.json \"profile\"): %zu points, each in a fresh worker process\n",
              runtime::sweep_point_count(sweep));
  std::fflush(stdout);
  ProgressPrinter printer("profile", quiet);
  const auto rows = runtime::profile_sweep(runtime::self_executable(), sweep, printer, control);
  std::printf("%-22s %6s %4s %-8s %12s %12s  %s\n", "model", "T", "B", "phase", "tokens/s", "peak RSS", "note");
  for (const auto& r : rows)
    std::printf("%-22s %6d %4d %-8s %12.0f %12s  %s\n", r.spec.model.c_str(), r.spec.seq_len, r.spec.batch,
                r.spec.phase.c_str(), r.tokens_per_s, r.error.empty() ? format_bytes(r.peak_bytes).c_str() : "-",
                r.error.c_str());
  if (!rows.empty() && rows.front().error.empty()) std::printf("method: %s\n", rows.front().method.c_str());
  const auto ids = runtime::store_profile_results(project.store_path(), project.name, rows);
  std::printf("recorded %zu profile run(s) in %s\n", ids.size(), project.store_path().c_str());
  return control.cancel_requested() ? kCancelled : kOk;
}

// Runs the chosen runs one after another; returns the exit code of the worst outcome.
int train_project(const TrainOptions& o, int threads, std::vector<int64_t>* run_ids) {
  const runtime::Project project = runtime::load_project(o.project);  // bad input: before any run
  std::vector<std::string> names = o.runs.empty() ? runtime::run_names(project) : o.runs;
  for (const auto& n : names) project.run(n);
  if (o.resume > 0 && names.size() != 1) {
    auto s = store::Store::open(project.store_path());
    auto info = s.get_run(o.resume);
    if (!info) throw Error(project.store_path(), "no run with id " + std::to_string(o.resume));
    names = {info->name};
  }
  runtime::RunControl control;
  CancelOnSignal signals(control);
  int worst = kOk;
  for (const auto& name : names) {
    runtime::JobSpec spec;
    spec.project = o.project;
    spec.run = name;
    spec.resume_run_id = o.resume;
    spec.threads = threads;
    spec.device = o.device;
    if (o.steps > 0) {
      spec.training_overrides["steps"] = o.steps;
      const auto& t = project.run(name).training;
      if (t.warmup_steps > o.steps) spec.training_overrides["warmup_steps"] = o.steps / 10;
    }
    ProgressPrinter printer(name, o.quiet);
    const runtime::JobResult r = runtime::run_job(spec, printer, control);
    if (run_ids) run_ids->push_back(r.run_id);
    std::fprintf(stdout, "run %lld %s: %s after %lld steps (loss %.4f)%s%s\n", static_cast<long long>(r.run_id),
                 name.c_str(), runtime::job_status_name(r.status), static_cast<long long>(r.steps_done), r.final_loss,
                 r.reason.empty() ? "" : ": ", r.reason.c_str());
    std::fflush(stdout);
    const int code = exit_code_for(r.status);
    if (code != kOk && (worst == kOk || code == kCancelled)) worst = code;
    if (control.cancel_requested()) break;
  }
  // Like the window: the profile follows a complete, successful pass over all of the runs.
  if (worst == kOk && o.profile && o.runs.empty() && o.resume == 0 && project.profile.present &&
      project.profile.after_runs && !control.cancel_requested()) {
    worst = profile_project(project, threads, o.quiet, control);
  }
  return worst;
}

void print_quickstart_summary(const std::string& store_path, const std::vector<int64_t>& ids) {
  auto s = store::Store::open(store_path);
  std::printf("\n%-18s %9s %9s %9s %8s %10s  %s\n", "run", "params", "val loss", "val ppl", "val bpb", "tok/s", "status");
  for (int64_t id : ids) {
    auto r = s.get_run(id);
    if (!r) continue;
    auto val = [&](const char* k) {
      auto m = s.summary(id, k);
      return m ? m->last : std::nan("");
    };
    std::printf("%-18s %9lld %9.4f %9.3f %8.4f %10.0f  %s\n", r->name.c_str(), static_cast<long long>(r->n_params),
                val("val/loss"), val("val/ppl"), val("val/bpb"), val("train/tokens_per_s"), store::to_string(r->status));
  }
  for (int64_t id : ids) {
    auto steps = s.mixer_steps(id);
    auto r = s.get_run(id);
    if (steps.empty() || !r) continue;
    auto first = s.read_mixer(id, steps.front());
    auto last = s.read_mixer(id, steps.back());
    if (!first || !last || std::isnan(last->weights.at(0))) continue;
    std::printf("\nmixer weights of %s (gss / attn / ffn; 1/3 each means no preference), step %lld -> %lld:\n",
                r->name.c_str(), static_cast<long long>(first->step), static_cast<long long>(last->step));
    for (int l = 0; l < last->layers; ++l) {
      const float* a = &first->weights[static_cast<size_t>(l * first->branches)];
      const float* b = &last->weights[static_cast<size_t>(l * last->branches)];
      std::printf("  layer %d: %.3f %.3f %.3f -> %.3f %.3f %.3f\n", l, a[0], a[1], a[2], b[0], b[1], b[2]);
    }
  }
  std::printf("\nstore: %s (open the folder in pha-workbench, or `pha runs list --store %s`)\n", store_path.c_str(),
              store_path.c_str());
}

void add_train(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<TrainOptions>();
  auto* cmd = app.add_subcommand("train", "Train a project's runs (all, or --run NAME) into its runs.sqlite");
  cmd->add_option("project", o->project, "Project folder (or its project.json)")->required();
  cmd->add_option("--run", o->runs, "Run name(s) from the project (default: every run, in order)");
  cmd->add_option("--resume", o->resume, "Resume this run id from its last checkpoint");
  cmd->add_option("--steps", o->steps, "Override training.steps (warmup shortened to fit)")->check(CLI::PositiveNumber);
  cmd->add_option("--device", o->device, "cpu | cuda | auto (default: training.device)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  cmd->add_flag("--quiet", o->quiet, "Only the final line per run and errors");
  cmd->add_flag("--no-profile", [o](std::int64_t) { o->profile = false; },
                "Skip the efficiency profile that project.json's \"profile\" section asks for after all runs");
  cmd->callback([o, &global] {
    const int code = train_project(*o, global.threads, nullptr);
    if (code != kOk) throw ExitWith(code);
  });
}

void add_quickstart(CLI::App& app, GlobalOptions& global) {
  auto dir = std::make_shared<std::string>();
  auto steps = std::make_shared<int64_t>(0);
  auto* cmd = app.add_subcommand("quickstart",
                                 "Train the quickstart project (pha-tiny vs transformer-tiny vs sequential-tiny on the "
                                 "Gutenberg books), then print the comparison and the learned mixer weights");
  cmd->add_option("--dir", *dir, "Working project folder (default: <data dir>/projects/quickstart)");
  cmd->add_option("--steps", *steps, "Override training.steps (a shorter demonstration)")->check(CLI::PositiveNumber);
  auto no_profile = std::make_shared<bool>(false);
  cmd->add_flag("--no-profile", *no_profile, "Skip the efficiency profile after the runs");
  cmd->callback([dir, steps, no_profile, &global] {
    const fs::path work = dir->empty() ? pha::data_dir() / "projects" / "quickstart" : fs::path(*dir);
    if (!fs::exists(runtime::project_file_in(work.string()))) {
      runtime::copy_template("quickstart", work.string());
      std::fprintf(stderr, "quickstart: copied the template %s to %s\n", runtime::find_template("quickstart").c_str(),
                   work.c_str());
    }
    TrainOptions o;
    o.project = work.string();
    o.steps = *steps;
    o.profile = !*no_profile;
    std::vector<int64_t> ids;
    const int code = train_project(o, global.threads, &ids);
    print_quickstart_summary(runtime::store_path_in(work.string()), ids);
    if (code != kOk) throw ExitWith(code);
  });
}

void add_generate(CLI::App& app, GlobalOptions& global) {
  struct Opts {
    RunLocator where;
    std::string checkpoint, prompt;
    int tokens = 200;
    runtime::SamplingSettings sampling;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("generate", "Sample text from a run's checkpoint");
  add_locator_options(cmd, o->where, true);
  cmd->add_option("--checkpoint", o->checkpoint, "Checkpoint file (default: the run's last)");
  cmd->add_option("--prompt", o->prompt, "Prompt text")->required();
  cmd->add_option("--tokens", o->tokens, "Tokens to generate")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--temperature", o->sampling.temperature, "Temperature (0: greedy)");
  cmd->add_option("--top-k", o->sampling.top_k, "Top-k (0: off)");
  cmd->add_option("--top-p", o->sampling.top_p, "Nucleus top-p (1: off)");
  cmd->add_option("--seed", o->sampling.seed, "Sampling seed");
  cmd->callback([o, &global] {
    pha::configure_threads(global.threads);
    std::int64_t run_id = 0;
    {
      auto s = store::Store::open(o->where.store_path());
      run_id = require_run(s, o->where.run).id;
    }
    const auto r = runtime::generate_from_run(o->where.store_path(), run_id, o->prompt, o->tokens, o->sampling,
                                              o->checkpoint);
    std::printf("%s%s\n", o->prompt.c_str(), r.text.c_str());
  });
}

}  // namespace

void add_train_commands(CLI::App& app, GlobalOptions& global) {
  add_train(app, global);
  add_quickstart(app, global);
  add_generate(app, global);
}

}  // namespace pha::cli
