// The search runner (search_job.h): the section's trials, their rung runs as training runs,
// the decisions from their results. Longer functions here are the walk over brackets and rungs;
// every decision itself is search/promotion.cpp's.
#include "runtime/search_job.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "core/config_reader.h"
#include "core/error.h"
#include "core/metric_table.h"
#include "model/flops.h"
#include "model/model_config.h"
#include "model/presets.h"
#include "runtime/job.h"
#include "runtime/profiler.h"
#include "runtime/project_files.h"
#include "runtime/project_queue.h"
#include "search/param_constraint.h"
#include "search/promotion.h"
#include "search/schedule.h"
#include "search/search_space.h"
#include "search/search_spec.h"
#include "store/search_store.h"
#include "store/store.h"

extern char** environ;

namespace pha::runtime {

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A trial of one bracket with its resolved patch (after the equal-parameter fit).
struct TrialSetup {
  search::Trial trial;
  json patch;              // what the rung runs apply over the base run
  std::string infeasible;  // non-empty: failed before training (the reason)
  std::int64_t params = 0;
};

struct BracketSetup {
  search::Bracket bracket;
  std::vector<TrialSetup> trials;
};

struct OneSearch {
  std::string name;  // the base variant entry
  const RunPlan* base = nullptr;
  std::vector<BracketSetup> brackets;
};

struct Setup {
  Project project;
  search::SearchSpec spec;
  std::vector<std::uint64_t> seeds;
  int threads = 1;
  std::vector<OneSearch> searches;
};

// The section without the keys the runtime reads itself ("variants", "threads").
json spec_section(const json& section) {
  json s = section;
  if (s.is_object()) {
    s.erase("variants");
    s.erase("threads");
  }
  return s;
}

std::vector<std::string> entries_of(const Project& p) {
  std::vector<std::string> out;
  for (const RunPlan& r : p.runs)
    if (std::find(out.begin(), out.end(), r.entry) == out.end()) out.push_back(r.entry);
  return out;
}

std::vector<std::string> searched_variants(const Project& p) {
  const std::vector<std::string> entries = entries_of(p);
  if (!p.search.contains("variants")) return {entries.front()};
  const json& v = p.search["variants"];
  if (!v.is_array() || v.empty())
    throw Error("search.variants", "expected a non-empty list of the project's variants, got " + describe_json(v));
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string where = "search.variants[" + std::to_string(i) + "]";
    if (!v[i].is_string() || std::find(entries.begin(), entries.end(), v[i].get<std::string>()) == entries.end())
      throw Error(where, describe_json(v[i]) + " is not a variant of this project; allowed: " + quoted_list(entries));
    if (std::find(out.begin(), out.end(), v[i].get<std::string>()) != out.end())
      throw Error(where, "\"" + v[i].get<std::string>() + "\" is listed twice");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

const RunPlan& base_run(const Project& p, const std::string& entry) {
  for (const RunPlan& r : p.runs)
    if (r.entry == entry) return r;
  throw Error("search.variants", "\"" + entry + "\" has no runs");
}

std::int64_t tokens_per_step(const TrainingConfig& t) {
  return static_cast<std::int64_t>(t.batch_size) * t.seq_len * t.grad_accum;
}

// The rung's budget in optimizer steps for a run of `plan` (tokens and FLOPs divided by what
// one step processes; FLOPs counted per token by the engine's estimate, model/flops.h).
std::int64_t steps_for(const search::Budget& b, double resource, const RunPlan& plan) {
  double steps = resource;
  if (b.resource == "tokens") steps = resource / static_cast<double>(tokens_per_step(plan.training));
  if (b.resource == "flops")
    steps = resource / (model::estimate_flops(plan.model, plan.training.seq_len, plan.training.batch_size)
                            .training.total() *
                        static_cast<double>(tokens_per_step(plan.training)));
  return std::max<std::int64_t>(1, std::llround(steps));
}

std::string resource_text(double r) { return format_number(r); }

std::string run_name(const std::string& search, const search::SearchSpec& spec, int bracket, int trial, double resource,
                     std::uint64_t seed, bool seeded) {
  std::string n = "search:" + search + "/";
  if (spec.budget.brackets > 1) n += "b" + std::to_string(bracket);
  n += "t" + std::to_string(trial) + "@" + resource_text(resource);
  if (seeded) n += ",seed=" + std::to_string(seed);
  return n;
}

TrialSetup setup_trial(const Setup& s, const RunPlan& base, const search::Trial& t) {
  TrialSetup ts;
  ts.trial = t;
  ts.patch = t.patch.is_object() ? t.patch : json::object();
  json model = base.config["model"];
  if (ts.patch.contains("model")) model.merge_patch(ts.patch["model"]);
  try {
    if (s.spec.equal_params.enabled) {
      std::int64_t target = s.spec.equal_params.target;
      if (!s.spec.equal_params.preset.empty()) {
        model::ModelConfig ref = model::preset(s.spec.equal_params.preset);
        ref.vocab_size = base.model.vocab_size;
        target = model::count_parameters(ref).total;
      }
      const search::ParamFit fit = search::fit_params(model, target, s.spec.equal_params.tolerance);
      if (!fit.ok) {
        ts.infeasible = "equal parameters: " + fit.note;
        return ts;
      }
      if (fit.model != model) ts.patch["model"] = fit.model;
      model = fit.model;
    }
    ts.params = model::count_parameters(model::model_config_from_json(model, "model")).total;
  } catch (const Error& e) {
    ts.infeasible = e.what();
  }
  return ts;
}

Setup make_setup(const std::string& project_dir, const std::vector<std::string>& only) {
  Setup s;
  s.project = load_project(project_dir);
  if (s.project.search.is_null())
    throw Error(s.project.file(), "has no \"search\" section (docs/search.md)");
  s.spec = search::SearchSpec::from_json(spec_section(s.project.search), "search");
  const json& sec = s.project.search;
  const int cores = std::max(1u, std::thread::hardware_concurrency());
  s.threads = sec.contains("threads") && sec["threads"].is_number_integer()
                  ? sec["threads"].get<int>()
                  : std::max(1, cores / std::max(1, s.spec.budget.concurrency));
  std::vector<std::string> names = searched_variants(s.project);
  if (!only.empty()) {
    for (const auto& o : only)
      if (std::find(names.begin(), names.end(), o) == names.end())
        throw Error("--variant", "\"" + o + "\" is not searched; allowed: " + quoted_list(names));
    names = only;
  }
  for (const std::string& name : names) {
    OneSearch one;
    one.name = name;
    one.base = &base_run(s.project, name);
    s.seeds = s.spec.seeds;
    if (s.seeds.empty())
      for (int i = 0; i < s.spec.replicas; ++i) s.seeds.push_back(one.base->training.seed + static_cast<std::uint64_t>(i));
    const int sh_trials = s.spec.sampler.kind == "grid" ? static_cast<int>(search::generate_trials(s.spec, 0).size())
                                                        : s.spec.sampler.trials;
    for (const search::Bracket& b : search::hyperband_brackets(s.spec.budget, sh_trials)) {
      BracketSetup bs;
      bs.bracket = b;
      for (const search::Trial& t : search::generate_trials(s.spec, b.trials, static_cast<std::uint64_t>(b.index)))
        bs.trials.push_back(setup_trial(s, *one.base, t));
      one.brackets.push_back(std::move(bs));
    }
    s.searches.push_back(std::move(one));
  }
  return s;
}

// ---- one rung run ---------------------------------------------------------------------------

struct RungRun {
  SearchJobId id;
  RunPlan plan;
  std::string label;
  std::int64_t steps = 0;
  std::int64_t branch_step = 0;  // the previous rung's stable end (0: from scratch)
};

RungRun rung_run(const Setup& s, const OneSearch& one, const BracketSetup& bs, const TrialSetup& ts, int rung,
                 std::uint64_t seed) {
  RungRun rr;
  rr.id = {one.name, bs.bracket.index, ts.trial.index, rung, seed};
  rr.label = ts.trial.label;
  const double resource = bs.bracket.rungs[static_cast<size_t>(rung)].resource;
  const std::string name = run_name(one.name, s.spec, bs.bracket.index, ts.trial.index, resource, seed, s.seeds.size() > 1);
  json patch = ts.patch;
  // The steps first (a tokens or FLOPs budget depends on the trial's own batch and model).
  RunPlan probe = patched_run(s.project, *one.base, patch, name, "search");
  rr.steps = steps_for(s.spec.budget, resource, probe);
  json training = patch.value("training", json::object());
  training["steps"] = rr.steps;
  training["schedule"] = "wsd";
  training["seed"] = seed;
  if (!training.contains("threads")) training["threads"] = s.threads;
  if (probe.training.eval_every > 0 && !training.contains("checkpoint_every"))
    training["checkpoint_every"] = probe.training.eval_every;  // a kill loses one evaluation interval at most
  patch["training"] = training;
  rr.plan = patched_run(s.project, *one.base, patch, name, "search");
  rr.plan.group = run_name(one.name, s.spec, bs.bracket.index, ts.trial.index, resource, seed, false);
  rr.plan.seed = seed;
  rr.plan.entry = one.name;
  if (rung > 0) {
    const double prev = bs.bracket.rungs[static_cast<size_t>(rung - 1)].resource;
    TrainingConfig t = rr.plan.training;
    t.steps = steps_for(s.spec.budget, prev, rr.plan);
    rr.branch_step = t.stable_end();
  }
  return rr;
}

std::string previous_rung_name(const Setup& s, const RungRun& rr, const BracketSetup& bs) {
  const double prev = bs.bracket.rungs[static_cast<size_t>(rr.id.rung - 1)].resource;
  return run_name(rr.id.search, s.spec, rr.id.bracket, rr.id.trial, prev, rr.id.seed, s.seeds.size() > 1);
}

// The newest stored run named like `plan` with its configuration.
std::optional<store::RunInfo> stored_run(store::Store& st, const RunPlan& plan, bool finished_only) {
  store::RunListQuery q;
  q.project = plan.config.value("project", "");
  q.group = plan.group;
  q.kind = store::RunKind::Train;
  q.include_config = true;
  for (const auto& e : st.list_runs(q)) {
    if (e.run.name != plan.name) continue;
    if (finished_only && e.run.status != store::RunStatus::Finished) continue;
    const json cfg = json::parse(e.run.config_json, nullptr, false);
    if (cfg.is_discarded() || !same_run_config(cfg, plan.config)) continue;
    return e.run;
  }
  return std::nullopt;
}

struct RunOutcome {
  bool done = false;       // finished, failed or diverged: decidable
  bool failed = false;
  std::string reason;
  std::vector<double> values;  // per objective
  std::int64_t run_id = 0;
};

double objective_value(store::Store& st, const store::RunInfo& run, const RunPlan& plan, const std::string& metric) {
  if (metric == "params") return static_cast<double>(run.n_params);
  if (metric == "flops_per_token")
    return model::estimate_flops(plan.model, plan.training.seq_len, plan.training.batch_size).training.total();
  const auto sm = st.summary(run.id, metric);
  if (!sm || sm->count == 0) return std::nan("");
  return metric == "train/tokens_per_s" ? sm->max : sm->last;
}

RunOutcome outcome_of(store::Store& st, const Setup& s, const RungRun& rr) {
  RunOutcome o;
  store::RunListQuery q;
  q.project = s.project.name;
  q.group = rr.plan.group;
  q.kind = store::RunKind::Train;
  q.include_config = true;
  for (const auto& e : st.list_runs(q)) {  // newest first
    if (e.run.name != rr.plan.name) continue;
    const json cfg = json::parse(e.run.config_json, nullptr, false);
    if (cfg.is_discarded() || !same_run_config(cfg, rr.plan.config)) continue;
    if (e.run.status == store::RunStatus::Finished) {
      o.done = true;
      o.run_id = e.run.id;
      for (const auto& obj : s.spec.objectives) o.values.push_back(objective_value(st, e.run, rr.plan, obj.metric));
      for (double v : o.values)
        if (!std::isfinite(v)) {
          o.failed = true;
          o.reason = "run " + std::to_string(e.run.id) + " recorded no finite objective";
        }
      return o;
    }
    if (e.run.status == store::RunStatus::Diverged || e.run.status == store::RunStatus::Failed) {
      // Failed for a reason of its own (not an interruption, which resumes): the trial fails.
      o.done = true;
      o.failed = true;
      o.run_id = e.run.id;
      o.reason = std::string(e.run.status == store::RunStatus::Diverged ? "diverged" : "failed") + ": " + e.run.error;
      return o;
    }
    return o;  // running, cancelled or interrupted: to be (re)started or resumed
  }
  return o;
}

// Trains one rung run in this process: resumes an interrupted attempt from its checkpoint,
// else branches off the previous rung's pre-cooldown checkpoint, else starts from scratch.
void train_rung_run(const Setup& s, const RungRun& rr, const BracketSetup& bs, RunObserver& obs, RunControl& ctl) {
  auto st = store::Store::open(s.project.store_path());
  JobSpec spec;
  spec.project = s.project.dir;
  spec.plan = std::make_shared<RunPlan>(rr.plan);
  spec.threads = s.threads;
  spec.final_checkpoint = rr.id.rung + 1 < static_cast<int>(bs.bracket.rungs.size()) ? false : true;
  if (auto prior = stored_run(st, rr.plan, false)) {
    const bool resumable = prior->status == store::RunStatus::Cancelled || prior->status == store::RunStatus::Interrupted;
    bool has_ckpt = false;
    for (const auto& c : st.checkpoints(prior->id)) has_ckpt = has_ckpt || fs::exists(c.path);
    if (resumable && has_ckpt) spec.resume_run_id = prior->id;
  }
  if (spec.resume_run_id == 0 && rr.branch_step > 0) {
    RunPlan prev_plan = rr.plan;
    prev_plan.name = previous_rung_name(s, rr, bs);
    if (auto prev = [&]() -> std::optional<store::RunInfo> {
          store::RunListQuery q;
          q.project = s.project.name;
          q.kind = store::RunKind::Train;
          for (const auto& e : st.list_runs(q))
            if (e.run.name == prev_plan.name && e.run.status == store::RunStatus::Finished) return e.run;
          return std::nullopt;
        }()) {
      for (const auto& c : st.checkpoints(prev->id))
        if (c.step == rr.branch_step && fs::exists(c.path)) spec.branch_from = c.path;
    }
  }
  run_job(spec, obs, ctl);
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::vector<std::string> worker_argv(const Setup& s, const SearchOptions& o, const SearchJobId& id) {
  std::vector<std::string> a = {o.program.empty() ? self_executable() : o.program, "search", s.project.dir, "--only",
                                id.text()};
  if (o.quiet_workers) a.push_back("--quiet");
  return a;
}

// Runs the rung runs `todo` in up to `jobs` worker processes; returns when every one has ended.
void train_in_workers(const Setup& s, const SearchOptions& o, const std::vector<RungRun>& todo, SearchObserver& obs,
                      RunControl& ctl, int& started, int planned) {
  std::map<pid_t, size_t> live;
  size_t next = 0;
  while (next < todo.size() || !live.empty()) {
    while (!ctl.cancel_requested() && next < todo.size() && static_cast<int>(live.size()) < o.jobs) {
      const auto args = worker_argv(s, o, todo[next].id);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      pid_t pid = 0;
      if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0)
        throw Error(argv[0], "cannot start a search worker");
      obs.on_search_run(todo[next].id, todo[next].label, ++started, planned);
      live[pid] = next++;
    }
    if (live.empty()) break;
    int status = 0;
    const pid_t done = waitpid(-1, &status, WNOHANG);
    if (done > 0) {
      live.erase(done);
      continue;
    }
    if (ctl.cancel_requested())
      for (const auto& [pid, i] : live) kill(pid, SIGINT);  // each worker checkpoints and ends cancelled
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

double row_resource(const BracketSetup& bs, int rung) { return bs.bracket.rungs[static_cast<size_t>(rung)].resource; }

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// ---- the walk --------------------------------------------------------------------------------

enum class Mode { Status, Plan, Train };

struct Walk {
  const Setup& s;
  Mode mode;
  const SearchOptions& options;
  SearchObserver* obs = nullptr;
  RunControl* ctl = nullptr;
  SearchResult result;
  int started = 0;

  // Planned rung runs so far (for "run 3 of 27"): every trial's first rung plus what promotions
  // add; an estimate until the last rung is decided.
  int planned() const {
    int n = 0;
    for (const auto& one : s.searches)
      for (const auto& b : one.brackets)
        for (const auto& r : b.bracket.rungs) n += r.trials * static_cast<int>(s.seeds.size());
    return n;
  }

  void note_trial(const OneSearch& one, const BracketSetup& bs, const TrialSetup& ts, int rung,
                  const std::string& state, const search::Ranked* ranked, const std::string& why,
                  std::vector<std::int64_t> runs) {
    auto& trials = result.summary.trials;
    auto it = std::find_if(trials.begin(), trials.end(), [&](const SearchTrialState& t) {
      return t.search == one.name && t.bracket == bs.bracket.index && t.trial == ts.trial.index;
    });
    if (it == trials.end()) {
      trials.push_back({});
      it = trials.end() - 1;
    }
    it->search = one.name;
    it->bracket = bs.bracket.index;
    it->trial = ts.trial.index;
    it->label = ts.trial.label;
    it->values = ts.trial.values;
    it->params = ts.params;
    it->rung = rung;
    it->resource = bs.bracket.rungs[static_cast<size_t>(rung)].resource;
    it->state = state;
    it->why = why;
    it->run_ids = std::move(runs);
    if (ranked) {
      it->mean = ranked->mean;
      it->stdev = ranked->stdev;
    }
  }

  // Returns false when the bracket cannot go on (runs still to train in Status/Plan mode, or
  // cancelled).
  bool walk_bracket(const OneSearch& one, const BracketSetup& bs) {
    std::vector<int> alive;
    for (const auto& ts : bs.trials) {
      if (!ts.infeasible.empty())
        note_trial(one, bs, ts, 0, "failed", nullptr, "failed: " + ts.infeasible, {});
      else
        alive.push_back(ts.trial.index);
    }
    const int n_rungs = static_cast<int>(bs.bracket.rungs.size());
    for (int rung = 0; rung < n_rungs && !alive.empty(); ++rung) {
      std::vector<RungRun> runs;
      for (int t : alive)
        for (std::uint64_t seed : s.seeds) runs.push_back(rung_run(s, one, bs, bs.trials[static_cast<size_t>(t)], rung, seed));
      auto st = store::Store::open(s.project.store_path());
      std::vector<RungRun> todo;
      for (const auto& rr : runs)
        if (!outcome_of(st, s, rr).done) todo.push_back(rr);
      if (!todo.empty()) {
        if (mode == Mode::Status) {
          for (int t : alive) note_trial(one, bs, bs.trials[static_cast<size_t>(t)], rung, "pending", nullptr, "", {});
          return false;
        }
        if (mode == Mode::Plan) {
          for (const auto& rr : todo) {
            std::string line;
            for (const auto& a : worker_argv(s, options, rr.id)) line += (line.empty() ? "" : " ") + shell_quote(a);
            result.plan.push_back(line);
          }
          return false;
        }
        train(todo, bs);
        if (ctl->cancel_requested()) {
          result.cancelled = true;
          return false;
        }
      }
      alive = decide(st, one, bs, rung, runs, alive);
    }
    return true;
  }

  void train(const std::vector<RungRun>& todo, const BracketSetup& bs) {
    if (options.jobs > 1) {
      train_in_workers(s, options, todo, *obs, *ctl, started, planned());
      result.summary.runs_trained += static_cast<std::int64_t>(todo.size());
      return;
    }
    for (const auto& rr : todo) {
      if (ctl->cancel_requested()) return;
      obs->on_search_run(rr.id, rr.label, ++started, planned());
      train_rung_run(s, rr, bs, *obs, *ctl);
      result.summary.runs_trained++;
    }
  }

  std::vector<int> decide(store::Store& st, const OneSearch& one, const BracketSetup& bs, int rung,
                          const std::vector<RungRun>& runs, const std::vector<int>& alive) {
    std::vector<search::TrialOutcome> outcomes;
    std::map<int, std::vector<std::int64_t>> run_ids;
    std::map<int, std::vector<std::vector<double>>> values;
    for (int t : alive) {
      search::TrialOutcome o;
      o.trial = t;
      o.values.assign(s.spec.objectives.size(), {});
      outcomes.push_back(o);
    }
    for (const auto& rr : runs) {
      const RunOutcome ro = outcome_of(st, s, rr);
      auto& o = *std::find_if(outcomes.begin(), outcomes.end(), [&](const auto& x) { return x.trial == rr.id.trial; });
      run_ids[rr.id.trial].push_back(ro.run_id);
      if (ro.failed || !ro.done) {
        o.failed = true;
        o.reason = ro.done ? ro.reason : "a run did not end";
        continue;
      }
      for (size_t k = 0; k < ro.values.size(); ++k) o.values[k].push_back(ro.values[k]);
    }
    const bool last = rung + 1 == static_cast<int>(bs.bracket.rungs.size());
    const int keep = last ? static_cast<int>(alive.size()) : bs.bracket.rungs[static_cast<size_t>(rung + 1)].trials;
    const search::Decision d = search::promote(outcomes, s.spec.objectives, keep);
    std::vector<store::SearchDecisionRow> rows;
    for (const auto& r : d.ranking) {
      const TrialSetup& ts = bs.trials[static_cast<size_t>(r.trial)];
      const bool promoted = std::find(d.promoted.begin(), d.promoted.end(), r.trial) != d.promoted.end();
      const std::string decision = r.failed ? "failed" : last ? "finished" : promoted ? "promoted" : "stopped";
      const auto why_it = d.why.find(r.trial);
      std::string why = why_it == d.why.end() ? "" : why_it->second;
      if (last && !r.failed) {
        const auto pos = std::find_if(d.ranking.begin(), d.ranking.end(), [&](const auto& x) { return x.trial == r.trial; });
        why = "rank " + std::to_string(pos - d.ranking.begin() + 1) + " of " + std::to_string(d.ranking.size()) +
              " at the full budget (" + format_number(row_resource(bs, rung)) + " " + s.spec.budget.resource + ")";
      }
      note_trial(one, bs, ts, rung, decision, &r, why, run_ids[r.trial]);
      store::SearchDecisionRow row;
      row.project = s.project.name;
      row.search = one.name;
      row.bracket = bs.bracket.index;
      row.rung = rung;
      row.trial = r.trial;
      row.resource = row_resource(bs, rung);
      row.label = ts.trial.label;
      row.decision = decision;
      row.why = why;
      const auto& o = *std::find_if(outcomes.begin(), outcomes.end(), [&](const auto& x) { return x.trial == r.trial; });
      row.values_json = json(o.values).dump();
      row.runs_json = json(run_ids[r.trial]).dump();
      row.decided_at = now_ms();
      rows.push_back(std::move(row));
    }
    if (mode == Mode::Train && options.only.empty()) store::record_search_decisions(st, rows);
    if (obs) obs->on_search_decided(result.summary);
    return last ? std::vector<int>{} : d.promoted;
  }

  void compute_totals() {
    double total = 0;
    for (const auto& one : s.searches)
      for (const auto& bs : one.brackets) {
        double prev_stable = 0;
        for (const auto& r : bs.bracket.rungs) {
          TrainingConfig t = one.base->training;
          t.schedule = "wsd";
          t.steps = steps_for(s.spec.budget, r.resource, *one.base);
          total += static_cast<double>(r.trials) * static_cast<double>(s.seeds.size()) *
                   (static_cast<double>(t.steps) - prev_stable);
          prev_stable = static_cast<double>(t.stable_end());
        }
      }
    result.summary.steps_total = total;
  }

  void run() {
    result.summary.project = s.project.name;
    for (const auto& one : s.searches) result.summary.searches.push_back(one.name);
    for (const auto& o : s.spec.objectives) result.summary.objectives.push_back(o.metric);
    result.summary.resource = s.spec.budget.resource;
    compute_totals();
    bool complete = true;
    for (const auto& one : s.searches)
      for (const auto& bs : one.brackets) {
        if (result.cancelled) return;
        complete = walk_bracket(one, bs) && complete;
      }
    result.summary.complete = complete && !result.cancelled;
  }
};

}  // namespace

std::string SearchJobId::text() const {
  return search + ":b" + std::to_string(bracket) + ":t" + std::to_string(trial) + ":r" + std::to_string(rung) + ":s" +
         std::to_string(seed);
}

SearchJobId SearchJobId::parse(const std::string& text) {
  SearchJobId id;
  const auto bad = [&]() -> SearchJobId {
    throw Error("--only", "\"" + text + "\" is not a rung run; allowed: <variant>:b<N>:t<N>:r<N>:s<seed> (from --plan)");
  };
  std::vector<std::string> parts;
  std::stringstream ss(text);
  for (std::string p; std::getline(ss, p, ':');) parts.push_back(p);
  if (parts.size() != 5 || parts[0].empty()) return bad();
  const char tags[] = {'b', 't', 'r', 's'};
  long long v[4];
  for (int i = 0; i < 4; ++i) {
    const std::string& p = parts[static_cast<size_t>(i + 1)];
    if (p.size() < 2 || p[0] != tags[i] || p.find_first_not_of("0123456789", 1) != std::string::npos) return bad();
    v[i] = std::stoll(p.substr(1));
  }
  id.search = parts[0];
  id.bracket = static_cast<int>(v[0]);
  id.trial = static_cast<int>(v[1]);
  id.rung = static_cast<int>(v[2]);
  id.seed = static_cast<std::uint64_t>(v[3]);
  return id;
}

void check_search_section(const Project& project) {
  if (project.search.is_null()) return;
  if (!project.search.is_object())
    throw Error("search", "expected an object (docs/search.md), got " + describe_json(project.search));
  const search::SearchSpec spec = search::SearchSpec::from_json(spec_section(project.search), "search");
  if (spec.sampler.kind == "grid" && spec.budget.brackets > 1)
    throw Error("search.budget.brackets", std::to_string(spec.budget.brackets) +
                                              " brackets with a grid sampler; allowed: 1 (a grid runs one successive-"
                                              "halving ladder; Hyperband brackets need the random sampler)");
  if (project.search.contains("threads")) {
    const json& t = project.search["threads"];
    if (!t.is_number_integer() || t.get<int64_t>() < 1 || t.get<int64_t>() > 4096)
      throw Error("search.threads", describe_json(t) + " is not allowed; allowed: an integer 1 to 4096");
  }
  for (const std::string& v : searched_variants(project)) {
    const RunPlan& base = base_run(project, v);
    // The first rung's run must have a stable phase after its warmup (WSD).
    TrainingConfig t = base.training;
    t.schedule = "wsd";
    t.steps = steps_for(spec.budget, spec.budget.min, base);
    if (t.warmup_steps > t.stable_end())
      throw Error("search.budget.min", format_number(spec.budget.min) + " " + spec.budget.resource + " gives " +
                                           std::to_string(t.steps) + " steps, whose stable phase ends at step " +
                                           std::to_string(t.stable_end()) + ", before \"" + v +
                                           "\"'s warmup of " + std::to_string(t.warmup_steps) +
                                           " steps; allowed: a larger min or a shorter training.warmup_steps");
  }
}

SearchResult run_search(const std::string& project, const SearchOptions& options, SearchObserver& observer,
                        RunControl& control) {
  const Setup s = make_setup(project, options.searches);
  if (!options.only.empty()) {
    const SearchJobId id = SearchJobId::parse(options.only);
    for (const auto& one : s.searches) {
      if (one.name != id.search) continue;
      for (const auto& bs : one.brackets) {
        if (bs.bracket.index != id.bracket) continue;
        if (id.trial < 0 || id.trial >= static_cast<int>(bs.trials.size()) || id.rung < 0 ||
            id.rung >= static_cast<int>(bs.bracket.rungs.size()) ||
            std::find(s.seeds.begin(), s.seeds.end(), id.seed) == s.seeds.end())
          break;
        const RungRun rr = rung_run(s, one, bs, bs.trials[static_cast<size_t>(id.trial)], id.rung, id.seed);
        auto st = store::Store::open(s.project.store_path());
        SearchResult r;
        if (!outcome_of(st, s, rr).done) train_rung_run(s, rr, bs, observer, control);
        r.summary.project = s.project.name;
        r.summary.runs_trained = 1;
        return r;
      }
    }
    throw Error("--only", "\"" + options.only + "\" is not a rung run of this project's search (see --plan)");
  }
  Walk w{s, options.plan ? Mode::Plan : Mode::Train, options, &observer, &control, {}, 0};
  w.run();
  return w.result;
}

SearchSummary search_status(const std::string& project) {
  const Setup s = make_setup(project, {});
  SearchOptions o;
  Walk w{s, Mode::Status, o, nullptr, nullptr, {}, 0};
  w.run();
  return w.result.summary;
}

std::string promote_search_trial(const std::string& project, const std::string& trial, const std::string& name) {
  const Setup s = make_setup(project, {});
  // "<variant>:t<N>" or "<variant>:b<B>:t<N>"
  const auto bad = [&]() -> std::string {
    throw Error("--promote", "\"" + trial + "\" is not a trial; allowed: <variant>:t<N> or <variant>:b<B>:t<N>");
  };
  std::vector<std::string> parts;
  std::stringstream ss(trial);
  for (std::string p; std::getline(ss, p, ':');) parts.push_back(p);
  if (parts.size() < 2 || parts.size() > 3) return bad();
  int bracket = 0, index = -1;
  try {
    if (parts.size() == 3) {
      if (parts[1].size() < 2 || parts[1][0] != 'b') return bad();
      bracket = std::stoi(parts[1].substr(1));
    }
    const std::string& t = parts.back();
    if (t.size() < 2 || t[0] != 't') return bad();
    index = std::stoi(t.substr(1));
  } catch (const std::exception&) {
    return bad();
  }
  for (const auto& one : s.searches) {
    if (one.name != parts[0]) continue;
    if (parts.size() == 2 && one.brackets.size() == 1) bracket = one.brackets.front().bracket.index;
    for (const auto& bs : one.brackets) {
      if (bs.bracket.index != bracket || index < 0 || index >= static_cast<int>(bs.trials.size())) continue;
      const TrialSetup& ts = bs.trials[static_cast<size_t>(index)];
      if (!ts.infeasible.empty()) throw Error("--promote", trial + " is infeasible: " + ts.infeasible);
      json model = one.base->config["model"];
      if (ts.patch.contains("model")) model.merge_patch(ts.patch["model"]);
      model.erase("vocab_size");
      json training = one.base->training.used;
      if (ts.patch.contains("training")) training.merge_patch(ts.patch["training"]);
      const std::string n = name.empty() ? unique_variant_name(project, one.name + "-t" + std::to_string(index)) : name;
      add_variant(project, n, model, training);
      return n;
    }
  }
  return bad();
}

}  // namespace pha::runtime
