#include "runtime/run_eval.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "runtime/internal/evaluator.h"
#include "runtime/job_data.h"
#include "project/project.h"
#include "runtime/trainer.h"
#include "store/store.h"

namespace pha::runtime {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  const bool eq = fs::equivalent(a, b, ec);
  return !ec && eq;
}

// The training step a checkpoint was written at: its safetensors metadata "pha.step" (read
// from the JSON header only; the tensors stay on disk).
int64_t checkpoint_step(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::Error(path, "cannot be read");
  unsigned char len[8] = {};
  in.read(reinterpret_cast<char*>(len), 8);
  if (in.gcount() != 8) throw core::Error(path, "is not a safetensors checkpoint (shorter than its 8-byte header length)");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  std::error_code ec;
  const uint64_t size = fs::file_size(path, ec);
  if (ec || n == 0 || n > size - 8 || n > (uint64_t{100} << 20))
    throw core::Error(path, "is not a safetensors checkpoint (header length " + std::to_string(n) + " does not fit the file)");
  std::string header(static_cast<size_t>(n), '\0');
  in.read(header.data(), static_cast<std::streamsize>(n));
  const json h = json::parse(header, nullptr, false);
  if (h.is_discarded() || !h.is_object()) throw core::Error(path, "is not a safetensors checkpoint (its header is not JSON)");
  const json meta = h.value("__metadata__", json::object());
  if (!meta.is_object() || !meta.contains("pha.step") || !meta["pha.step"].is_string())
    throw core::Error(path, "is not a PHA checkpoint (no pha.step metadata)");
  try {
    return std::stoll(meta["pha.step"].get<std::string>());
  } catch (const std::exception&) {
    throw core::Error(path, "checkpoint metadata pha.step = \"" + meta["pha.step"].get<std::string>() + "\" is not an integer");
  }
}

void check_task_vocab(const data::TaskGenerator& task, int64_t model_vocab, const std::string& where) {
  if (task.info().vocab_size > model_vocab)
    throw core::Error(where, "task \"" + task.info().name + "\" uses " + std::to_string(task.info().vocab_size) +
                           " token ids; the model has a vocabulary of " + std::to_string(model_vocab));
}

void check_options(const RunEvalOptions& o) {
  if (o.examples < 0) throw core::Error("--examples", "must be >= 0");
  if (o.sweep_examples < 0) throw core::Error("--sweep-examples", "must be >= 0");
  if (o.max_tokens < -1) throw core::Error("--tokens", "must be >= 0 (0: the whole split)");
  if (o.batch_size < 0) throw core::Error("--batch-size", "must be >= 0");
  for (int T : o.lengths)
    if (T < 2) throw core::Error("--lengths", "every length must be at least 2, got " + std::to_string(T));
  for (const auto& s : o.splits)
    if (s != "valid" && s != "test") throw core::Error("--split", "must be \"valid\" or \"test\", got \"" + s + "\"");
}

// The options that only one kind of run has.
void check_fits_run(const RunEvalOptions& o, bool is_task, int64_t run_id) {
  const std::string run = "run " + std::to_string(run_id);
  if (!is_task && !o.task.is_null())
    throw core::Error("--task", run + " was trained on text; --task is for runs trained on a task");
  if (is_task && !o.splits.empty())
    throw core::Error("--split", run + " was trained on a task; --split is for text runs "
                                 "(a task run is evaluated on its held-out sets, or --task)");
  if (!is_task && (o.length_sweep.value_or(false) || o.ood_sweep.value_or(false)))
    throw core::Error("--sweeps", "the length and OOD sweeps are for task runs; for text give --lengths");
  if (!is_task && (o.examples > 0 || o.sweep_examples > 0))
    throw core::Error(o.examples > 0 ? "--examples" : "--sweep-examples",
                "is for task runs; " + run + " was trained on text (give --tokens)");
  if (is_task && o.max_tokens >= 0)
    throw core::Error("--tokens", "is for text runs; " + run + " was trained on a task (give --examples)");
}

// --task: the config to evaluate, made and checked before the model is built (bad input fails
// fast). The run's own task keeps the training parameters that are not given (a new T, more
// pairs, ...); "seed" defaults to the training seed + 10 (held out), "num_examples" to 1000.
json other_task_config(const RunEvalOptions& o, const project::DataSpec& ds, int64_t model_vocab) {
  if (!o.task.is_object() || !o.task.contains("task"))
    throw core::Error("--task", "must name a task (a task config {\"task\": name, ...})");
  json c = o.task;
  if (c["task"] == ds.train_task.value("task", json())) {
    json t = ds.train_task;
    t.erase("seed");
    t.erase("num_examples");
    t.merge_patch(c);
    c = t;
  }
  if (!c.contains("seed")) c["seed"] = ds.train_task.value("seed", 0) + 10;
  if (!c.contains("num_examples")) c["num_examples"] = 1000;
  std::unique_ptr<data::TaskGenerator> task;
  try {
    task = data::make_task(c);
  } catch (const core::Error& e) {
    core::rethrow_under(e, "task", "--task");
  }
  check_task_vocab(*task, model_vocab, "--task");
  json made = task->params();
  made["task"] = task->info().name;
  return made;
}

// Text runs: the run's final-evaluation plan with --split, --lengths and --tokens applied.
void apply_text_options(EvalPlan& plan, const RunEvalOptions& o) {
  if (!o.splits.empty()) {
    plan.splits.clear();
    for (const auto& name : o.splits) {
      const data::Split sp = name == "valid" ? data::Split::Valid : data::Split::Test;
      if (std::find(plan.splits.begin(), plan.splits.end(), sp) == plan.splits.end()) plan.splits.push_back(sp);
    }
  }
  if (!o.lengths.empty()) plan.text_lengths = o.lengths;
  if (o.max_tokens >= 0) plan.max_tokens = o.max_tokens;
}

// Task runs: the run's final-evaluation plan with --task, --sweeps, --lengths and the counts.
void apply_task_options(EvalPlan& plan, const RunEvalOptions& o, const project::DataSpec& ds, int64_t model_vocab) {
  if (o.examples > 0) plan.examples = o.examples;
  if (o.sweep_examples > 0) plan.sweep_examples = o.sweep_examples;
  const bool other = !o.task.is_null();
  if (other) {
    const json c = other_task_config(o, ds, model_vocab);
    plan.sweep_label = o.task_label.empty() ? c["task"].get<std::string>() : o.task_label;
    plan.sets = {{plan.sweep_label, c}};
    plan.sweep_task = c;
  } else {
    for (const auto& [name, config] : plan.sets) check_task_vocab(*data::make_task(config), model_vocab, "data.test");
  }
  // The run's own task keeps the project's data.sweep_lengths unless --lengths gives others.
  if (!o.lengths.empty() || other) plan.lengths = o.lengths;
  plan.length_sweep = o.length_sweep.value_or(plan.length_sweep || !o.lengths.empty());
  // The OOD sweep needs a task with a binary-input mode (a bits_p parameter); another task
  // inherits the run's OOD sweep only when it is in that mode (bits_p >= 0).
  const json& params = plan.sweep_task;
  const bool has_bits = params.contains("bits_p");
  const bool binary = has_bits && params["bits_p"].is_number() && params["bits_p"].get<double>() >= 0;
  if (o.ood_sweep.value_or(false) && !has_bits)
    throw core::Error("--sweeps", "\"ood\" needs a task with binary inputs (bits_p); \"" + params["task"].get<std::string>() +
                                "\" has none");
  plan.ood_sweep = o.ood_sweep.value_or(plan.ood_sweep && (!other || binary));
}

}  // namespace

// The checkpoint to evaluate and its step.
std::pair<std::string, int64_t> pick_run_checkpoint(store::Store& s, int64_t run_id, const std::string& checkpoint,
                                                    int64_t step) {
  struct {
    const std::string& checkpoint;
    int64_t step;
  } o{checkpoint, step};
  const auto ckpts = s.checkpoints(run_id);
  if (!o.checkpoint.empty() && o.step >= 0) throw core::Error("--checkpoint", "give either --checkpoint or --step, not both");
  if (!o.checkpoint.empty()) {
    if (!fs::is_regular_file(o.checkpoint)) throw core::Error(o.checkpoint, "no such checkpoint file");
    for (const auto& c : ckpts)
      if (same_file(c.path, o.checkpoint)) return {o.checkpoint, c.step};
    return {o.checkpoint, checkpoint_step(o.checkpoint)};
  }
  std::string steps;
  for (const auto& c : ckpts) steps += (steps.empty() ? "" : ", ") + std::to_string(c.step);
  if (ckpts.empty())
    throw core::Error(s.path(), "run " + std::to_string(run_id) + " has no checkpoint (it is written at the end of training)");
  const store::CheckpointRow* pick = &ckpts.back();
  if (o.step >= 0) {
    pick = nullptr;
    for (const auto& c : ckpts)
      if (c.step == o.step) pick = &c;
    if (!pick)
      throw core::Error("--step", "run " + std::to_string(run_id) + " has no checkpoint at step " + std::to_string(o.step) +
                                " (it has: " + steps + ")");
  }
  if (!fs::is_regular_file(pick->path))
    throw core::Error(pick->path, "checkpoint of run " + std::to_string(run_id) + " at step " + std::to_string(pick->step) +
                                " is missing on disk");
  return {pick->path, pick->step};
}

RunEvalResult evaluate_run(const std::string& store_path, int64_t run_id, const RunEvalOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  check_options(o);
  auto s = store::Store::open(store_path);
  const auto run = s.get_run(run_id);
  if (!run) throw core::Error(store_path, "no run with id " + std::to_string(run_id) + " (see `pha runs list`)");
  RunEvalResult out;
  out.run_id = run_id;
  out.run_name = run->name;

  const json cfg = json::parse(run->config_json, nullptr, false);
  if (!cfg.is_object() || !cfg.contains("data") || !cfg.contains("training"))
    throw core::Error(store_path, "run " + std::to_string(run_id) + " (\"" + run->name +
                                "\") is not a training run: its record has no data and training sections");
  const auto [ckpt, step] = pick_run_checkpoint(s, run_id, o.checkpoint, o.step);
  out.checkpoint = ckpt;
  out.step = step;

  project::TrainingConfig tc;
  project::DataSpec ds;
  try {
    tc = project::TrainingConfig::from_json(cfg["training"], "training");
    ds = project::DataSpec::from_json(cfg["data"], "data");
  } catch (const core::Error& e) {
    throw core::Error(e.where(), core::message_of(e) + " (the data / training recorded for run " + std::to_string(run_id) + " in " +
                               store_path + ")");
  }
  out.is_task = ds.is_task;
  check_fits_run(o, ds.is_task, run_id);
  if (o.batch_size > 0) tc.batch_size = o.batch_size;

  const json ck_cfg = checkpoint_config(ckpt);
  if (!ck_cfg.contains("model")) throw core::Error(ckpt, "checkpoint records no model config");
  const model::ModelConfig mc = model::model_config_from_json(ck_cfg.at("model"), ckpt + ": model");
  // The training's own final evaluation, with the options applied.
  EvalPlan plan = final_eval_plan(ds, tc);
  if (ds.is_task) apply_task_options(plan, o, ds, mc.vocab_size);
  else apply_text_options(plan, o);

  Trainer trainer(mc, tc, o.device);
  trainer.load_weights(ckpt);
  out.device = trainer.device();
  const JobData data(ds, tc);
  for (const auto& name : o.splits)  // a split asked for by name must have text
    if (data.text().tokens(name == "valid" ? data::Split::Valid : data::Split::Test).size() < 2)
      throw core::Error("--split", "the " + name + " split of run " + std::to_string(run_id) + "'s data is empty");
  EvalReport report = evaluate(trainer, data, plan);
  out.rows = std::move(report.points);
  out.skipped = std::move(report.skipped);

  if (o.record && !out.rows.empty()) {
    const auto rows = eval_rows(out);
    s.record_evals(run_id, rows);
    out.recorded = static_cast<int64_t>(rows.size());
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::vector<store::EvalRow> eval_rows(const RunEvalResult& r) {
  std::vector<store::EvalRow> out;
  for (const auto& point : r.rows)
    for (auto& row : store_rows(r.step, point)) out.push_back(std::move(row));
  return out;
}

}  // namespace pha::runtime
