// `pha eval`: evaluate a stored run's checkpoint (runtime::evaluate_run) on its own data or on
// another task, with the length / OOD sweeps for tasks; print a table (or JSON) and record the
// figures as eval rows of the run in its store.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cmd_runs.h"
#include "commands.h"
#include "core/error.h"
#include "device/system_info.h"
#include "runtime/run_eval.h"

namespace pha::cli {

using nlohmann::json;

namespace {

// The command line: the engine's options, bound directly where a flag is one of them, and
// what only the command reads (where the run is, the task given as text, the sweeps list).
struct EvalOpts {
  runtime::RunEvalOptions engine;
  std::string project, store, run, task, label, sweeps;
  std::vector<std::string> task_params;
  bool no_record = false, json_out = false;
};

// "key=value": the value as JSON when it parses (numbers, true/false, lists), else a string.
void add_param(json& cfg, const std::string& kv) {
  const auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0)
    throw CLI::ValidationError("--set", "expects KEY=VALUE (a task parameter such as seq_len=128), got \"" + kv + "\"");
  const std::string key = kv.substr(0, eq), text = kv.substr(eq + 1);
  json v = json::parse(text, nullptr, false);
  cfg[key] = v.is_discarded() ? json(text) : v;
}

json task_config(const EvalOpts& o) {
  if (o.task.empty()) {
    if (!o.task_params.empty()) throw CLI::ValidationError("--set", "task parameters need --task NAME");
    if (!o.label.empty()) throw CLI::ValidationError("--label", "names the rows of --task; give --task too");
    return json();
  }
  json cfg;
  if (o.task.front() == '{') {
    cfg = json::parse(o.task, nullptr, false);
    if (cfg.is_discarded() || !cfg.is_object()) throw CLI::ValidationError("--task", "is not a JSON object: " + o.task);
  } else {
    cfg = {{"task", o.task}};
  }
  for (const auto& kv : o.task_params) add_param(cfg, kv);
  return cfg;
}

runtime::RunEvalOptions engine_options(const EvalOpts& o) {
  runtime::RunEvalOptions e = o.engine;
  if (!e.checkpoint.empty() && e.step >= 0) throw CLI::ValidationError("--checkpoint", "give either --checkpoint or --step");
  e.task = task_config(o);
  e.task_label = o.label;
  if (!o.sweeps.empty()) {
    e.length_sweep = false;
    e.ood_sweep = false;
    std::stringstream ss(o.sweeps);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (item == "length") e.length_sweep = true;
      else if (item == "ood") e.ood_sweep = true;
      else if (item != "none")
        throw CLI::ValidationError("--sweeps", "entries must be \"length\", \"ood\" or \"none\", got \"" + item + "\"");
    }
  }
  e.record = !o.no_record;
  return e;
}

json to_json(const runtime::RunEvalResult& r) {
  json rows = json::array();
  for (const auto& row : r.rows) {
    json j = {{"set", row.set}, {"kind", row.kind}, {"seq_len", row.seq_len}};
    if (row.kind == "text") {
      j.update({{"loss", row.loss}, {"perplexity", row.perplexity}, {"bpb", row.bpb}, {"tokens", row.tokens},
                {"bytes", row.bytes}});
    } else {
      j.update({{"accuracy", row.accuracy.micro},
                {"macro_accuracy", row.accuracy.macro},
                {"exact_match", row.accuracy.exact_match},
                {"counted", row.accuracy.counted},
                {"sequences", row.accuracy.sequences}});
      if (row.kind == "ood") j["bits_p"] = row.bits_p;
    }
    rows.push_back(j);
  }
  return {{"run_id", r.run_id}, {"run", r.run_name}, {"checkpoint", r.checkpoint}, {"step", r.step},
          {"device", r.device}, {"rows", rows},   {"skipped", r.skipped},      {"recorded", r.recorded},
          {"seconds", r.seconds}};
}

void print_table(const runtime::RunEvalResult& r, const std::string& store_path) {
  std::printf("run %lld \"%s\", checkpoint at step %lld (%s, %s, %.1f s)\n", static_cast<long long>(r.run_id),
              r.run_name.c_str(), static_cast<long long>(r.step), r.checkpoint.c_str(), r.device.c_str(), r.seconds);
  if (!r.is_task) {
    std::printf("%-8s %7s %12s %9s %11s %8s\n", "split", "T", "tokens", "loss", "perplexity", "bpb");
    for (const auto& row : r.rows)
      std::printf("%-8s %7lld %12lld %9.4f %11.3f %8.4f\n", row.set.c_str(), static_cast<long long>(row.seq_len),
                  static_cast<long long>(row.tokens), row.loss, row.perplexity, row.bpb);
  } else {
    std::printf("%-24s %6s %9s %9s %9s %9s %10s\n", "set", "T", "accuracy", "macro", "exact", "sequences", "positions");
    for (const auto& row : r.rows)
      std::printf("%-24s %6lld %9.4f %9.4f %9.4f %9lld %10lld\n", row.set.c_str(), static_cast<long long>(row.seq_len),
                  row.accuracy.micro, row.accuracy.macro, row.accuracy.exact_match,
                  static_cast<long long>(row.accuracy.sequences), static_cast<long long>(row.accuracy.counted));
  }
  for (const auto& s : r.skipped) std::printf("skipped: %s\n", s.c_str());
  if (r.recorded > 0)
    std::printf("recorded %lld evaluation rows for run %lld at step %lld in %s\n", static_cast<long long>(r.recorded),
                static_cast<long long>(r.run_id), static_cast<long long>(r.step), store_path.c_str());
  else
    std::printf("nothing recorded (--no-record)\n");
}

}  // namespace

void add_eval_command(CLI::App& app, GlobalOptions& global) {
  auto o = std::make_shared<EvalOpts>();
  auto* cmd = app.add_subcommand(
      "eval",
      "Evaluate a run's checkpoint: text perplexity / bits per byte on its validation and test splits, or task "
      "accuracy on its held-out sets (or --task) with the length and OOD sweeps; records the results in the store");
  cmd->add_option("--project", o->project, "Project folder (its runs.sqlite)");
  cmd->add_option("--store", o->store, "Run store file (instead of --project)");
  cmd->add_option("--run", o->run, "Run id, or a run name that is unique in the store (see `pha runs list`)")->required();
  cmd->add_option("--checkpoint", o->engine.checkpoint, "Checkpoint file (default: the run's last)");
  cmd->add_option("--step", o->engine.step, "The run's checkpoint at this training step (default: the last)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--split", o->engine.splits, "Text runs: valid and/or test (default: both)")
      ->delimiter(',')
      ->check(CLI::IsMember({"valid", "test"}));
  cmd->add_option("--task", o->task,
                  "Task runs: evaluate on this task instead of the run's held-out sets: a task name (the run's own "
                  "task keeps its parameters) or a JSON config");
  cmd->add_option("--set", o->task_params, "A parameter of --task, KEY=VALUE (repeatable), e.g. --set seq_len=128");
  cmd->add_option("--label", o->label, "Name the rows of --task are recorded under (default: the task name)");
  cmd->add_option("--sweeps", o->sweeps,
                  "Task runs: length, ood, length,ood or none (default: the run's own, as its final evaluation ran "
                  "them: project.json data.sweeps; --lengths alone adds the length sweep)");
  cmd->add_option("--lengths", o->engine.lengths,
                  "Tasks: T values of the length sweep (default 50,75,100,150,200,400); text: window lengths to "
                  "evaluate at (default: the run's seq_len)")
      ->delimiter(',');
  cmd->add_option("--examples", o->engine.examples, "Tasks: examples per held-out set (default: the whole set)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--sweep-examples", o->engine.sweep_examples,
                  "Tasks: examples per sweep point (default: the run's training.sweep_examples)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--tokens", o->engine.max_tokens,
                  "Text: tokens per split, 0 for the whole split (default: the run's training.final_eval_tokens, "
                  "as its final evaluation)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--batch-size", o->engine.batch_size, "Sequences per forward pass (default: the run's batch_size)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--device", o->engine.device, "cpu | cuda | auto")->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  cmd->add_flag("--no-record", o->no_record, "Print only; write nothing to the store");
  cmd->add_flag("--json", o->json_out, "Print the results as JSON");
  cmd->callback([o, &global] {
    device::configure_threads(global.threads);
    const runtime::RunEvalOptions options = engine_options(*o);  // bad command line: exit 2, before any work
    RunLocator where;
    where.project = o->project;
    where.store = o->store;
    const std::string store_path = where.store_path();
    int64_t run_id = 0;
    {
      auto s = store::Store::open(store_path);
      run_id = resolve_run(s, o->run);
    }
    const runtime::RunEvalResult r = runtime::evaluate_run(store_path, run_id, options);
    if (o->json_out) std::cout << to_json(r).dump(2) << "\n";
    else print_table(r, store_path);
  });
}

}  // namespace pha::cli
