// The job loop: validate and open everything, then step the trainer, recording every metric in
// the run store and reporting it to the observer; pause / cancel checked every step; NaN, Inf
// or an exploding loss end the run as diverged; evaluation and checkpoints on schedule; with
// training.early_stop, a plateau of the watched metric ends the run early as finished.
#include "runtime/job.h"

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
#include "runtime/early_stop.h"
#include "runtime/evaluator.h"
#include "runtime/job_data.h"
#include "core/process_stats.h"
#include "project/project_registration.h"
#include "project/project.h"
#include "project/project_tuning.h"
#include "data/sha256.h"
#include "runtime/trainer.h"
#include "store/run_manage.h"
#include "store/run_writer.h"
#include "store/store.h"

namespace pha::runtime {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

std::vector<std::string> runs_to_make(const std::string& project) {
  // With the tune section's follow-ups that the store's results already plan (project_tuning.h).
  return run_names(plan_tuning_followups(load_project(project)).project);
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
void check_same_run_on_every_rank(distributed::ProcessGroup& group, const RunPlan& plan, const JobSpec& spec,
                                  const std::string& device) {
  const std::string what = plan.config.dump() + "|" + plan.name + "|" + device + "|" +
                           std::to_string(spec.resume_run_id) + "|" + spec.branch_from;
  const uint64_t h = data::fnv1a64(what);
  // Two 32-bit halves: each is exact in a double.
  std::vector<double> mine{static_cast<double>(h >> 32), static_cast<double>(h & 0xffffffffu)};
  std::vector<double> rank0 = mine;
  group.broadcast_from_rank0(rank0);
  if (group.any(rank0 != mine))
    throw Error("data-parallel run \"" + plan.name + "\"",
                "the ranks would train different runs (rank " + std::to_string(group.rank()) +
                    (rank0 != mine ? " differs from rank 0" : " agrees with rank 0, another rank does not") +
                    ": project.json, the run's overrides or the device differ between the processes); every rank "
                    "must start the same job");
}

class JobRunner {
 public:
  JobRunner(const JobSpec& spec, RunObserver& obs, RunControl& ctl) : spec_(spec), obs_(obs), ctl_(ctl) {}

  JobResult run() {
    prepare();  // throws before anything is written
    try {
      loop();
    } catch (const std::exception& e) {
      end(JobStatus::Failed, e.what());
    }
    return result_;
  }

 private:
  void prepare();
  std::string check_resume_or_restart();
  void prepare_follower(const Project& project, const std::string& device);
  void share_run_with_followers();
  json provenance() const;
  void keep_recorded_precision(const store::RunInfo& info);
  void note_resume_provenance();
  void loop();
  bool wait_while_paused();
  void apply_training_overrides();
  void record_step(int64_t step, const TrainStepResult& r, double lr, double dt);
  void record_mixer(int64_t step);
  void periodic_eval(int64_t step);
  void replay_early_stop();
  void final_eval(int64_t step);
  void checkpoint(int64_t step);
  std::string checkpoint_path(int64_t step) const;
  void end(JobStatus status, const std::string& reason);
  void log(const std::string& msg, LogEvent::Level level = LogEvent::Level::Info) {
    obs_.on_log({run_id_, level, msg});
  }
  void status(JobStatus s, const std::string& reason = {}) { obs_.on_status({run_id_, s, reason}); }
  void metric(const std::string& key, int64_t step, double v) {
    if (!writer_) return;
    // The store ranks a key lowest first unless told: tell it, once per key, what the metric
    // table says (core/metric_table.h), so every key the table maximizes is ranked so.
    if (goals_defined_.insert(key).second && higher_is_better(key))
      store_->define_metric_key(key, store::Goal::Maximize);
    writer_->metric(key, step, tokens_, static_cast<int64_t>(wall_s() * 1000.0), v);
  }
  double wall_s() const {
    return wall_offset_ + std::chrono::duration<double>(Clock::now() - started_).count() - paused_s_;
  }

  JobSpec spec_;
  RunObserver& obs_;
  RunControl& ctl_;
  RunPlan plan_;
  EvalPlan periodic_plan_, final_plan_;
  std::string store_path_, ckpt_dir_;
  std::optional<JobData> data_;
  std::optional<Trainer> trainer_;
  std::optional<store::Store> store_;
  std::optional<store::RunWriter> writer_;
  std::set<std::string> goals_defined_;  // keys whose goal metric() has given the store
  std::optional<EarlyStopper> early_stop_;  // training.early_stop; fed by periodic_eval
  bool stop_now_ = false;                   // the plateau was reached at the last evaluation
  int64_t run_id_ = 0, start_step_ = 0, steps_done_ = 0, tokens_ = 0, last_ckpt_step_ = -1;
  Clock::time_point started_;
  double wall_offset_ = 0.0, paused_s_ = 0.0, train_s_ = 0.0;
  JobResult result_;
};

// The caller's training overrides (pha train --steps/--set, the window's run options) on top of
// the project's training section, re-validated.
void JobRunner::apply_training_overrides() {
  if (spec_.training_overrides.is_null() || spec_.training_overrides.empty()) return;
  json t = plan_.training.used;
  merge_training_patch(t, spec_.training_overrides);  // mixer_lr follows lr (training_config.h)
  plan_.training = TrainingConfig::from_json(t, "training");
  plan_.config["training"] = plan_.training.used;
}

// The run this job continues (its last checkpoint, returned) or trains again in place
// (spec_.restart_run_id), checked against the plan before anything is written; "" for neither.
std::string JobRunner::check_resume_or_restart() {
  std::string resume_from;
  if (spec_.resume_run_id > 0) {
    auto info = store_->get_run(spec_.resume_run_id);
    if (!info) throw Error(store_path_, "no run with id " + std::to_string(spec_.resume_run_id) + " to resume");
    if (info->name != plan_.name)
      throw Error(store_path_, "run " + std::to_string(info->id) + " is \"" + info->name + "\", not \"" + plan_.name + "\"");
    if (info->status == store::RunStatus::Running)
      throw Error(store_path_, "run " + std::to_string(info->id) + " is still running");
    for (const auto& c : store_->checkpoints(info->id))
      if (fs::exists(c.path)) resume_from = c.path;
    if (resume_from.empty())
      throw Error(store_path_, "run " + std::to_string(info->id) + " has no checkpoint on disk to resume from");
    run_id_ = info->id;
    keep_recorded_precision(*info);
  } else if (spec_.restart_run_id > 0) {
    auto info = store_->get_run(spec_.restart_run_id);
    if (!info) throw Error(store_path_, "no run with id " + std::to_string(spec_.restart_run_id) + " to train again");
    if (info->name != plan_.name)
      throw Error(store_path_, "run " + std::to_string(info->id) + " is \"" + info->name + "\", not \"" + plan_.name + "\"");
    if (info->status != store::RunStatus::Cancelled && info->status != store::RunStatus::Interrupted)
      throw Error(store_path_, "run " + std::to_string(info->id) + " is " + store::to_string(info->status) +
                                   "; only a cancelled or interrupted run is trained again in place");
  }
  return resume_from;
}

// The start of a run in its required order (plan, data, store row, resume,
// trainer, rank-0 sharing); each step is a few lines and depends on the ones before.
void JobRunner::prepare() {
  const Project project = spec_.get();
  plan_ = spec_.plan ? *spec_.plan : spec_.run.empty() ? project.runs.front() : project.run(spec_.run);
  apply_training_overrides();
  if (!spec_.device.empty()) plan_.training.device = spec_.device;
  const int threads = pha::configure_threads(spec_.threads > 0 ? spec_.threads : plan_.training.threads);
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
  register_project(*store_, project);
  const std::string resume_from = check_resume_or_restart();
  if (resume_from.empty() && !spec_.branch_from.empty()) {
    if (!fs::exists(spec_.branch_from))
      throw Error(spec_.branch_from, "no checkpoint file to branch the run \"" + plan_.name + "\" from");
  }
  trainer_.emplace(plan_.model, plan_.training, device);
  const std::string start_from = !resume_from.empty() ? resume_from : spec_.branch_from;
  if (!start_from.empty()) {
    start_step_ = trainer_->load_checkpoint(start_from);
    if (start_step_ >= plan_.training.steps)
      throw Error(start_from, "is at step " + std::to_string(start_step_) + ", not before the run's last step " +
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
  ProvenanceInputs in;
  const model::PrecisionChoice& p = trainer_->precision();
  in.precision = p.precision;
  in.precision_setting = p.setting;
  in.precision_reason = p.reason;
  in.kernels = kernels::kernel_selection();
  in.device = trainer_->device();
  in.world_size = spec_.group ? spec_.group->world_size() : 1;
  in.backend = spec_.group ? spec_.group->backend() : "";
  return collect_provenance(in);
}

// A resumed run trains on in the precision it recorded, whatever training.precision would
// resolve to here (auto on another machine, or after a new calibration): a run whose two halves
// trained in different precisions would be neither. Runs of older programs recorded none: they
// resolve as before, and the log says so.
void JobRunner::keep_recorded_precision(const store::RunInfo& info) {
  const auto fields = provenance_fields(info.env_json);
  const auto it = fields.find("precision");
  if (it == fields.end()) {
    log("run " + std::to_string(info.id) + " recorded no precision (an older program): training.precision " +
        plan_.training.precision + " resolves here");
    return;
  }
  if (it->second != "fp32" && it->second != "bf16")
    throw Error(store_path_, "run " + std::to_string(info.id) + " recorded precision \"" + it->second +
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
    if (!provenance_key_changes_numbers(it.key()) || !env.contains(it.key()) || env[it.key()] == it.value()) continue;
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
void JobRunner::prepare_follower(const Project& project, const std::string& device) {
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

// A resumed run: the evaluations before the resume step feed the stopper again, so that the
// plateau counts as if the run had not been interrupted.
void JobRunner::replay_early_stop() {
  if (start_step_ == 0) return;
  for (const auto& p : store_->read_metric_full(run_id_, plan_.training.early_stop.metric))
    if (p.step <= start_step_) early_stop_->update(p.step, p.value);
}

bool JobRunner::wait_while_paused() {
  if (!ctl_.paused()) return !ctl_.cancel_requested();
  const auto t0 = Clock::now();
  if (writer_) writer_->flush();
  status(JobStatus::Paused);
  while (ctl_.paused() && !ctl_.cancel_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  paused_s_ += std::chrono::duration<double>(Clock::now() - t0).count();
  if (ctl_.cancel_requested()) return false;
  status(JobStatus::Running);
  return true;
}

void JobRunner::loop() {
  const TrainingConfig& cfg = plan_.training;
  const double max_loss = cfg.max_loss > 0 ? cfg.max_loss : 4.0 * std::log(static_cast<double>(plan_.model.vocab_size));
  started_ = Clock::now();
  for (int64_t step = start_step_ + 1; step <= cfg.steps; ++step) {
    bool go = wait_while_paused();
    if (spec_.group) go = !spec_.group->any(!go);  // every rank stops at the same step
    if (!go) {
      if (steps_done_ > 0 && steps_done_ != last_ckpt_step_) checkpoint(steps_done_);
      end(JobStatus::Cancelled, "cancelled at step " + std::to_string(steps_done_));
      return;
    }
    const double scale = lr_factor(cfg, step);
    const std::vector<data::Batch> batches = data_->train_batches(step);
    const bool snapshot = step % cfg.mixer_every == 0 || step == cfg.steps;
    trainer_->set_record_stats(snapshot);
    const auto t0 = Clock::now();
    const TrainStepResult r = trainer_->train_step(batches, scale);
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    trainer_->set_record_stats(false);
    train_s_ += dt;
    tokens_ += r.tokens;
    steps_done_ = step;
    record_step(step, r, trainer_->learning_rate(scale), dt);
    if (!r.finite || r.loss > max_loss) {
      char msg[256];
      std::snprintf(msg, sizeof(msg), "%s at step %lld (loss %g, gradient norm %g, lr %g)",
                    !r.finite ? "non-finite loss or gradient" : "loss exploded above training.max_loss",
                    static_cast<long long>(step), r.loss, r.grad_norm, trainer_->learning_rate(scale));
      end(JobStatus::Diverged, msg);
      return;
    }
    if (snapshot) record_mixer(step);
    if (cfg.eval_every > 0 && step % cfg.eval_every == 0 && step != cfg.steps) {
      periodic_eval(step);
      // Rank 0 alone keeps the stopper (it reads the store); every rank stops at its word.
      if (spec_.group) stop_now_ = spec_.group->any(stop_now_);
    }
    if (stop_now_) {  // the watched metric has plateaued: finish here, evaluated and saved
      final_eval(step);
      if (last_ckpt_step_ != step) checkpoint(step);
      end(JobStatus::Finished, early_stop_ ? early_stop_->reason(step) : "stopped early (rank 0's plateau)");
      return;
    }
    if (cfg.checkpoint_every > 0 && step % cfg.checkpoint_every == 0 && step != cfg.steps) checkpoint(step);
    // WSD: the state at the end of the stable phase, which every longer run of this schedule
    // passes through; a search continues a promoted trial from it (docs/search.md).
    if (cfg.schedule == "wsd" && step == cfg.stable_end() && step != cfg.steps && last_ckpt_step_ != step)
      checkpoint(step);
    if (writer_) writer_->maybe_flush();
  }
  final_eval(cfg.steps);
  if (spec_.final_checkpoint && last_ckpt_step_ != cfg.steps) checkpoint(cfg.steps);
  end(JobStatus::Finished, "");
}

void JobRunner::record_step(int64_t step, const TrainStepResult& r, double lr, double dt) {
  StepMetrics m;
  m.run_id = run_id_;
  m.step = step;
  m.total_steps = plan_.training.steps;
  m.tokens = tokens_;
  m.wall_s = wall_s();
  m.loss = r.loss;
  m.perplexity = std::exp(r.loss);
  m.learning_rate = lr;
  m.grad_norm = r.grad_norm;
  m.tokens_per_s = dt > 0 ? static_cast<double>(r.tokens) / dt : 0.0;
  m.memory_bytes = peak_rss_bytes();
  const int64_t done = step - start_step_;
  m.eta_s = done > 0 ? train_s_ / static_cast<double>(done) * static_cast<double>(plan_.training.steps - step) : -1.0;
  metric("train/loss", step, m.loss);
  metric("train/ppl", step, m.perplexity);
  metric("train/lr", step, m.learning_rate);
  metric("train/grad_norm", step, m.grad_norm);
  metric("train/tokens_per_s", step, m.tokens_per_s);
  metric("train/memory_bytes", step, static_cast<double>(m.memory_bytes));
  if (spec_.group) {  // data-parallel: gradient reduction not hidden behind backward, and in flight
    metric("dist/reduce_exposed_s", step, r.reduce_exposed_s);
    metric("dist/reduce_inflight_s", step, r.reduce_inflight_s);
  }
  result_.final_loss = r.loss;
  result_.steps_done = step;
  obs_.on_step(m);
}

void JobRunner::record_mixer(int64_t step) {
  if (!writer_) return;  // data-parallel ranks > 0 write nothing
  const model::ModelIntrospection in = trainer_->introspect();
  store::MixerSnapshot snap{step, in.mixer_weights.rows, in.mixer_weights.cols, in.mixer_weights.values};
  writer_->mixer(snap);
  obs_.on_mixer({run_id_, step, snap.layers, snap.branches, snap.weights});
  obs_.on_branch_norms({run_id_, step, in.branch_rms.rows, in.branch_rms.cols, in.branch_rms.values});
  for (int l = 0; l < in.branch_rms.rows; ++l)
    for (int b = 0; b < in.branch_rms.cols; ++b) {
      const float v = in.branch_rms.at(l, b);
      if (!std::isnan(v)) metric("branch_rms/l" + std::to_string(l) + "/" + in.branch_names[static_cast<size_t>(b)], step, v);
    }
}

void JobRunner::periodic_eval(int64_t step) {
  std::map<std::string, double> measured;  // what early_stop may watch
  for (const EvalPoint& p : evaluate(*trainer_, *data_, periodic_plan_).points) {
    if (p.kind == "text") {
      measured = {{"val/loss", p.loss}, {"val/ppl", p.perplexity}, {"val/bpb", p.bpb}};
      metric("val/loss", step, p.loss);
      metric("val/ppl", step, p.perplexity);
      metric("val/bpb", step, p.bpb);
      obs_.on_eval({run_id_, step, p.set, "loss", 0, p.loss});
      obs_.on_eval({run_id_, step, p.set, "perplexity", 0, p.perplexity});
      obs_.on_eval({run_id_, step, p.set, "bpb", 0, p.bpb});
      continue;
    }
    measured = {{"val/accuracy", p.accuracy.micro},
                {"val/macro_accuracy", p.accuracy.macro},
                {"val/exact_match", p.accuracy.exact_match}};
    metric("val/accuracy", step, p.accuracy.micro);
    metric("val/macro_accuracy", step, p.accuracy.macro);
    metric("val/exact_match", step, p.accuracy.exact_match);
    obs_.on_eval({run_id_, step, p.set, "accuracy", 0, p.accuracy.micro});
    obs_.on_eval({run_id_, step, p.set, "exact_match", 0, p.accuracy.exact_match});
  }
  if (early_stop_) {
    auto it = measured.find(plan_.training.early_stop.metric);
    stop_now_ = early_stop_->update(step, it != measured.end() ? it->second : std::nan(""));
  }
}

// The final evaluation (evaluator.h final_eval_plan, the plan `pha eval` reruns): every point
// becomes eval rows of the run as soon as it is measured, plus the val/ and test/ summary
// metrics the run browser lists.
void JobRunner::final_eval(int64_t step) {
  bool first_set = true;
  const EvalReport report = evaluate(*trainer_, *data_, final_plan_, [&](const EvalPoint& p) {
    for (const store::EvalRow& row : store_rows(step, p)) {
      if (writer_) writer_->eval(row);
      obs_.on_eval({run_id_, step, row.task, row.metric, row.seq_len, row.value});
    }
    if (p.kind == "text") {
      const std::string prefix = p.set == data::split_name(data::Split::Valid) ? "val/" : "test/";
      metric(prefix + "loss", step, p.loss);
      metric(prefix + "ppl", step, p.perplexity);
      metric(prefix + "bpb", step, p.bpb);
      log(p.set + ": loss " + std::to_string(p.loss) + ", perplexity " + std::to_string(p.perplexity) + ", bpb " +
          std::to_string(p.bpb) + " over " + std::to_string(p.tokens) + " tokens");
    } else if (p.kind == "task") {
      metric("test/" + p.set + "/accuracy", step, p.accuracy.micro);
      if (first_set) metric("val/accuracy", step, p.accuracy.micro);
      first_set = false;
      log(p.set + ": accuracy " + std::to_string(p.accuracy.micro) + ", exact match " +
          std::to_string(p.accuracy.exact_match));
    }
  });
  for (const std::string& why : report.skipped) log("final evaluation skipped " + why);
}

std::string JobRunner::checkpoint_path(int64_t step) const {
  char name[64];
  std::snprintf(name, sizeof(name), "/step-%08lld.safetensors", static_cast<long long>(step));
  return ckpt_dir_ + name;
}

void JobRunner::checkpoint(int64_t step) {
  last_ckpt_step_ = step;
  if (!writer_) return;  // data-parallel: rank 0 writes it
  fs::create_directories(ckpt_dir_);
  const std::string path = checkpoint_path(step);
  json rc = plan_.config;
  rc["wall_s"] = wall_s();
  rc["tokens"] = tokens_;
  const int64_t bytes = trainer_->save_checkpoint(path, step, rc);
  writer_->checkpoint({step, path, bytes, data::sha256_file(path)});
  last_ckpt_step_ = step;
  result_.last_checkpoint = path;
  log("checkpoint at step " + std::to_string(step) + ": " + path);
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

}  // namespace

JobResult run_job(const JobSpec& spec, RunObserver& observer, RunControl& control) {
  JobRunner runner(spec, observer, control);
  return runner.run();
}

}  // namespace pha::runtime
