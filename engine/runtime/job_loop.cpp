// The step loop of a run (JobRunner, job_runner.h): step the trainer, recording every metric in
// the run store and reporting it to the observer; pause / cancel checked every step; NaN, Inf or
// an exploding loss end the run as diverged; evaluation and checkpoints on schedule; with
// training.early_stop, a plateau of the watched metric ends the run early as finished.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

#include "core/error.h"
#include "core/process_stats.h"
#include "data/sha256.h"
#include "distributed/process_group.h"
#include "runtime/internal/job_runner.h"

namespace pha::runtime {

using nlohmann::json;
namespace fs = std::filesystem;

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
  const project::TrainingConfig& cfg = plan_.training;
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
  m.memory_bytes = core::peak_rss_bytes();
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

}  // namespace pha::runtime
