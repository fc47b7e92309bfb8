// A run's lifecycle (JobRunner, job_runner.h): validate and open everything (the plan as it was
// resolved when queued, resume or restart, the store's run and its registration, provenance, the data-parallel
// followers), then the step loop (job_loop.cpp), then the end recorded in the store.
#include "runtime/job.h"
#include "runtime/internal/job_runner.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "core/metric_table.h"
#include "core/error.h"
#include "common/kernel_select.h"
#include "core/provenance_fields.h"
#include "device/provenance.h"
#include "device/system_info.h"
#include "data/hash.h"
#include "distributed/process_group.h"
#include "runtime/internal/early_stop.h"
#include "runtime/internal/evaluator.h"
#include "runtime/job_data.h"
#include "core/process_stats.h"
#include "project/project_registration.h"
#include "project/project.h"
#include "project/project_tuning.h"
#include "project/run_threads.h"
#include "data/sha256.h"
#include "runtime/trainer.h"
#include "store/run_manage.h"
#include "store/run_writer.h"
#include "store/store.h"

namespace pha::runtime {

using nlohmann::json;
namespace fs = std::filesystem;

std::vector<std::string> runs_to_make(const std::string& project) {
  // With the tune section's follow-ups that the store's results already plan (project_tuning.h).
  return project::run_names(project::plan_tuning_followups(project::load_project(project)).project);
}

namespace {

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

store::RunStatus to_store(JobStatus s) {
  switch (s) {
    case JobStatus::Finished: return store::RunStatus::Finished;
    case JobStatus::Cancelled: return store::RunStatus::Cancelled;
    case JobStatus::Diverged: return store::RunStatus::Diverged;
    case JobStatus::Interrupted: return store::RunStatus::Interrupted;
    default: return store::RunStatus::Failed;
  }
}

// Data-parallel: every rank must train the same run, or the collectives pair unrelated
// tensors (or hang on a different step count). Each rank hashes what it is about to train
// (the resolved configuration, device, resume point); rank 0's hash is broadcast and every
// rank learns whether any differs, so all of them fail alike, before the store is written.
void check_same_run_on_every_rank(distributed::ProcessGroup& group, const project::RunPlan& plan, const JobSpec& spec,
                                  const std::string& device) {
  const std::string what = plan.config.dump() + "|" + plan.name + "|" + device + "|" +
                           std::to_string(spec.resume_run_id) + "|" + spec.branch_from;
  const uint64_t h = data::fnv1a64(what);
  // Two 32-bit halves: each is exact in a double.
  std::vector<double> mine{static_cast<double>(h >> 32), static_cast<double>(h & 0xffffffffu)};
  std::vector<double> rank0 = mine;
  group.broadcast_from_rank0(rank0);
  if (group.any(rank0 != mine))
    throw core::Error("data-parallel run \"" + plan.name + "\"",
                "the ranks would train different runs (rank " + std::to_string(group.rank()) +
                    (rank0 != mine ? " differs from rank 0" : " agrees with rank 0, another rank does not") +
                    ": project.json, the run's overrides or the device differ between the processes); every rank "
                    "must start the same job");
}

}  // namespace


// The run this job continues (its last checkpoint, returned) or trains again in place
// (spec_.restart_run_id), checked against the plan before anything is written; "" for neither.
std::string JobRunner::check_resume_or_restart() {
  std::string resume_from;
  if (spec_.resume_run_id > 0) {
    auto info = store_->get_run(spec_.resume_run_id);
    if (!info) throw core::Error(store_path_, "no run with id " + std::to_string(spec_.resume_run_id) + " to resume");
    if (info->name != plan_.name)
      throw core::Error(store_path_, "run " + std::to_string(info->id) + " is \"" + info->name + "\", not \"" + plan_.name + "\"");
    if (info->status == store::RunStatus::Running)
      throw core::Error(store_path_, "run " + std::to_string(info->id) + " is still running");
    for (const auto& c : store_->checkpoints(info->id))
      if (fs::exists(c.path)) resume_from = c.path;
    if (resume_from.empty())
      throw core::Error(store_path_, "run " + std::to_string(info->id) + " has no checkpoint on disk to resume from");
    run_id_ = info->id;
    keep_recorded_precision(*info);
  } else if (spec_.restart_run_id > 0) {
    auto info = store_->get_run(spec_.restart_run_id);
    if (!info) throw core::Error(store_path_, "no run with id " + std::to_string(spec_.restart_run_id) + " to train again");
    if (info->name != plan_.name)
      throw core::Error(store_path_, "run " + std::to_string(info->id) + " is \"" + info->name + "\", not \"" + plan_.name + "\"");
    if (info->status != store::RunStatus::Cancelled && info->status != store::RunStatus::Interrupted)
      throw core::Error(store_path_, "run " + std::to_string(info->id) + " is " + store::to_string(info->status) +
                                   "; only a cancelled or interrupted run is trained again in place");
  }
  return resume_from;
}

// The start of a run in its required order (plan, data, store row, resume,
// trainer, rank-0 sharing); each step is a few lines and depends on the ones before.
void JobRunner::prepare() {
  const project::Project project = spec_.get();
  plan_ = spec_.plan ? *spec_.plan : spec_.run.empty() ? project.runs.front() : project.run(spec_.run);
  if (!spec_.device.empty()) plan_.training.device = spec_.device;
  // The run's threads: the plan's rule (project/run_threads.h), never the number of runs beside it.
  const project::RunThreads run_threads = project::run_threads(plan_, spec_.threads);
  const int threads = device::configure_threads(run_threads.threads, run_threads.rule);
  const std::string device = Trainer::resolve_device(plan_.training.device);
  data_.emplace(plan_.data, plan_.training);
  periodic_plan_ = periodic_eval_plan(plan_.data, plan_.training);
  final_plan_ = final_eval_plan(plan_.data, plan_.training);
  store_path_ = spec_.store_path.empty() ? project.store_path() : spec_.store_path;
  if (spec_.group) check_same_run_on_every_rank(*spec_.group, plan_, spec_, device);
  if (spec_.group) data_->set_shard(spec_.group->rank(), spec_.group->world_size());
  if (spec_.group && spec_.group->rank() > 0) return prepare_follower(project, device);  // writes nothing

  store_.emplace(store::Store::open(store_path_));
  // The project's claims and design are registered before its first run's row exists (never
  // replaced later): the report shows what was declared before the data (docs/report.md).
  project::register_project(*store_, project);
  const std::string resume_from = check_resume_or_restart();
  if (resume_from.empty() && !spec_.branch_from.empty()) {
    if (!fs::exists(spec_.branch_from))
      throw core::Error(spec_.branch_from, "no checkpoint file to branch the run \"" + plan_.name + "\" from");
  }
  trainer_.emplace(plan_.model, plan_.training, device);
  const std::string start_from = !resume_from.empty() ? resume_from : spec_.branch_from;
  if (!start_from.empty()) {
    start_step_ = trainer_->load_checkpoint(start_from);
    if (start_step_ >= plan_.training.steps)
      throw core::Error(start_from, "is at step " + std::to_string(start_step_) + ", not before the run's last step " +
                                  std::to_string(plan_.training.steps));
    const json rc = checkpoint_config(start_from).value("run", json::object());
    wall_offset_ = rc.value("wall_s", 0.0);
    tokens_ = rc.value("tokens", int64_t{0});
    if (!resume_from.empty()) last_ckpt_step_ = start_step_;
  }
  if (resume_from.empty() && spec_.restart_run_id > 0) {
    run_id_ = spec_.restart_run_id;
    store::restart_run(*store_, run_id_, provenance().dump());
  } else if (resume_from.empty()) {
    store::NewRun nr;
    nr.project = project.name;
    nr.name = plan_.name;
    nr.variant = plan_.variant;
    nr.config_json = plan_.config.dump();
    nr.config_hash = hex64(data::fnv1a64(nr.config_json));
    nr.n_params = trainer_->num_parameters();
    nr.device = device;
    nr.group = plan_.group;  // seeded replicas of one run share it (docs/store.md, Groups)
    nr.seed = static_cast<int64_t>(plan_.training.seed);
    nr.world_size = spec_.group ? spec_.group->world_size() : 1;
    nr.backend = spec_.group ? spec_.group->backend() : "";
    nr.env_json = provenance().dump();
    run_id_ = store_->create_run(nr);
  } else {
    note_resume_provenance();
  }
  writer_.emplace(*store_, run_id_);
  if (plan_.training.early_stop.enabled()) {
    early_stop_.emplace(plan_.training.early_stop);
    replay_early_stop();
  }
  ckpt_dir_ = project.checkpoint_dir() + "/run-" + std::to_string(run_id_);
  share_run_with_followers();
  result_.run_id = run_id_;
  steps_done_ = start_step_;
  status(JobStatus::Running);
  log("run " + std::to_string(run_id_) + " \"" + plan_.name + "\": " + std::to_string(trainer_->num_parameters()) +
      " parameters, " + device + (trainer_->bf16_autocast() ? " (bf16 autocast)" : " (fp32)") + ", " +
      std::to_string(threads) + " threads, " + std::to_string(plan_.training.steps) + " steps" +
      (start_step_ > 0 ? ", resumed at step " + std::to_string(start_step_) : "") +
      (spec_.group ? ", " + std::to_string(spec_.group->world_size()) + " processes (" + spec_.group->backend() + ")"
                   : ""));
}

// What produced this run's numbers (device/provenance.h), recorded with the run.
json JobRunner::provenance() const {
  device::ProvenanceInputs in;
  const nn::PrecisionChoice& p = trainer_->precision();
  in.precision = p.precision;
  in.precision_setting = p.setting;
  in.precision_reason = p.reason;
  in.kernels = kernels::kernel_selection();
  in.device = trainer_->device();
  in.world_size = spec_.group ? spec_.group->world_size() : 1;
  in.backend = spec_.group ? spec_.group->backend() : "";
  return device::collect_provenance(in);
}

// A resumed run trains on in the precision it recorded, whatever training.precision would
// resolve to here (auto on another machine, or after a new calibration): a run whose two halves
// trained in different precisions would be neither. Runs of older programs recorded none: they
// resolve as before, and the log says so.
void JobRunner::keep_recorded_precision(const store::RunInfo& info) {
  const auto fields = core::provenance_fields(info.env_json);
  const auto it = fields.find("precision");
  if (it == fields.end()) {
    log("run " + std::to_string(info.id) + " recorded no precision (an older program): training.precision " +
        plan_.training.precision + " resolves here");
    return;
  }
  if (it->second != "fp32" && it->second != "bf16")
    throw core::Error(store_path_, "run " + std::to_string(info.id) + " recorded precision \"" + it->second +
                                 "\", which this program cannot train in (allowed: fp32, bf16); it cannot be resumed");
  plan_.training.precision = it->second;
}

// Resumed: the record keeps what the run started with; where something that changes numbers
// differs now (another machine, kernels or program), env.resumed says what, at which step.
void JobRunner::note_resume_provenance() {
  const auto info = store_->get_run(run_id_);
  if (!info) return;
  json env = json::parse(info->env_json.empty() ? "{}" : info->env_json, nullptr, false);
  if (!env.is_object()) env = json::object();
  const json now = provenance();
  std::string differs;
  for (auto it = now.begin(); it != now.end(); ++it) {
    if (!core::provenance_key_changes_numbers(it.key()) || !env.contains(it.key()) || env[it.key()] == it.value()) continue;
    differs += (differs.empty() ? "" : "; ") + it.key() + " " + it.value().get<std::string>();
  }
  if (differs.empty()) return;
  const std::string line = "at step " + std::to_string(start_step_) + " on " + now.value("host", std::string("?")) +
                           " with " + differs;
  const std::string before = env.value("resumed", std::string());
  env["resumed"] = before.empty() ? line : before + " | " + line;
  store_->set_env(run_id_, env.dump());
  log("run " + std::to_string(run_id_) + " resumed with a different " + differs);
}

// Data-parallel, rank 0: tells the other ranks the run id and where it starts (they read the
// same checkpoint), and makes every rank's trainer reduce over the group.
void JobRunner::share_run_with_followers() {
  if (!spec_.group) return;
  std::vector<double> shared{static_cast<double>(run_id_), static_cast<double>(start_step_), wall_offset_,
                             static_cast<double>(tokens_)};
  spec_.group->broadcast_from_rank0(shared);
  trainer_->set_process_group(spec_.group);
}

// Data-parallel, ranks > 0: the same model, data and checkpoint as rank 0, no store.
void JobRunner::prepare_follower(const project::Project& project, const std::string& device) {
  trainer_.emplace(plan_.model, plan_.training, device);
  std::vector<double> shared(4, 0.0);
  spec_.group->broadcast_from_rank0(shared);
  run_id_ = static_cast<int64_t>(shared[0]);
  start_step_ = static_cast<int64_t>(shared[1]);
  wall_offset_ = shared[2];
  tokens_ = static_cast<int64_t>(shared[3]);
  ckpt_dir_ = project.checkpoint_dir() + "/run-" + std::to_string(run_id_);
  // The run's own checkpoint when resuming; the branch's source when it starts a branch.
  const bool branched = !spec_.branch_from.empty() && spec_.resume_run_id == 0;
  if (start_step_ > 0) trainer_->load_checkpoint(branched ? spec_.branch_from : checkpoint_path(start_step_));
  last_ckpt_step_ = start_step_ > 0 && !branched ? start_step_ : -1;
  trainer_->set_process_group(spec_.group);
  result_.run_id = run_id_;
  steps_done_ = start_step_;
}

void JobRunner::end(JobStatus s, const std::string& reason) {
  result_.status = s;
  result_.reason = reason;
  result_.steps_done = steps_done_;
  try {
    if (writer_) writer_->finish(to_store(s), reason);
  } catch (const std::exception& e) {
    log(std::string("could not record the final status: ") + e.what(), LogEvent::Level::Error);
  }
  // Cancelling and an early stop are the user's intent, not errors.
  const bool info = s == JobStatus::Cancelled || s == JobStatus::Finished;
  if (!reason.empty()) log(reason, info ? LogEvent::Level::Info : LogEvent::Level::Error);
  status(s, reason);
}

JobResult run_job(const JobSpec& spec, RunObserver& observer, RunControl& control) {
  JobRunner runner(spec, observer, control);
  return runner.run();
}

}  // namespace pha::runtime
