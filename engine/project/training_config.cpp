// The "training" and "profile" sections of project.json (training_config.h, project.h): TrainingConfig and
// ProfileSettings read through ConfigReader (unknown keys rejected, types and ranges checked,
// errors naming the field), early stopping, the work limits and the WSD schedule's stable end.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/config_reader.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/metric_table.h"
#include "project/training_config.h"

#include "project/project.h"
#include "search/rung_schedule.h"

namespace pha::project {

using nlohmann::json;

void merge_training_patch(json& training, const json& patch) {
  if (!patch.is_object()) return;
  if (patch.contains("lr") && !patch.contains("mixer_lr") && training.value("mixer_lr", -1.0) == training.value("lr", -2.0))
    training.erase("mixer_lr");
  training.merge_patch(patch);
}

// The work a training asks for as a whole (each field has its own limit too); checked again
// once a task has set seq_len.
void check_training_work(const TrainingConfig& c, const std::string& where) {
  auto field = [&](const char* key) { return where.empty() ? std::string(key) : where + "." + key; };
  const int64_t micro = int64_t{c.batch_size} * c.seq_len;
  if (micro > core::limits::kMaxMicroBatchTokens)
    core::ConfigReader::out_of_range(field("batch_size"),
                               "batch_size x seq_len = " + std::to_string(c.batch_size) + " x " + std::to_string(c.seq_len) +
                                   " = " + std::to_string(micro) + " tokens per micro-batch",
                               "at most " + std::to_string(core::limits::kMaxMicroBatchTokens), core::limits::kNote);
  const double tokens = static_cast<double>(c.steps) * c.grad_accum * static_cast<double>(micro);
  if (tokens > core::limits::kMaxTrainingTokens)
    core::ConfigReader::out_of_range(field("steps"),
                               "steps x grad_accum x batch_size x seq_len = " + std::to_string(c.steps) + " x " +
                                   std::to_string(c.grad_accum) + " x " + std::to_string(c.batch_size) + " x " +
                                   std::to_string(c.seq_len) + " = " + core::format_number(tokens) + " training tokens",
                               "at most " + core::format_number(core::limits::kMaxTrainingTokens), core::limits::kNote);
}

bool EarlyStop::maximize() const { return core::higher_is_better(metric); }  // core/metric_table.h

const std::vector<std::string>& early_stop_metrics(bool task) {
  static const std::vector<std::string> text = {"val/loss", "val/ppl", "val/bpb"};
  static const std::vector<std::string> tasks = {"val/accuracy", "val/macro_accuracy", "val/exact_match"};
  return task ? tasks : text;
}

namespace {

// training.early_stop {"metric", "patience", "min_delta"}: needs periodic evaluations to watch.
EarlyStop read_early_stop(core::ConfigReader& r, const TrainingConfig& c) {
  core::ConfigReader e = r.object("early_stop", {"metric", "patience", "min_delta"});
  std::vector<std::string> all = early_stop_metrics(false);
  for (const auto& m : early_stop_metrics(true)) all.push_back(m);
  EarlyStop es;
  if (!e.has("metric")) throw core::Error(e.field("metric"), "is required; allowed: " + core::quoted_list(all));
  es.metric = e.get_choice("metric", "", all);
  es.patience = e.get_int("patience", es.patience, 1, core::limits::kMaxSteps);
  es.min_delta = e.get_double("min_delta", es.min_delta, 0.0, 1e30);
  e.finish();
  if (c.eval_every <= 0)
    throw core::Error(r.field("early_stop"), "watches the periodic evaluations, but " + r.field("eval_every") +
                                           " is 0 (only at the end); allowed: eval_every >= 1");
  return es;
}

}  // namespace

TrainingConfig TrainingConfig::from_json(const json& section, const std::string& where) {
  using namespace core::limits;
  core::ConfigReader r(section, where);
  TrainingConfig c;
  c.steps = r.get_int("steps", c.steps, 1, kMaxSteps, kNote);
  c.batch_size = static_cast<int>(r.get_int("batch_size", c.batch_size, 1, kMaxBatchSize, kNote));
  c.seq_len = static_cast<int>(r.get_int("seq_len", c.seq_len, 2, kMaxSeqLen, kNote));
  c.grad_accum = static_cast<int>(r.get_int("grad_accum", c.grad_accum, 1, kMaxGradAccum, kNote));
  c.lr = r.get_double("lr", c.lr, 0.0, 1e12);
  c.min_lr_ratio = r.get_double("min_lr_ratio", c.min_lr_ratio, 0.0, 1.0);
  if (r.has("warmup_fraction")) {
    if (r.has("warmup_steps"))
      throw core::Error(r.field("warmup_fraction"), "cannot be combined with " + r.field("warmup_steps") +
                                                  "; allowed: one of them (a fraction of the steps, or steps)");
    c.warmup_fraction = r.get_double("warmup_fraction", 0.0, 0.0, 1.0, true);
    c.warmup_steps = search::fraction_of_steps(c.warmup_fraction, c.steps);
  } else {
    c.warmup_steps = r.get_int("warmup_steps", c.warmup_steps, 0, kMaxSteps, kNote);
  }
  c.schedule = r.get_choice("schedule", c.schedule, {"cosine", "wsd"});
  if (c.schedule == "wsd") {
    c.cooldown = r.get_double("cooldown", c.cooldown, 0.0, 1.0);
    c.cooldown_shape = r.get_choice("cooldown_shape", c.cooldown_shape, {"1-sqrt", "linear"});
  } else {
    for (const char* k : {"cooldown", "cooldown_shape"})
      if (r.has(k)) throw core::Error(r.field(k), "applies to schedule \"wsd\" only; this run's schedule is \"cosine\"");
  }
  c.weight_decay = r.get_double("weight_decay", c.weight_decay, 0.0, 10.0);
  c.beta1 = r.get_double("beta1", c.beta1, 0.0, 0.999999);
  c.beta2 = r.get_double("beta2", c.beta2, 0.0, 0.999999999);
  c.eps = r.get_double("eps", c.eps, 1e-30, 1.0);
  c.dss_lr = r.get_double("dss_lr", c.dss_lr, 0.0, 1e12);
  c.mixer_lr = r.get_double("mixer_lr", c.lr, 0.0, 1e12);  // default: the main lr
  c.grad_clip = r.get_double("grad_clip", c.grad_clip, 0.0, 1e12);
  c.seed = static_cast<uint64_t>(r.get_int("seed", 0, 0, int64_t{1} << 53));
  c.eval_every = r.get_int("eval_every", c.eval_every, 0, kMaxSteps);
  c.eval_tokens = r.get_int("eval_tokens", c.eval_tokens, 0, kMaxEvalTokens, kNote);
  c.eval_examples = r.get_int("eval_examples", c.eval_examples, 1, kMaxEvalExamples, kNote);
  c.sweep_examples = r.get_int("sweep_examples", c.sweep_examples, 1, kMaxEvalExamples, kNote);
  c.final_eval_tokens = r.get_int("final_eval_tokens", c.final_eval_tokens, 0, kMaxEvalTokens, kNote);
  c.checkpoint_every = r.get_int("checkpoint_every", c.checkpoint_every, 0, kMaxSteps);
  c.mixer_every = r.get_int("mixer_every", c.mixer_every, 1, kMaxSteps);
  c.device = r.get_choice("device", c.device, {"auto", "cpu", "cuda"});
  c.precision = r.get_choice("precision", c.precision, {"auto", "fp32", "bf16"});
  c.threads = static_cast<int>(r.get_int("threads", c.threads, 0, 4096));
  c.max_loss = r.get_double("max_loss", c.max_loss, 0.0, 1e30);
  if (r.has("early_stop")) c.early_stop = read_early_stop(r, c);
  r.finish();
  const std::string warmup_field = r.field(c.warmup_fraction > 0.0 ? "warmup_fraction" : "warmup_steps");
  const std::string warmup_text = c.warmup_fraction > 0.0 ? core::format_number(c.warmup_fraction) + " x " +
                                                                std::to_string(c.steps) + " steps = " +
                                                                std::to_string(c.warmup_steps) + " steps"
                                                          : std::to_string(c.warmup_steps);
  if (c.warmup_steps > c.steps)
    throw core::Error(warmup_field, warmup_text + " is more than " + r.field("steps") + " = " +
                                             std::to_string(c.steps) + "; allowed: 0 to " + std::to_string(c.steps));
  if (c.schedule == "wsd" && c.warmup_steps > c.stable_end())
    throw core::Error(warmup_field, warmup_text + " is more than the stable phase's end (step " +
                                             std::to_string(c.stable_end()) + " of " + std::to_string(c.steps) +
                                             " with cooldown " + core::format_number(c.cooldown) + "); allowed: 0 to " +
                                             std::to_string(c.stable_end()));
  check_training_work(c, where);
  c.used = r.used();
  // A cosine run records no schedule keys: its settings read as they did before WSD existed,
  // so the runs a store already holds keep matching their project (trained_runs).
  if (c.schedule == "cosine") c.used.erase("schedule");
  if (c.early_stop.enabled())
    c.used["early_stop"] = {{"metric", c.early_stop.metric}, {"patience", c.early_stop.patience},
                            {"min_delta", c.early_stop.min_delta}};
  return c;
}

int64_t TrainingConfig::stable_end() const {
  if (schedule != "wsd") return steps;
  return search::wsd_stable_end(steps, cooldown);  // the search's rung runs compute it alike
}

ProfileSettings ProfileSettings::from_json(const json& section, const std::string& where) {
  using namespace core::limits;
  core::ConfigReader r(section, where);
  ProfileSettings p;
  p.present = true;
  p.after_runs = r.get_bool("after_runs", p.after_runs);
  const std::vector<int64_t> lens = r.get_int_list("seq_lens", {p.seq_lens.begin(), p.seq_lens.end()}, 2, kMaxSeqLen, 1,
                                                   kMaxProfileLengths, kNote);
  p.seq_lens.assign(lens.begin(), lens.end());
  p.phases = r.get_choice_list("phases", p.phases, {"train", "forward"});
  p.tokens_per_batch = r.get_int("tokens_per_batch", p.tokens_per_batch, 1, kMaxProfileTokensPerBatch, kNote);
  p.warmup = static_cast<int>(r.get_int("warmup", p.warmup, 0, kMaxProfileSteps, kNote));
  p.repeats = static_cast<int>(r.get_int("repeats", p.repeats, 1, kMaxProfileSteps, kNote));
  p.timeout_s = static_cast<int>(r.get_int("timeout_s", p.timeout_s, 1, 86400));
  p.device = r.get_choice("device", p.device, {"auto", "cpu", "cuda"});
  r.finish();
  p.used = r.used();
  return p;
}

}  // namespace pha::project
