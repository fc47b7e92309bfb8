// JobRunner: one training run from its JobSpec to its end in the store, the engine's job
// (run_job, job.h). Internal to pha::runtime: job.cpp holds the run's lifecycle (prepare, resume,
// provenance, followers, end), job_loop.cpp the step loop (steps, metrics, mixer snapshots,
// evaluations, early stop, checkpoints). Nothing outside engine/runtime includes this header.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "core/metric_table.h"
#include "project/project.h"
#include "runtime/internal/early_stop.h"
#include "runtime/internal/evaluator.h"
#include "runtime/job.h"
#include "runtime/job_data.h"
#include "runtime/trainer.h"
#include "store/run_writer.h"
#include "store/store.h"

namespace pha::runtime {

using Clock = std::chrono::steady_clock;

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
  void prepare_follower(const project::Project& project, const std::string& device);
  void share_run_with_followers();
  nlohmann::json provenance() const;
  void keep_recorded_precision(const store::RunInfo& info);
  void note_resume_provenance();
  void loop();
  bool wait_while_paused();
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
    if (goals_defined_.insert(key).second && core::higher_is_better(key))
      store_->define_metric_key(key, store::Goal::Maximize);
    writer_->metric(key, step, tokens_, static_cast<int64_t>(wall_s() * 1000.0), v);
  }
  double wall_s() const {
    return wall_offset_ + std::chrono::duration<double>(Clock::now() - started_).count() - paused_s_;
  }

  JobSpec spec_;
  RunObserver& obs_;
  RunControl& ctl_;
  project::RunPlan plan_;
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

}  // namespace pha::runtime
