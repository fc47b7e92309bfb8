#include "runtime/run_eval.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "runtime/evaluator.h"
#include "runtime/job_data.h"
#include "runtime/project.h"
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
  if (!in) throw Error(path, "cannot be read");
  unsigned char len[8] = {};
  in.read(reinterpret_cast<char*>(len), 8);
  if (in.gcount() != 8) throw Error(path, "is not a safetensors checkpoint (shorter than its 8-byte header length)");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  std::error_code ec;
  const uint64_t size = fs::file_size(path, ec);
  if (ec || n == 0 || n > size - 8 || n > (uint64_t{100} << 20))
    throw Error(path, "is not a safetensors checkpoint (header length " + std::to_string(n) + " does not fit the file)");
  std::string header(static_cast<size_t>(n), '\0');
  in.read(header.data(), static_cast<std::streamsize>(n));
  const json h = json::parse(header, nullptr, false);
  if (h.is_discarded() || !h.is_object()) throw Error(path, "is not a safetensors checkpoint (its header is not JSON)");
  const json meta = h.value("__metadata__", json::object());
  if (!meta.is_object() || !meta.contains("pha.step") || !meta["pha.step"].is_string())
    throw Error(path, "is not a PHA checkpoint (no pha.step metadata)");
  try {
    return std::stoll(meta["pha.step"].get<std::string>());
  } catch (const std::exception&) {
    throw Error(path, "checkpoint metadata pha.step = \"" + meta["pha.step"].get<std::string>() + "\" is not an integer");
  }
}

// The checkpoint to evaluate and its step.
std::pair<std::string, int64_t> pick_checkpoint(store::Store& s, int64_t run_id, const RunEvalOptions& o) {
  const auto ckpts = s.checkpoints(run_id);
  if (!o.checkpoint.empty() && o.step >= 0) throw Error("--checkpoint", "give either --checkpoint or --step, not both");
  if (!o.checkpoint.empty()) {
    if (!fs::is_regular_file(o.checkpoint)) throw Error(o.checkpoint, "no such checkpoint file");
    for (const auto& c : ckpts)
      if (same_file(c.path, o.checkpoint)) return {o.checkpoint, c.step};
    return {o.checkpoint, checkpoint_step(o.checkpoint)};
  }
  std::string steps;
  for (const auto& c : ckpts) steps += (steps.empty() ? "" : ", ") + std::to_string(c.step);
  if (ckpts.empty())
    throw Error(s.path(), "run " + std::to_string(run_id) + " has no checkpoint (it is written at the end of training)");
  const store::CheckpointRow* pick = &ckpts.back();
  if (o.step >= 0) {
    pick = nullptr;
    for (const auto& c : ckpts)
      if (c.step == o.step) pick = &c;
    if (!pick)
      throw Error("--step", "run " + std::to_string(run_id) + " has no checkpoint at step " + std::to_string(o.step) +
                                " (it has: " + steps + ")");
  }
  if (!fs::is_regular_file(pick->path))
    throw Error(pick->path, "checkpoint of run " + std::to_string(run_id) + " at step " + std::to_string(pick->step) +
                                " is missing on disk");
  return {pick->path, pick->step};
}

data::AccuracyReport eval_task_set(Trainer& t, const data::TaskGenerator& task, int64_t n, int B) {
  return evaluate_task(t, task, n > 0 ? n : task.info().num_examples, B);
}

void check_task_vocab(const data::TaskGenerator& task, int64_t model_vocab, const std::string& where) {
  if (task.info().vocab_size > model_vocab)
    throw Error(where, "task \"" + task.info().name + "\" uses " + std::to_string(task.info().vocab_size) +
                           " token ids; the model has a vocabulary of " + std::to_string(model_vocab));
}

}  // namespace

RunEvalResult evaluate_run(const std::string& store_path, int64_t run_id, const RunEvalOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  if (o.examples < 0) throw Error("--examples", "must be >= 0");
  if (o.sweep_examples < 0) throw Error("--sweep-examples", "must be >= 0");
  if (o.max_tokens < 0) throw Error("--tokens", "must be >= 0");
  if (o.batch_size < 0) throw Error("--batch-size", "must be >= 0");
  for (int T : o.lengths)
    if (T < 2) throw Error("--lengths", "every length must be at least 2, got " + std::to_string(T));
  for (const auto& s : o.splits)
    if (s != "valid" && s != "test") throw Error("--split", "must be \"valid\" or \"test\", got \"" + s + "\"");

  auto s = store::Store::open(store_path);
  const auto run = s.get_run(run_id);
  if (!run) throw Error(store_path, "no run with id " + std::to_string(run_id) + " (see `pha runs list`)");
  RunEvalResult out;
  out.run_id = run_id;
  out.run_name = run->name;

  const json cfg = json::parse(run->config_json, nullptr, false);
  if (!cfg.is_object() || !cfg.contains("data") || !cfg.contains("training"))
    throw Error(store_path, "run " + std::to_string(run_id) + " (\"" + run->name +
                                "\") is not a training run: its record has no data and training sections");
  const auto [ckpt, step] = pick_checkpoint(s, run_id, o);
  out.checkpoint = ckpt;
  out.step = step;

  TrainingConfig tc;
  DataSpec ds;
  try {
    tc = TrainingConfig::from_json(cfg["training"], "training");
    ds = DataSpec::from_json(cfg["data"], "data");
  } catch (const Error& e) {
    throw Error(e.where(), message_of(e) + " (the data / training recorded for run " + std::to_string(run_id) + " in " +
                               store_path + ")");
  }
  out.is_task = ds.is_task;
  if (!ds.is_task && !o.task.is_null())
    throw Error("--task", "run " + std::to_string(run_id) + " was trained on text; --task is for runs trained on a task");
  if (ds.is_task && !o.splits.empty())
    throw Error("--split", "run " + std::to_string(run_id) + " was trained on a task; --split is for text runs "
                                                           "(a task run is evaluated on its held-out sets, or --task)");
  if (!ds.is_task && (o.length_sweep.value_or(false) || o.ood_sweep.value_or(false)))
    throw Error("--sweeps", "the length and OOD sweeps are for task runs; for text give --lengths");
  if (!ds.is_task && (o.examples > 0 || o.sweep_examples > 0))
    throw Error(o.examples > 0 ? "--examples" : "--sweep-examples",
                "is for task runs; run " + std::to_string(run_id) + " was trained on text (give --tokens)");
  if (ds.is_task && o.max_tokens > 0)
    throw Error("--tokens", "is for text runs; run " + std::to_string(run_id) + " was trained on a task (give --examples)");
  if (o.batch_size > 0) tc.batch_size = o.batch_size;
  const int B = tc.batch_size;

  const json ck_cfg = checkpoint_config(ckpt);
  if (!ck_cfg.contains("model")) throw Error(ckpt, "checkpoint records no model config");
  const model::ModelConfig mc = model::model_config_from_json(ck_cfg.at("model"), ckpt + ": model");
  // --task: made and checked before the model is built (bad input fails fast).
  std::unique_ptr<data::TaskGenerator> base_task;
  int64_t sweep_seed = 0;
  std::string label;
  const bool other_task = !o.task.is_null();
  if (other_task) {
    if (!o.task.is_object() || !o.task.contains("task"))
      throw Error("--task", "must name a task (a task config {\"task\": name, ...})");
    json c = o.task;
    // The run's own task: the parameters not given are the training task's (a new T, more
    // pairs, ...), evaluated on held-out sequences.
    if (c["task"] == ds.train_task.value("task", json())) {
      json t = ds.train_task;
      t.erase("seed");
      t.erase("num_examples");
      t.merge_patch(c);
      c = t;
    }
    if (!c.contains("seed")) c["seed"] = ds.train_task.value("seed", 0) + 10;
    if (!c.contains("num_examples")) c["num_examples"] = 1000;
    try {
      base_task = data::make_task(c);
    } catch (const Error& e) {
      rethrow_under(e, "task", "--task");
    }
    check_task_vocab(*base_task, mc.vocab_size, "--task");
    label = o.task_label.empty() ? base_task->info().name : o.task_label;
    sweep_seed = c["seed"].is_number_integer() ? c["seed"].get<int64_t>() : 0;
  } else if (ds.is_task) {
    base_task = data::make_task(ds.train_task);
    sweep_seed = ds.train_task.value("seed", 0) + 10;
  }
  // The OOD sweep needs a task with a binary-input mode (a bits_p parameter); by default it
  // runs when the swept task is in that mode (bits_p >= 0, e.g. trained at 0.5).
  const bool has_bits = base_task && base_task->params().contains("bits_p");
  const bool binary = has_bits && base_task->params()["bits_p"].is_number() && base_task->params()["bits_p"].get<double>() >= 0;
  if (ds.is_task && o.ood_sweep.value_or(false) && !has_bits)
    throw Error("--sweeps", "\"ood\" needs a task with binary inputs (bits_p); \"" + base_task->info().name +
                                "\" has none");

  Trainer trainer(mc, tc, o.device);
  trainer.load_weights(ckpt);
  out.device = trainer.device();

  if (!ds.is_task) {
    JobData data(ds, tc);
    std::vector<data::Split> splits;
    if (o.splits.empty()) splits = {data::Split::Valid, data::Split::Test};
    for (const auto& name : o.splits) {
      const data::Split sp = name == "valid" ? data::Split::Valid : data::Split::Test;
      if (std::find(splits.begin(), splits.end(), sp) == splits.end()) splits.push_back(sp);
    }
    const std::vector<int> lengths = o.lengths.empty() ? std::vector<int>{tc.seq_len} : o.lengths;
    for (data::Split sp : splits) {
      const auto& tokens = data.text().tokens(sp);
      const std::string name = data::split_name(sp);
      if (tokens.size() < 2) {
        if (!o.splits.empty()) throw Error("--split", "the " + name + " split of run " + std::to_string(run_id) + "'s data is empty");
        out.skipped.push_back(name + ": the split is empty");
        continue;
      }
      for (int T : lengths) {
        const TextEvalResult r = evaluate_text(trainer, tokens, data.token_bytes(), B, T, o.max_tokens);
        if (r.tokens == 0) {
          out.skipped.push_back(name + " at T=" + std::to_string(T) + ": the split is shorter than one window");
          continue;
        }
        RunEvalRow row;
        row.set = name;
        row.kind = "text";
        row.seq_len = T;
        row.loss = r.loss;
        row.perplexity = r.perplexity;
        row.bpb = r.bpb;
        row.tokens = r.tokens;
        row.bytes = r.bytes;
        out.rows.push_back(row);
      }
    }
  } else {
    // The run's held-out sets, or --task; then the sweeps of base_task (--task, else the
    // training task at the held-out seed + 10).
    if (other_task) {
      RunEvalRow row;
      row.set = label;
      row.kind = "task";
      row.seq_len = base_task->info().seq_len;
      row.accuracy = eval_task_set(trainer, *base_task, o.examples, B);
      out.rows.push_back(row);
    } else {
      for (const auto& [name, tcfg] : ds.test_tasks) {
        auto task = data::make_task(tcfg);
        check_task_vocab(*task, mc.vocab_size, "data.test");
        RunEvalRow row;
        row.set = name;
        row.kind = "task";
        row.seq_len = task->info().seq_len;
        row.accuracy = eval_task_set(trainer, *task, o.examples, B);
        out.rows.push_back(row);
      }
    }
    const std::string base_name = base_task->info().name;
    auto sweep_config = [&](json c, int64_t n) {
      c["task"] = base_name;
      c["seed"] = sweep_seed;
      c["num_examples"] = n;
      return c;
    };
    const int64_t n_sweep = o.sweep_examples > 0 ? o.sweep_examples : tc.sweep_examples;
    // Length sweep: every T the task can be made at (the others are reported as skipped).
    if (o.length_sweep.value_or(true)) {
      const std::vector<int> lengths = o.lengths.empty() ? std::vector<int>{50, 75, 100, 150, 200, 400} : o.lengths;
      for (int T : lengths) {
        json c = base_task->params();
        c["seq_len"] = T;
        if (c.contains("seq_len_min")) c["seq_len_min"] = T;
        std::unique_ptr<data::TaskGenerator> task;
        try {
          task = data::make_task(sweep_config(c, n_sweep));
        } catch (const Error& e) {
          out.skipped.push_back("length T=" + std::to_string(T) + ": " + e.what());
          continue;
        }
        RunEvalRow row;
        row.set = other_task ? "length:" + label : "length";
        row.kind = "length";
        row.seq_len = task->info().seq_len;
        row.accuracy = eval_task_set(trainer, *task, n_sweep, B);
        out.rows.push_back(row);
      }
    }
    if (o.ood_sweep.value_or(binary)) {
      std::vector<data::TaskSet> sets;
      try {
        sets = data::ood_bits_sets(sweep_config(base_task->params(), n_sweep));
      } catch (const Error& e) {
        rethrow_under(e, "task", other_task ? "--task" : "data.train");
      }
      for (const auto& set : sets) {
        auto task = data::make_task(sweep_config(set.config, n_sweep));
        RunEvalRow row;
        row.set = other_task ? label + set.name.substr(base_name.size()) : set.name;
        row.kind = "ood";
        row.seq_len = task->info().seq_len;
        row.bits_p = set.config.value("bits_p", 0.0);
        row.accuracy = eval_task_set(trainer, *task, n_sweep, B);
        out.rows.push_back(row);
      }
    }
  }

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
  for (const auto& row : r.rows) {
    if (row.kind == "text") {
      out.push_back({r.step, row.set, row.seq_len, "loss", row.loss});
      out.push_back({r.step, row.set, row.seq_len, "perplexity", row.perplexity});
      out.push_back({r.step, row.set, row.seq_len, "bpb", row.bpb});
    } else {
      out.push_back({r.step, row.set, row.seq_len, "accuracy", row.accuracy.micro});
      out.push_back({r.step, row.set, row.seq_len, "macro_accuracy", row.accuracy.macro});
      out.push_back({r.step, row.set, row.seq_len, "exact_match", row.accuracy.exact_match});
    }
  }
  return out;
}

}  // namespace pha::runtime
