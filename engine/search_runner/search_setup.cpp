// The search runner's setup and rung runs (search_internal.h): the section resolved into trials
// per bracket, each rung run as a training run (WSD, branched off the previous rung's stable
// phase, resumed when interrupted), what the store says of it, and the `pha search --only`
// workers. The walk over rungs and the decisions are search_job.cpp's.
#include "search_runner/internal/search_internal.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "core/process_stats.h"
#include "core/config_reader.h"
#include "core/error.h"
#include "core/metric_table.h"
#include "model/flops.h"
#include "model/model_config.h"
#include "model/presets.h"
#include "runtime/job.h"
#include "runtime/local_parallel.h"
#include "runtime/profiler.h"
#include "runtime/worker_pool.h"
#include "project/project_files.h"
#include "project/project_queue.h"
#include "search/param_constraint.h"
#include "search/promotion.h"
#include "search/schedule.h"
#include "search/search_space.h"
#include "search/search_spec.h"
#include "store/search_store.h"
#include "store/store.h"

namespace pha::search_runner::detail {

namespace fs = std::filesystem;

static std::string resource_text(double r) { return core::format_number(r); }

static std::string run_name(const std::string& search, const search::SearchSpec& spec, int bracket, int trial,
                            double resource, std::uint64_t seed, bool seeded) {
  std::string n = "search:" + search + "/";
  if (spec.budget.brackets > 1) n += "b" + std::to_string(bracket);
  n += "t" + std::to_string(trial) + "@" + resource_text(resource);
  if (seeded) n += ",seed=" + std::to_string(seed);
  return n;
}

static TrialSetup setup_trial(const Setup& s, const project::RunPlan& base, const search::Trial& t) {
  TrialSetup ts;
  ts.trial = t;
  ts.patch = project::with_one_warmup(t.patch.is_object() ? t.patch : json::object());
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
  } catch (const core::Error& e) {
    ts.infeasible = e.what();
  }
  return ts;
}

Setup make_setup(const std::string& project_dir, const std::vector<std::string>& only, bool as_grid) {
  Setup s;
  s.project = project::load_project(project_dir);
  if (s.project.search.is_null())
    throw core::Error(s.project.file(), "has no \"search\" section (docs/search.md)");
  s.spec = search::SearchSpec::from_json(project::spec_section(s.project.search), "search");
  if (as_grid) {
    if (s.spec.budget.brackets != 1)
      throw core::Error("search.budget.brackets", std::to_string(s.spec.budget.brackets) +
                                                " brackets; --repeat compares successive halving with the grid: allowed: 1");
    for (const auto& k : s.spec.space)
      if (k.range.kind != search::Range::Kind::Choices)
        throw core::Error("search.space." + k.key, "is a range; --repeat compares with the exhaustive grid, which needs a list "
                                             "of values");
    s.spec.sampler.kind = "grid";
  }
  const json& sec = s.project.search;
  const int cores = std::max(1u, std::thread::hardware_concurrency());
  s.threads = sec.contains("threads") && sec["threads"].is_number_integer()
                  ? sec["threads"].get<int>()
                  : std::max(1, cores / std::max(1, s.spec.budget.concurrency));
  std::vector<std::string> names = project::searched_variants(s.project);
  if (!only.empty()) {
    for (const auto& o : only)
      if (std::find(names.begin(), names.end(), o) == names.end())
        throw core::Error("--variant", "\"" + o + "\" is not searched; allowed: " + core::quoted_list(names));
    names = only;
  }
  for (const std::string& name : names) {
    OneSearch one;
    one.name = name;
    one.base = &project::base_run(s.project, name);
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


RungRun rung_run(const Setup& s, const OneSearch& one, const BracketSetup& bs, const TrialSetup& ts, int rung,
                 std::uint64_t seed) {
  RungRun rr;
  rr.id = {one.name, bs.bracket.index, ts.trial.index, rung, seed};
  rr.label = ts.trial.label;
  const double resource = bs.bracket.rungs[static_cast<size_t>(rung)].resource;
  const std::string name = run_name(one.name, s.spec, bs.bracket.index, ts.trial.index, resource, seed, s.seeds.size() > 1);
  json patch = ts.patch;
  // The steps first (a tokens or FLOPs budget depends on the trial's own batch and model).
  project::RunPlan probe = project::patched_run(s.project, *one.base, project::steps_probe_patch(patch), name, "search");
  rr.steps = project::steps_for(s.spec.budget, resource, probe);
  json training = patch.value("training", json::object());
  training["steps"] = rr.steps;
  training["schedule"] = "wsd";
  training["seed"] = seed;
  if (!training.contains("threads")) training["threads"] = s.threads;
  if (probe.training.eval_every > 0 && !training.contains("checkpoint_every"))
    training["checkpoint_every"] = probe.training.eval_every;  // a kill loses one evaluation interval at most
  patch["training"] = training;
  rr.plan = project::patched_run(s.project, *one.base, patch, name, "search");
  rr.plan.group = run_name(one.name, s.spec, bs.bracket.index, ts.trial.index, resource, seed, false);
  rr.plan.seed = seed;
  rr.plan.entry = one.name;
  rr.branch_step = rung_schedule_of(s, bs, rr.plan, rung).branch_step;
  return rr;
}

search::RungSchedule rung_schedule_of(const Setup& s, const BracketSetup& bs, const project::RunPlan& plan, int rung) {
  const project::TrainingConfig& t = plan.training;
  search::WarmupCooldown w;
  w.warmup_fraction = t.warmup_fraction;
  w.warmup_steps = t.warmup_fraction > 0 ? 0 : t.warmup_steps;
  w.cooldown = t.cooldown;
  const std::int64_t previous =
      rung > 0 ? project::steps_for(s.spec.budget, bs.bracket.rungs[static_cast<size_t>(rung - 1)].resource, plan) : 0;
  return search::rung_schedule(w, t.steps, previous);
}

std::vector<std::uint64_t> rung_seeds(const Setup& s, size_t alive) {
  if (alive > 1 || s.seeds.size() <= 1) return s.seeds;
  return {s.seeds.front()};
}

// The plan of the same trial and seed at the previous rung (whose stable phase rr branches off).
static project::RunPlan previous_rung_plan(const Setup& s, const RungRun& rr) {
  SearchJobId prev = rr.id;
  prev.rung -= 1;
  return find_rung_run(s, prev.text(), "search_run").first.plan;
}

// The newest stored run of `plan`: one named like it with its configuration; else a finished
// one with its configuration under another name (renamed in the run table: the stored config
// still holds the plan's name as "run", so no other rung run's configuration equals it).
static std::optional<store::RunInfo> stored_run(store::Store& st, const project::RunPlan& plan, bool finished_only) {
  store::RunListQuery q;
  q.project = plan.config.value("project", "");
  q.group = plan.group;  // a rename keeps the group
  q.kind = store::RunKind::Train;
  q.include_config = true;
  std::optional<store::RunInfo> renamed;
  for (const auto& e : st.list_runs(q)) {  // newest first
    if (finished_only && e.run.status != store::RunStatus::Finished) continue;
    const json cfg = json::parse(e.run.config_json, nullptr, false);
    if (cfg.is_discarded() || !project::same_run_config(cfg, plan.config)) continue;
    if (e.run.name == plan.name) return e.run;
    if (!renamed && e.run.status == store::RunStatus::Finished) renamed = e.run;
  }
  return renamed;
}

static double objective_value(store::Store& st, const store::RunInfo& run, const project::RunPlan& plan,
                              const std::string& metric) {
  if (metric == "params") return static_cast<double>(run.n_params);
  if (metric == "flops_per_token")
    return model::estimate_flops(plan.model, plan.training.seq_len, plan.training.batch_size).training.total();
  const auto sm = st.summary(run.id, metric);
  if (!sm || sm->count == 0) return std::nan("");
  return metric == "train/tokens_per_s" ? sm->max : sm->last;
}

RunOutcome outcome_of(store::Store& st, const Setup& s, const RungRun& rr) {
  RunOutcome o;
  const std::optional<store::RunInfo> run = stored_run(st, rr.plan, false);
  if (!run) return o;
  o.stored = store::to_string(run->status);
  o.run_id = run->id;
  if (run->status == store::RunStatus::Finished) {
    o.done = true;
    for (const auto& obj : s.spec.objectives) o.values.push_back(objective_value(st, *run, rr.plan, obj.metric));
    for (double v : o.values)
      if (!std::isfinite(v)) {
        o.failed = true;
        o.reason = "run " + std::to_string(run->id) + " recorded no finite objective";
      }
    return o;
  }
  if (run->status == store::RunStatus::Diverged || run->status == store::RunStatus::Failed) {
    // Failed for a reason of its own (not an interruption, which resumes): the trial fails.
    o.done = true;
    o.failed = true;
    o.reason = std::string(run->status == store::RunStatus::Diverged ? "diverged" : "failed") + ": " + run->error;
    return o;
  }
  return o;  // running, cancelled or interrupted: to be (re)started or resumed
}

// Trains one rung run in this process: resumes an interrupted attempt from its checkpoint,
// else branches off the previous rung's pre-cooldown checkpoint, else starts from scratch.
void train_rung_run(const Setup& s, const SearchOptions& o, const RungRun& rr, const BracketSetup& bs, runtime::RunObserver& obs,
                    runtime::RunControl& ctl) {
  auto st = store::Store::open(s.project.store_path());
  runtime::JobSpec spec;
  spec.project = s.project.dir;
  spec.plan = std::make_shared<project::RunPlan>(rr.plan);
  spec.threads = s.threads;
  spec.final_checkpoint = rr.id.rung + 1 < static_cast<int>(bs.bracket.rungs.size()) ? false : true;
  if (auto prior = stored_run(st, rr.plan, false)) {
    const bool resumable = prior->status == store::RunStatus::Cancelled || prior->status == store::RunStatus::Interrupted;
    bool has_ckpt = false;
    for (const auto& c : st.checkpoints(prior->id)) has_ckpt = has_ckpt || fs::exists(c.path);
    if (resumable && has_ckpt) spec.resume_run_id = prior->id;
    // Ended before its first checkpoint (cancelled at once, killed early): trained again from
    // the start under the same id, never as a second run of the same rung run.
    if (resumable && !has_ckpt) spec.restart_run_id = prior->id;
  }
  if (spec.resume_run_id == 0 && rr.branch_step > 0) {
    if (auto prev = stored_run(st, previous_rung_plan(s, rr), true))
      for (const auto& c : st.checkpoints(prev->id))
        if (c.step == rr.branch_step && fs::exists(c.path)) spec.branch_from = c.path;
  }
  if (o.nproc <= 1) {
    runtime::run_job(spec, obs, ctl);
    return;
  }
  // Data parallel (--nproc): this process is rank 0; each worker rank receives the plan itself
  // (job_spec_to_json), and run_job checks on every rank that they agree.
  runtime::LocalParallelOptions lp;
  lp.processes = o.nproc;
  lp.program = o.program.empty() ? core::self_executable() : o.program;
  spec.threads = std::max(1, s.threads / o.nproc);
  runtime::run_job_local_parallel(spec, lp, obs, ctl);
}

std::pair<RungRun, const BracketSetup*> find_rung_run(const Setup& s, const std::string& job, const std::string& where) {
  const SearchJobId id = SearchJobId::parse(job);
  for (const auto& one : s.searches) {
    if (one.name != id.search) continue;
    for (const auto& bs : one.brackets) {
      if (bs.bracket.index != id.bracket) continue;
      if (id.trial < 0 || id.trial >= static_cast<int>(bs.trials.size()) || id.rung < 0 ||
          id.rung >= static_cast<int>(bs.bracket.rungs.size()) ||
          std::find(s.seeds.begin(), s.seeds.end(), id.seed) == s.seeds.end())
        break;
      return {rung_run(s, one, bs, bs.trials[static_cast<size_t>(id.trial)], id.rung, id.seed), &bs};
    }
  }
  throw core::Error(where, "\"" + job + "\" is not a rung run of this project's search (see pha search --plan)");
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::vector<std::string> worker_argv(const Setup& s, const SearchOptions& o, const SearchJobId& id) {
  std::vector<std::string> a = {o.program.empty() ? core::self_executable() : o.program, "search", s.project.dir, "--only",
                                id.text()};
  if (o.quiet_workers) a.push_back("--quiet");
  if (o.nproc > 1) a.insert(a.end(), {"--nproc", std::to_string(o.nproc)});
  return a;
}

// Runs the rung runs `todo` in up to `jobs` worker processes (runtime::run_worker_pool, the
// engine's one scheduler of worker processes); returns when every one has ended.
void train_in_workers(const Setup& s, const SearchOptions& o, const std::vector<RungRun>& todo, SearchObserver& obs,
                      runtime::RunControl& ctl, int& started, int planned, const std::function<void(size_t)>& ended) {
  std::vector<std::vector<std::string>> argvs;
  for (const auto& r : todo) argvs.push_back(worker_argv(s, o, r.id));
  runtime::run_worker_pool(
      argvs, o.jobs, ctl, [&](size_t i) { obs.on_search_run(todo[i].id, todo[i].label, ++started, planned); },
      [&](size_t i, int /*status*/) {
        if (ended) ended(i);
      });
}

}  // namespace pha::search_runner::detail
