// `pha train`, `pha quickstart`, `pha generate`: run a project's runs headless into its store
// (the same runs.sqlite the GUI reads), and sample text from a run's checkpoint.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <functional>
#include <optional>
#include <thread>

#include "cmd_bench.h"
#include "cmd_launch.h"
#include "cmd_progress.h"
#include "cmd_runs.h"
#include "commands.h"
#include "core/error.h"
#include "core/paths.h"
#include "device/system_info.h"
#include "distributed/process_group.h"
#include "data/tokenizer.h"
#include "runtime/generation.h"
#include "runtime/job.h"
#include "runtime/local_parallel.h"
#include "runtime/profile_job.h"
#include "runtime/profiler.h"
#include "project/project.h"
#include "project/project_files.h"
#include "project/project_queue.h"
#include "project/project_tuning.h"
#include "project/project_report.h"
#include "runtime/trainer.h"
#include "queue/pass_plan.h"
#include "queue/side_by_side.h"
#include "project/run_threads.h"
#include "queue/work_queue.h"
#include "search_runner/search_job.h"
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
  bool only_new = false;  // leave out the runs the store holds finished with the same configuration
  bool print_queue = false;  // print the pass's items (queue::queue_item_json) and train nothing
  int jobs = 0;              // training runs side by side; 0: what the machine affords (project::default_jobs)
  LaunchOptions launch;  // --nproc etc. (cmd_launch.h)
  std::shared_ptr<distributed::ProcessGroup> group;  // this worker's, when data-parallel
  bool lead() const { return !group || group->rank() == 0; }
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

runtime::JobStatus status_of(const queue::QueueItemResult& r) {
  for (auto st : {runtime::JobStatus::Finished, runtime::JobStatus::Failed, runtime::JobStatus::Diverged,
                  runtime::JobStatus::Cancelled, runtime::JobStatus::Interrupted})
    if (r.status == runtime::job_status_name(st)) return st;
  return runtime::JobStatus::Failed;
}

// The queue's printing observer: ProgressPrinter per item (its label changes with the item).
class QueuePrinter : public search_runner::SearchObserver {
 public:
  QueuePrinter(std::string label, bool quiet, bool lines = false) : printer_(std::move(label), quiet, lines) {}
  void on_step(const runtime::StepMetrics& m) override { printer_.on_step(m); }
  void on_eval(const runtime::EvalEvent& e) override { printer_.on_eval(e); }
  void on_log(const runtime::LogEvent& e) override { printer_.on_log(e); }
  void on_status(const runtime::StatusEvent& e) override { printer_.on_status(e); }
  void on_efficiency(const runtime::EfficiencyEvent& e) override { printer_.on_efficiency(e); }

 private:
  ProgressPrinter printer_;
};

// The pass's jobs: --jobs, else what the machine affords for its runs (project::default_jobs:
// cores / the widest run's cores); one for a data-parallel pass. Said when more than one.
int pass_jobs(const TrainOptions& o, const std::vector<project::QueueItem>& items, int threads) {
  if (o.group || o.launch.nproc > 1) return 1;
  std::vector<const project::RunPlan*> plans;
  for (const auto& item : items)
    if (item.kind == project::QueueItemKind::Train && item.plan) plans.push_back(item.plan.get());
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int jobs = o.jobs > 0 ? o.jobs : project::default_jobs(plans, threads, cores);
  if (jobs > 1 && plans.size() > 1 && !o.print_queue)
    std::printf("jobs: %d training runs side by side%s (each run's threads by its plan: docs/performance.md)\n", jobs,
                o.jobs > 0 ? " (--jobs)" : " (this machine's cores / each run's threads; --jobs to change)");
  return jobs;
}

// Trains `batch` (the queue's live training runs) side by side in `pha __train-job` workers
// (queue/side_by_side.h); each run's lines carry its name.
void train_side_by_side(queue::WorkQueue& queue, const std::vector<project::QueueItem>& batch, int jobs,
                        const TrainOptions& o, runtime::RunControl& control,
                        const std::function<void(const project::QueueItem&, const queue::QueueItemResult&)>& report) {
  std::vector<std::unique_ptr<QueuePrinter>> printers;
  for (const auto& item : batch) printers.push_back(std::make_unique<QueuePrinter>(item.run, o.quiet, true));
  queue::SideBySideHooks hooks;
  hooks.observer = [&](std::size_t i) -> runtime::RunObserver& { return *printers[i]; };
  hooks.started = [&](std::size_t i) {
    if (!o.quiet) std::fprintf(stderr, "[%s] started (side by side, up to %d at once)\n", batch[i].run.c_str(), jobs);
  };
  std::string bad_input;  // a run that failed before it reached the store: the command's error, as in one process
  hooks.ended = [&](std::size_t i, const queue::QueueItemResult& r) {
    queue.ended(batch[i], r);
    if (r.run_id == 0 && r.status == "failed") {
      if (bad_input.empty()) bad_input = r.reason;
      control.request_cancel();  // the other runs stop at their next step, with a checkpoint
      return;
    }
    report(batch[i], r);
  };
  const std::vector<std::size_t> never = queue::run_side_by_side(batch, queue.settings(), jobs, control, hooks);
  std::vector<project::QueueItem> back;
  for (std::size_t i : never) back.push_back(batch[i]);
  queue.put_back(back);
  if (!bad_input.empty()) throw core::Error(bad_input);
}

// Runs the project's queue through the engine's one queue (queue/work_queue.h: the chosen
// runs, then the efficiency profile when the whole project was trained and every run finished,
// as in the window); returns the exit code of the worst outcome.
int train_project(const TrainOptions& o, int threads, std::vector<int64_t>* run_ids) {
  // Bad input: before any run. The pass is planned once, as the window plans it
  // (queue/pass_plan.h): the project with the tune follow-ups its store already plans, the runs
  // to train, then the profile.
  const queue::PassPlan plan = queue::read_pass(o.project);
  for (const auto& note : plan.notes) std::printf("%s\n", note.c_str());
  queue::PassRequest request;
  request.runs = o.runs;
  request.resume_run_id = o.resume;
  request.profile = o.profile && !o.group;  // the efficiency profile is one process's measurement
  request.only_new = o.only_new;            // the window's "Train only the new runs"
  const std::vector<project::QueueItem> items = queue::pass_items(plan, request);
  if (o.lead())
    for (const auto& t : queue::left_out(plan, request))
      std::printf("%s: already trained with this configuration (run %lld), left out\n", t.run.c_str(),
                  static_cast<long long>(t.run_id));
  if (items.empty()) {
    if (o.lead()) std::printf("every run is already trained with this configuration; nothing to train\n");
    return kOk;
  }
  queue::QueueSettings settings;
  settings.threads = threads;
  settings.device = o.device;
  settings.steps = o.steps;
  settings.group = o.group;
  settings.on_profile_start = print_profile_header;
  if (o.lead())
    settings.on_tuning_followups = [](const std::vector<std::string>& runs, const std::vector<std::string>& notes) {
      for (const auto& note : notes) std::printf("%s\n", note.c_str());
      if (runs.empty()) return;
      std::printf("tune: %zu follow-up run(s) planned from the results (docs/project-format.md, \"tune\"):", runs.size());
      for (const auto& r : runs) std::printf(" %s", r.c_str());
      std::printf("\n");
      std::fflush(stdout);
    };
  queue::WorkQueue queue(settings);
  queue.add(items, plan.project.get());
  if (o.print_queue) {  // what the pass would train, as the window would queue it; nothing runs
    json out = json::array();
    for (const auto& item : queue.position().next) out.push_back(queue::queue_item_json(item));
    std::printf("%s\n", out.dump(2).c_str());
    return kOk;
  }
  const int jobs = pass_jobs(o, queue.position().next, threads);  // the queued items carry their plans
  runtime::RunControl control;
  CancelOnSignal signals(control);
  int worst = kOk;
  std::vector<std::pair<project::QueueItem, std::string>> skipped;
  auto report = [&](const project::QueueItem& item, const queue::QueueItemResult& r) {
    if (run_ids) run_ids->push_back(r.run_id);
    const runtime::JobStatus status = status_of(r);
    if (o.lead()) {  // rank 0 reports the run
      std::fprintf(stdout, "run %lld %s: %s after %lld steps (loss %.4f)%s%s\n", static_cast<long long>(r.run_id),
                   item.run.c_str(), r.status.c_str(), static_cast<long long>(r.steps_done), r.final_loss,
                   r.reason.empty() ? "" : ": ", r.reason.c_str());
      std::fflush(stdout);
    }
    const int code = exit_code_for(status);
    if (code != kOk && (worst == kOk || code == kCancelled)) worst = code;
  };
  while (!control.cancel_requested()) {
    const auto item = queue.next(&skipped);
    for (const auto& [what, why] : skipped) std::printf("efficiency profile skipped: %s\n", why.c_str());
    skipped.clear();
    if (!item) break;
    if (jobs > 1 && item->kind == project::QueueItemKind::Train) {
      const std::vector<project::QueueItem> batch = queue.with_trains_after(*item, SIZE_MAX);
      if (batch.size() > 1) {
        train_side_by_side(queue, batch, jobs, o, control, report);
        continue;
      }
    }
    const bool profile = item->kind == project::QueueItemKind::Profile;
    QueuePrinter printer(profile ? "profile" : item->run, o.quiet || !o.lead());
    const queue::QueueItemResult r = queue::run_queue_item(*item, queue.settings(), printer, control);
    queue.ended(*item, r);
    // Bad input found when the item started (a run's data, a resume id): the command's error, as
    // before any run.
    if (r.error) std::rethrow_exception(r.error);
    if (profile) {
      if (r.profile) print_profile_result(*r.profile);
      else std::fprintf(stderr, "efficiency profile failed: %s\n", r.reason.c_str());
      if (!r.finished()) worst = r.profile ? kCancelled : kFailure;
      continue;
    }
    report(*item, r);
  }
  return worst;
}

// A data-parallel worker: validate the project first (every rank fails alike on bad input),
// then join the group.
std::shared_ptr<distributed::ProcessGroup> connect_worker(const TrainOptions& o, const distributed::DistConfig& env) {
  const project::Project project = project::load_project(o.project);
  const std::string device =
      runtime::Trainer::resolve_device(o.device.empty() ? project.runs.front().training.device : o.device);
  return distributed::ProcessGroup::connect(env, device);
}

void print_quickstart_summary(const std::string& store_path, const std::vector<int64_t>& ids) {
  auto s = store::Store::open(store_path);
  std::printf("\n%-28s %9s %9s %9s %8s %10s  %s\n", "run", "params", "val loss", "val ppl", "val bpb", "tok/s", "status");
  for (int64_t id : ids) {
    auto r = s.get_run(id);
    if (!r) continue;
    auto val = [&](const char* k) {
      auto m = s.summary(id, k);
      return m ? m->last : std::nan("");
    };
    std::printf("%-28s %9lld %9.4f %9.3f %8.4f %10.0f  %s\n", r->name.c_str(), static_cast<long long>(r->n_params),
                val("val/loss"), val("val/ppl"), val("val/bpb"), val("train/tokens_per_s"), store::to_string(r->status));
  }
  // The learned mixer of one hybrid run (the last one with a mixer: with confirmation seeds, a
  // replica the claims read); the variants without one are named once.
  std::vector<std::string> no_mixer;
  int64_t shown = 0;
  for (int64_t id : ids) {
    auto steps = s.mixer_steps(id);
    auto r = s.get_run(id);
    if (!r) continue;
    auto last = steps.empty() ? std::nullopt : s.read_mixer(id, steps.back());
    // Single-branch sub-layers record a row of NaN: such a model has no mixer to show.
    if (!last || std::all_of(last->weights.begin(), last->weights.end(), [](float w) { return std::isnan(w); })) {
      if (std::find(no_mixer.begin(), no_mixer.end(), r->variant) == no_mixer.end()) no_mixer.push_back(r->variant);
      continue;
    }
    shown = id;
  }
  if (shown > 0) {
    auto r = s.get_run(shown);
    auto steps = s.mixer_steps(shown);
    auto first = s.read_mixer(shown, steps.front());
    auto last = s.read_mixer(shown, steps.back());
    if (r && first && last) {
      std::printf("\nmixer weights of %s (gss / attn / ffn; 1/3 each means no preference), step %lld -> %lld:\n",
                  r->name.c_str(), static_cast<long long>(first->step), static_cast<long long>(last->step));
      for (int l = 0; l < last->layers; ++l) {
        const float* a = &first->weights[static_cast<size_t>(l * first->branches)];
        const float* b = &last->weights[static_cast<size_t>(l * last->branches)];
        if (std::isnan(b[0]) && std::isnan(b[1]) && std::isnan(b[2]))
          std::printf("  layer %d: no mixed sub-layer\n", l);
        else
          std::printf("  layer %d: %.3f %.3f %.3f -> %.3f %.3f %.3f\n", l, a[0], a[1], a[2], b[0], b[1], b[2]);
      }
    }
  }
  if (!no_mixer.empty()) {
    std::string list;
    for (const auto& v : no_mixer) list += (list.empty() ? "" : ", ") + v;
    std::printf("(no mixer in %s: every sub-layer has a single branch, nothing is mixed)\n", list.c_str());
  }
  std::printf("\nstore: %s (open the folder in pha-workbench, or `pha runs list --store %s`)\n", store_path.c_str(),
              store_path.c_str());
}

// The project's "tune" choice (the report's rule, docs/report.md): each variant's chosen setting.
void print_tuning_choice(const std::string& project_dir) {
  analysis::Report report;
  try {
    report = project::project_report(project_dir, "");
  } catch (const core::Error& e) {
    std::fprintf(stderr, "quickstart: no tuning summary: %s\n", e.what());
    return;
  }
  if (report.tuning.empty()) return;
  std::printf("\neach variant at its better setting (chosen on %s; `pha report %s` for the full report):\n",
              report.tuning.front().metric.c_str(), project_dir.c_str());
  for (const auto& t : report.tuning) {
    if (t.chosen < 0) {
      std::printf("  %-20s %s\n", t.entry.c_str(), t.note.c_str());
      continue;
    }
    const auto& s = t.settings[static_cast<size_t>(t.chosen)];
    std::printf("  %-20s %-12s %s %.4f\n", t.entry.c_str(), s.tune_point.c_str(), t.metric.c_str(), s.select.mean);
  }
}

// The project's claims with their verdicts, as `pha report` reads them (docs/report.md): what
// the quickstart was asked, answered at its end.
void print_claim_verdicts(const std::string& project_dir) {
  analysis::Report report;
  try {
    report = project::project_report(project_dir, "");
  } catch (const core::Error& e) {
    std::fprintf(stderr, "quickstart: no report: %s\n", e.what());
    return;
  }
  if (report.claims.empty()) return;
  const std::string correction = report.settings.correction == analysis::Correction::None ? "no correction"
                                 : report.settings.correction == analysis::Correction::Holm ? "Holm"
                                                                                            : "Dunnett";
  std::printf("\nthe claims, tested (%s over the m = %zu tests of the primary claims, alpha %g; `pha report %s` for the "
              "full report):\n",
              correction.c_str(), report.family_size, report.settings.alpha, project_dir.c_str());
  for (size_t i = 0; i < report.claims.size(); ++i) {
    const analysis::ClaimReport& c = report.claims[i];
    std::printf("  %zu. %s: %s\n", i + 1, (c.claim.title.empty() ? c.statement : c.claim.title).c_str(), c.summary.c_str());
    for (const auto& r : c.rows) {
      std::printf("     %s", r.effect_label.empty() ? r.label.c_str() : (r.effect_label + " = " + analysis::effect_text(r)).c_str());
      if (std::isfinite(r.p))
        std::printf(" (%s; p %s, %s)", r.test.text.c_str(), analysis::p_pair_text(r).c_str(), r.adjustment.c_str());
      else if (!r.reason.empty())
        std::printf(" (%s)", r.reason.c_str());
      std::printf("\n");
    }
    if (!c.early.empty()) std::printf("     %s: a verdict this early in training may not last\n", c.early.c_str());
    if (!c.underpowered.empty()) std::printf("     %s\n", c.underpowered.c_str());
  }
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
  cmd->add_flag("--only-new", o->only_new,
                "Leave out the runs the store already holds finished with the same name and configuration");
  cmd->add_flag("--no-profile", [o](std::int64_t) { o->profile = false; },
                "Skip the efficiency profile that project.json's \"profile\" section asks for after all runs");
  cmd->add_flag("--print-queue", o->print_queue,
                "Print the pass's queue (each item's run, planned steps and training overrides, as JSON) and train "
                "nothing: what the window's Run would queue for the same project");
  cmd->add_option("--jobs", o->jobs,
                  "Training runs side by side, each in its own process on its own threads (default: this machine's "
                  "cores / each run's threads, as `pha plan` says; 1: one after another). A run's numbers do not "
                  "depend on it")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--nproc", o->launch.nproc, "Data-parallel worker processes on this machine (docs/distributed.md)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--nnodes", o->launch.nnodes, "Machines taking part (with --node-rank, --master-addr)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--node-rank", o->launch.node_rank, "This machine's index, 0 .. nnodes - 1 (0 hosts the rendezvous)");
  cmd->add_option("--master-addr", o->launch.master_addr, "Address of node 0 (default 127.0.0.1)");
  cmd->add_option("--master-port", o->launch.master_port, "Rendezvous port on node 0 (default: a free one on one "
                                                          "machine, 29500 on several)")->check(CLI::Range(1, 65535));
  cmd->add_option("--dist-timeout", o->launch.timeout_s, "Seconds before a dead or hung rank fails the others "
                                                         "(default 300)")->check(CLI::Range(1, 7 * 24 * 3600));
  cmd->callback([o, &global] {
    const auto env = distributed::config_from_env();  // set by the launcher, torchrun, srun, ...
    if (!env && (o->launch.nproc > 1 || o->launch.nnodes > 1)) {
      o->launch.threads = global.threads;
      const int code = launch_workers(o->launch);
      if (code != kOk) throw ExitWith(code);
      return;
    }
    if (env && env->world_size > 1) o->group = connect_worker(*o, *env);
    const int code = train_project(*o, global.threads, nullptr);
    if (code != kOk) throw ExitWith(code);
  });
}

// The window's data-parallel workers (runtime/local_parallel.h): one rank > 0 of the JobSpec
// given as JSON, with the torchrun environment; writes nothing, rank 0 (the window) reports.
void add_train_rank(CLI::App& app) {
  auto text = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("__train-rank", "Worker for the window's data-parallel runs: one rank of a job");
  cmd->group("");  // hidden
  cmd->add_option("spec", *text, "The job spec (JSON, runtime::job_spec_to_json)")->required();
  cmd->callback([text] {
    const auto env = distributed::config_from_env();
    if (!env || env->world_size < 2 || env->rank == 0)
      throw core::Error("pha __train-rank", "is started by pha-workbench as a rank > 0, with RANK and WORLD_SIZE set");
    const json j = json::parse(*text, nullptr, false);
    if (j.is_discarded()) throw core::Error("pha __train-rank", "the job spec is not JSON");
    runtime::JobSpec spec = runtime::job_spec_from_json(j);
    TrainOptions o;
    o.project = spec.project;
    o.device = spec.device;
    spec.group = connect_worker(o, *env);
    runtime::RunControl control;
    CancelOnSignal signals(control);
    ProgressPrinter printer(spec.run, true);
    const runtime::JobResult r = runtime::run_job(spec, printer, control);
    const int code = exit_code_for(r.status);
    if (code != kOk) throw ExitWith(code);
  });
}

// A side-by-side worker (queue/side_by_side.h): one training run of `pha train --jobs` or the
// window's "runs at once", given as its job spec (JSON, or @file), its events and result on
// $PHA_EVENT_FD; SIGINT cancels (checkpoint first), SIGUSR1 / SIGUSR2 pause and resume.
void add_train_job(CLI::App& app) {
  auto text = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("__train-job", "Worker for runs side by side: one training run of a queue");
  cmd->group("");  // hidden
  cmd->add_option("spec", *text, "The job spec (JSON, runtime::job_spec_to_json, or @file holding it)")->required();
  cmd->callback([text] {
    std::string spec_text = *text;
    if (!spec_text.empty() && spec_text[0] == '@') {
      std::ifstream in(spec_text.substr(1));
      if (!in) throw core::Error(spec_text.substr(1), "cannot read the job spec");
      spec_text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    const json j = json::parse(spec_text, nullptr, false);
    if (j.is_discarded()) throw core::Error("pha __train-job", "the job spec is not JSON");
    runtime::RunControl control;
    CancelOnSignal signals(control, true);
    PauseOnSignal pause(control);
    const runtime::JobResult r = queue::run_side_by_side_worker(j, control, nullptr);
    const int code = exit_code_for(r.status);
    if (code != kOk) throw ExitWith(code);
  });
}

void add_quickstart(CLI::App& app, GlobalOptions& global) {
  auto dir = std::make_shared<std::string>();
  auto steps = std::make_shared<int64_t>(0);
  auto* cmd = app.add_subcommand("quickstart",
                                 "Train the quickstart project (pha-tiny vs transformerpp-tiny vs sequential-tiny on the "
                                 "Gutenberg books, each learning rate tuned on 3 seeds and the choice confirmed on 3 "
                                 "fresh ones), then print the comparison, each variant's chosen setting, the learned "
                                 "mixer weights and the claims' verdicts");
  cmd->add_option("--dir", *dir, "Working project folder (default: <data dir>/projects/quickstart)");
  cmd->add_option("--steps", *steps, "Override training.steps (a shorter demonstration)")->check(CLI::PositiveNumber);
  auto no_profile = std::make_shared<bool>(false);
  cmd->add_flag("--no-profile", *no_profile, "Skip the efficiency profile after the runs");
  auto jobs = std::make_shared<int>(0);
  cmd->add_option("--jobs", *jobs, "Training runs side by side (default: this machine's cores / each run's threads)")
      ->check(CLI::Range(1, 256));
  cmd->callback([dir, steps, no_profile, jobs, &global] {
    const fs::path work = dir->empty() ? core::data_dir() / "projects" / "quickstart" : fs::path(*dir);
    // The default copy follows the template (an untrained copy of an older one is replaced); a
    // folder the user names is theirs: copied into when empty, else trained as it is.
    std::string note;
    if (dir->empty()) {
      project::template_working_copy("quickstart", work.string(), &note);
    } else if (!fs::exists(project::project_file_in(work.string()))) {
      project::copy_template("quickstart", work.string());
      note = "copied the template " + project::find_template("quickstart") + " to " + work.string();
    }
    if (!note.empty()) std::fprintf(stderr, "quickstart: %s\n", note.c_str());
    TrainOptions o;
    o.project = work.string();
    o.steps = *steps;
    o.profile = !*no_profile;
    o.jobs = *jobs;
    std::vector<int64_t> ids;
    const int code = train_project(o, global.threads, &ids);
    print_quickstart_summary(project::store_path_in(work.string()), ids);
    print_tuning_choice(work.string());
    print_claim_verdicts(work.string());
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
    device::configure_threads(global.threads);
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
  add_train_rank(app);
  add_train_job(app);
  add_quickstart(app, global);
  add_generate(app, global);
}

}  // namespace pha::cli
