// pha plan (project_plan.h): the runs a project asks for, their budgets and times, and what its
// claims can detect.
#include "runtime/project_plan.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "core/duration_format.h"
#include "core/error.h"
#include "analysis/report.h"
#include "analysis/stats.h"
#include "model/flops.h"
#include "project/project.h"
#include "project/project_report.h"
#include "project/project_queue.h"
#include "project/project_tuning.h"
#include "project/run_threads.h"
#include "device/system_info.h"
#include "runtime/step_bench.h"
#include "store/store.h"

namespace pha::runtime {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// T of a training batch: the window (text) or the longest task sequence.
int train_seq_len(const project::RunPlan& p) { return p.data.is_task ? p.data.max_train_seq_len() : p.training.seq_len; }

// What decides a training step's speed: the model, the batch shape, precision and threads.
std::string speed_key(const project::RunPlan& p) {
  json m = p.config.value("model", json::object());
  m.erase("name");
  return m.dump() + fmt::format("|B{}|T{}|A{}|{}|{}|{}", p.training.batch_size, train_seq_len(p), p.training.grad_accum,
                                p.training.precision, p.training.threads, p.training.device);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The store's newest run of each planned name (any status), and a measured speed per speed key
// from the finished ones (the median of train/tokens_per_s over every step of those runs).
struct StoreView {
  std::map<std::string, store::RunInfo> newest;  // by run name
  std::map<std::string, std::pair<double, std::string>> speed;  // by speed key
  std::map<int64_t, int64_t> last_step;           // run id -> last train/loss step
};

StoreView read_store(const project::Project& project, const std::string& path) {
  StoreView v;
  if (!fs::exists(path)) return v;
  store::Store s = store::Store::open(path);
  store::RunListQuery q;
  q.project = project.name;
  q.kind = store::RunKind::Train;
  q.summary_keys = {"train/loss"};
  for (const auto& e : s.list_runs(q)) {  // newest first
    if (!v.newest.count(e.run.name)) v.newest[e.run.name] = e.run;
    if (e.summaries[0]) v.last_step[e.run.id] = e.summaries[0]->last_step;
  }
  for (const project::RunPlan& p : project.runs) {
    const std::string key = speed_key(p);
    if (v.speed.count(key)) continue;
    auto it = v.newest.find(p.name);
    if (it == v.newest.end() || it->second.status != store::RunStatus::Finished) continue;
    std::vector<double> tps;
    for (const auto& pt : s.read_metric_full(it->second.id, "train/tokens_per_s"))
      if (std::isfinite(pt.value) && pt.value > 0) tps.push_back(pt.value);
    if (tps.size() < 3) continue;
    v.speed[key] = {median(tps), fmt::format("median train/tokens_per_s of run {} ({} steps)", it->second.id, tps.size())};
  }
  return v;
}

// A short measurement of the training step in this process (the engine's step benchmark).
std::pair<double, std::string> measure_speed(const project::RunPlan& p, const PlanOptions& o) {
  StepBenchSpec b;
  b.model = p.model;
  b.seq_len = train_seq_len(p);
  b.batch = p.training.batch_size;
  b.phase = "train";
  b.warmup = o.warmup;
  b.repeats = o.repeats;
  b.device = p.training.device;
  b.precision = p.training.precision;
  const project::RunThreads t = project::run_threads(p, o.threads);  // the run's own threads
  device::configure_threads(t.threads, t.rule);
  const StepBenchResult r = bench_steps(b);
  const double tps = r.tokens_per_s;
  return {tps, fmt::format("measured now: median of {} training steps after {} warm-up (B {}, T {}, {})", o.repeats,
                           o.warmup, b.batch, b.seq_len, r.precision.precision)};
}

// A plan is finished exactly when trained_runs (project_queue.h) lists it: its newest finished
// stored run with the same configuration, also when that run was renamed in the run table. That
// is the rule the window's confirmation asks with, so the plan and the queue never disagree.
void fill_state(PlannedRun& r, const StoreView& v, const std::map<std::string, project::TrainedRun>& trained) {
  if (auto t = trained.find(r.name); t != trained.end()) {
    r.state = t->second.stored_name == r.name
                  ? fmt::format("finished (run {})", t->second.run_id)
                  : fmt::format("finished (run {}, renamed {})", t->second.run_id, t->second.stored_name);
    r.to_train = false;
    return;
  }
  auto it = v.newest.find(r.name);
  if (it == v.newest.end()) {
    r.state = "to train";
    return;
  }
  const store::RunInfo& info = it->second;
  const auto step = v.last_step.count(info.id) ? v.last_step.at(info.id) : 0;
  switch (info.status) {
    case store::RunStatus::Finished:  // not the plan's configuration (trained_runs did not list it)
      r.state = fmt::format("to train (run {} finished with another configuration)", info.id);
      return;
    case store::RunStatus::Running: r.state = fmt::format("running (run {}, step {})", info.id, step); return;
    case store::RunStatus::Cancelled:
    case store::RunStatus::Interrupted:
      r.state = fmt::format("{} at step {} (run {}): to resume or train again", store::to_string(info.status), step, info.id);
      return;
    default: r.state = fmt::format("{} (run {}): to train again", store::to_string(info.status), info.id); return;
  }
}

// Per claim: the smallest effect its planned seeds can detect at the report's level and power,
// from the spread the store's runs measured (the report's own test of each row: paired by seed,
// Welch or pooled), held fixed at the planned number of seeds.
void plan_claims(const project::Project& project, const std::string& store_path, PlanReport& plan) {
  const analysis::Study study = project::study_of(project);
  plan.correction = analysis::to_string(study.settings.correction);
  plan.alpha = study.settings.alpha;
  plan.power = study.settings.power;
  plan.early_threshold = study.settings.early_tokens_per_param;
  // With confirmation seeds the claims read those (docs/report.md, "Tuned comparisons").
  const int seeds = project.tune.confirm_seeds.empty() ? std::max<int>(1, static_cast<int>(project.seeds.size()))
                                                       : static_cast<int>(project.tune.confirm_seeds.size());
  std::optional<analysis::Report> report;
  if (fs::exists(store_path)) {
    store::Store s = store::Store::open(store_path);
    report = analysis::build_report(study, s);
  }
  // The family's m is fixed by the design: each primary claim's planned tests (its rows, and
  // the two margin tests where it declares a smallest effect), whatever the store holds.
  int primary = 0, secondary = 0;
  for (const auto& claim : project.claims)
    (claim.primary ? primary : secondary) += static_cast<int>(analysis::planned_tests(study, claim));
  plan.family = primary;
  plan.secondary = secondary;
  for (const auto& w : analysis::baseline_checks(study)) plan.baseline_checks.push_back(w.text);
  const bool corrected = study.settings.correction != analysis::Correction::None;
  const double level = corrected && plan.family > 0 ? plan.alpha / plan.family : plan.alpha;
  plan.level = level;
  for (size_t i = 0; i < project.claims.size(); ++i) {
    const analysis::Claim& claim = project.claims[i];
    PlannedClaim pc;
    pc.statement = analysis::statement(claim);
    pc.title = claim.title;
    pc.seeds = seeds;
    pc.primary = claim.primary;
    pc.tests = static_cast<int>(analysis::planned_tests(study, claim));
    const analysis::DesignPower dp =
        analysis::design_power(study, claim, static_cast<std::size_t>(claim.primary ? primary : secondary));
    pc.underpowered = dp.underpowered;
    pc.seeds_needed = static_cast<int>(dp.seeds_needed);
    pc.design_note = dp.note;
    if (dp.seeds > 0) pc.seeds = static_cast<int>(dp.seeds);
    const bool compare = claim.kind == analysis::ClaimKind::LowerIsBetter || claim.kind == analysis::ClaimKind::HigherIsBetter;
    if (!compare) {
      const bool lens = claim.kind == analysis::ClaimKind::Knockout || claim.kind == analysis::ClaimKind::Specialisation;
      pc.note = claim.kind == analysis::ClaimKind::AccuracyAtParams
                    ? "judged on per-seed successes with Wilson intervals: a verdict needs at least 4 seeds all on one side"
                : lens ? "judged on one-sample intervals of the per-seed knock-out differences, measured after training "
                         "by `pha lens knockout --record` on each replica's checkpoint (no power analysis before that)"
                : claim.kind == analysis::ClaimKind::Efficiency
                    ? "judged on one-sample intervals of the per-seed log throughput and memory ratios against the "
                      "baseline run of matched quality, measured after training by `pha bench inference --project` "
                      "(no power analysis before that)"
                    : "judged on one-sample intervals of the per-seed mixer differences (no power analysis)";
    } else if (static_cast<std::size_t>(seeds) < analysis::kMinReplicasForVerdict) {
      pc.note = fmt::format("{} seed(s) per side: the report gives no verdict below {}", seeds,
                            analysis::kMinReplicasForVerdict);
    } else {
      const analysis::ClaimRow* row = nullptr;
      if (report)
        for (const auto& r : report->claims[i].rows)
          if (r.test.compare && r.test.spread.sd_a > 0) {
            row = &r;
            break;
          }
      if (!row) {
        pc.note = "no spread measured yet: the store has no two-sided replicas of its groups (train them, or a pilot)";
      } else {
        double se = 0, df = 0;
        analysis::se_and_df(row->test.spread, static_cast<std::size_t>(seeds), se, df);
        pc.mde = analysis::minimum_detectable_effect(se, df, level, plan.power);
        pc.spread = row->test.spread.sd_a;
        pc.spread_source = row->test.text + " in the store" +
                           (row->test.spread.test == analysis::TTest::Welch
                                ? fmt::format(" (sd {:.4g} and {:.4g})", row->test.spread.sd_a, row->test.spread.sd_b)
                                : "");
        if (std::isfinite(row->effect))
          pc.note = fmt::format("the effect measured so far is {:.4g}{}", row->effect,
                                std::abs(row->effect) < pc.mde ? ": smaller than that" : "");
        if (claim.smallest_effect > 0.0) {
          // The seeds its declared effect needs, with the spread measured so far held fixed.
          const std::size_t n = analysis::seeds_needed(row->test.spread, claim.smallest_effect, level, plan.power);
          pc.note += (pc.note.empty() ? "" : "; ") +
                     (n ? fmt::format("{} needs {} seeds per side at this spread", analysis::margin_words(claim), n)
                        : analysis::margin_words(claim) + " needs more than 1000 seeds per side at this spread");
        }
      }
    }
    plan.claims.push_back(std::move(pc));
  }
}

// What the tune section adds once results are in (project/project_tuning.h): the confirmation
// runs of each entry and grid point whose choice is not confirmed yet, at the mean estimated time
// of its selection runs, and what an extension step costs.
void plan_tuning_lines(const project::Project& project, PlanReport& plan) {
  if (!project.tune.enabled) return;
  const analysis::TuneProtocol& t = project.tune;
  std::string seeds;
  for (uint64_t s : project.seeds) seeds += (seeds.empty() ? "" : ", ") + std::to_string(s);
  plan.tuning.push_back(fmt::format("tune: each family's {} chosen on {}{}", t.axes, t.select.text,
                                    seeds.empty() ? "" : " over seeds " + seeds));
  if (!t.extend.empty()) {
    std::string axes;
    for (const auto& e : t.extend) axes += fmt::format("{}{} within [{:g}, {:g}]", axes.empty() ? "" : ", ", e.key, e.lo, e.hi);
    plan.tuning.push_back("tune.extend: a choice at an edge of " + axes +
                          " adds the next value (every setting at the chosen one, on the same seeds) and trains it, until "
                          "the choice is inside or at the bound; those runs are not counted above");
  }
  if (t.confirm_seeds.empty()) return;
  std::map<std::pair<std::string, std::string>, std::pair<double, int>> per_point;  // (entry, grid point) -> seconds, runs
  std::set<std::pair<std::string, std::string>> confirmed;
  for (size_t i = 0; i < project.runs.size(); ++i) {
    const project::RunPlan& r = project.runs[i];
    const auto key = std::make_pair(r.entry, r.grid_point);
    if (r.origin == "confirmation") {
      confirmed.insert(key);
      continue;
    }
    auto& [sec, n] = per_point[key];
    if (i < plan.runs.size() && plan.runs[i].seconds > 0) sec += plan.runs[i].seconds, n += 1;
  }
  int runs = 0;
  double seconds = 0.0;
  for (const auto& [key, v] : per_point) {
    if (confirmed.count(key)) continue;
    runs += static_cast<int>(t.confirm_seeds.size());
    if (v.second > 0) seconds += v.first / v.second * static_cast<double>(t.confirm_seeds.size());
  }
  std::string cs;
  for (int64_t s : t.confirm_seeds) cs += (cs.empty() ? "" : ", ") + std::to_string(s);
  plan.tuning.push_back(fmt::format(
      "tune.confirm_seeds {}: the claims read the chosen setting trained again on these seeds; {} such run(s) still to "
      "plan once the choices are made (pha train plans them){}", cs, runs,
      seconds > 0 ? ", about " + core::format_duration(seconds) + " more" : std::string()));
  plan.confirmation_runs = runs;
  plan.confirmation_seconds = seconds;
}

}  // namespace

PlanReport plan_project(const std::string& project_path, const PlanOptions& o) {
  project::LoadOptions browse;
  browse.require_data = false;  // the plan reads no data: a project trained elsewhere is planned too
  project::Project project = project::load_project(project_path, browse);
  PlanReport plan;
  plan.project = project.name;
  plan.store_path = o.store_path.empty() ? project.store_path() : o.store_path;
  if (project::has_tuning_followups(project) && fs::exists(plan.store_path)) {
    // The follow-ups the store's results already plan are runs of the plan like the others.
    store::Store s = store::Store::open(plan.store_path);
    project = project::plan_tuning_followups(project, s).project;
  }
  plan_claims(project, plan.store_path, plan);
  const StoreView v = read_store(project, plan.store_path);
  std::map<std::string, project::TrainedRun> trained;
  for (project::TrainedRun& t : project::trained_runs(project)) trained[t.run] = std::move(t);
  std::map<std::string, std::pair<double, std::string>> measured;
  for (const project::RunPlan& p : project.runs) {
    PlannedRun r;
    r.name = p.name;
    r.group = p.group;
    r.entry = p.entry;
    r.variant = p.variant;
    r.seed = static_cast<std::int64_t>(p.seed);
    r.steps = p.training.steps;
    r.tokens = p.training.steps * p.training.grad_accum * p.training.batch_size * static_cast<std::int64_t>(train_seq_len(p));
    r.n_params = model::count_parameters(p.model).total;
    r.tokens_per_param = r.n_params > 0 ? static_cast<double>(r.tokens) / static_cast<double>(r.n_params) : 0.0;
    r.early = r.tokens_per_param < plan.early_threshold;
    fill_state(r, v, trained);
    const std::string key = speed_key(p);
    if (auto it = v.speed.find(key); it != v.speed.end()) {
      std::tie(r.tokens_per_s, r.speed_source) = it->second;
    } else if (auto m = measured.find(key); m != measured.end()) {
      std::tie(r.tokens_per_s, r.speed_source) = m->second;
    } else if (o.measure && r.to_train) {
      measured[key] = measure_speed(p, o);
      std::tie(r.tokens_per_s, r.speed_source) = measured[key];
    } else {
      r.speed_source = r.to_train ? "not measured (--no-measure)" : "-";
    }
    if (r.to_train) {
      ++plan.to_train;
      if (r.tokens_per_s > 0) {
        r.seconds = static_cast<double>(r.tokens) / r.tokens_per_s;
        plan.seconds += r.seconds;
      } else {
        ++plan.unknown_time;
      }
    }
    plan.runs.push_back(std::move(r));
  }
  plan_tuning_lines(project, plan);
  // Side by side: the runs to train, `jobs` at a time, each started when a slot frees (the order
  // of the queue), as `pha train --jobs` runs them.
  std::vector<const project::RunPlan*> to_train;
  for (size_t i = 0; i < project.runs.size(); ++i)
    if (plan.runs[i].to_train) to_train.push_back(&project.runs[i]);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  plan.jobs = o.jobs > 0 ? o.jobs : project::default_jobs(to_train, o.threads, cores);
  plan.jobs_reason = o.jobs > 0 ? "--jobs"
                                : fmt::format("this machine's {} cores / each run's threads (project/run_threads.h)", cores);
  std::vector<double> slots(static_cast<size_t>(std::max(1, plan.jobs)), 0.0);
  for (const auto& r : plan.runs)
    if (r.to_train && r.seconds > 0) *std::min_element(slots.begin(), slots.end()) += r.seconds;
  plan.wall_seconds = slots.empty() ? 0.0 : *std::max_element(slots.begin(), slots.end());
  plan.method =
      "training steps only (evaluations, checkpoints and start-up not counted): each run's training tokens divided by "
      "the training speed of its model, batch and T: the median train/tokens_per_s of a finished run of the same "
      "configuration in the store, else a short measurement in this process on the run's own threads; side by side, "
      "each run is assumed to keep that speed (what side by side costs each run is measured in docs/performance.md, "
      "\"Threads and jobs\")";
  return plan;
}

std::string render_plan_text(const PlanReport& plan) {
  std::ostringstream o;
  o << "Plan of " << plan.project << " (store " << plan.store_path << ")\n\n";
  o << fmt::format("{:<34} {:>9} {:>10} {:>9} {:>10} {:>10}  {}\n", "run", "steps", "tokens", "params", "tok/param",
                   "est. time", "state");
  for (const auto& r : plan.runs) {
    o << fmt::format("{:<34} {:>9} {:>10} {:>9} {:>9.2f}{} {:>10}  {}\n", r.name, r.steps, r.tokens, r.n_params,
                     r.tokens_per_param, r.early ? "*" : " ",
                     !r.to_train ? std::string("-") : r.seconds >= 0 ? core::format_duration(r.seconds) : std::string("?"),
                     r.state);
  }
  o << fmt::format("\n{} run(s) to train of {}; estimated {}{}.\n", plan.to_train, plan.runs.size(),
                   core::format_duration(plan.seconds),
                   plan.unknown_time > 0 ? fmt::format(" for those with a speed ({} without)", plan.unknown_time) : "");
  if (plan.jobs > 1 && plan.to_train > 1)
    o << fmt::format("Side by side: {} runs at once ({}): about {} of wall time.\n", plan.jobs, plan.jobs_reason,
                     core::format_duration(plan.wall_seconds));
  bool any_early = false;
  for (const auto& r : plan.runs) any_early = any_early || r.early;
  if (any_early)
    o << fmt::format("* early training: fewer than {:g} training tokens per parameter (the budget at which rankings "
                     "are usually read); a verdict at this budget is about early training.\n",
                     plan.early_threshold);
  o << "Time: " << plan.method << ".\n";
  for (const auto& line : plan.tuning) o << line << ".\n";
  std::map<std::string, std::string> sources;
  for (const auto& r : plan.runs)
    if (r.to_train && r.tokens_per_s > 0) sources.emplace(r.group, fmt::format("{:.0f} tokens/s, {}", r.tokens_per_s, r.speed_source));
  for (const auto& [g, s] : sources) o << "  " << g << ": " << s << "\n";
  if (!plan.baseline_checks.empty()) {
    o << "\nBaseline checks (shapes a reviewer would not accept):\n";
    for (const auto& w : plan.baseline_checks) o << "- " << w << "\n";
  }
  if (!plan.claims.empty()) {
    o << fmt::format("\nClaims: {} test(s) of the primary claims corrected together ({} correction, m = {} fixed by the "
                     "design, alpha {:g}, power {:g}; level alpha / m = {:.3g}){}:\n",
                     plan.family, plan.correction, plan.family, plan.alpha, plan.power, plan.level,
                     plan.secondary > 0 ? fmt::format("; {} exploratory test(s) of the secondary claims corrected among "
                                                      "themselves", plan.secondary)
                                        : std::string());
    for (const auto& c : plan.claims) {
      o << "- " << (c.primary ? "" : "[secondary] ") << (c.title.empty() ? "" : c.title + ": ") << c.statement
        << fmt::format(" ({} test(s))", c.tests) << ":\n";
      if (!c.underpowered.empty()) o << "    " << c.underpowered << "\n";
      else o << "    can pass the correction at its planned seeds\n";
      if (!c.design_note.empty()) o << "    " << c.design_note << "\n";
      if (c.mde >= 0)
        o << fmt::format("    with {} seeds the smallest detectable effect is {:.4g} (spread {:.4g}: {})", c.seeds, c.mde,
                         c.spread, c.spread_source);
      else
        o << "    minimum detectable effect in the metric's units unknown: " << c.note;
      if (c.mde >= 0 && !c.note.empty()) o << "; " << c.note;
      o << "\n";
    }
  }
  return o.str();
}

json plan_json(const PlanReport& plan) {
  json runs = json::array();
  for (const auto& r : plan.runs)
    runs.push_back({{"name", r.name},
                    {"group", r.group},
                    {"entry", r.entry},
                    {"variant", r.variant},
                    {"seed", r.seed},
                    {"steps", r.steps},
                    {"tokens", r.tokens},
                    {"n_params", r.n_params},
                    {"tokens_per_param", r.tokens_per_param},
                    {"early_training", r.early},
                    {"state", r.state},
                    {"to_train", r.to_train},
                    {"tokens_per_s", r.tokens_per_s > 0 ? json(r.tokens_per_s) : json()},
                    {"speed_source", r.speed_source},
                    {"seconds", r.seconds >= 0 ? json(r.seconds) : json()}});
  json claims = json::array();
  for (const auto& c : plan.claims)
    claims.push_back({{"title", c.title},
                      {"statement", c.statement},
                      {"role", c.primary ? "primary" : "secondary"},
                      {"tests", c.tests},
                      {"underpowered", c.underpowered},
                      {"seeds_needed", c.seeds_needed},
                      {"design_note", c.design_note},
                      {"seeds", c.seeds},
                      {"spread", c.spread >= 0 ? json(c.spread) : json()},
                      {"spread_source", c.spread_source},
                      {"mde", c.mde >= 0 ? json(c.mde) : json()},
                      {"note", c.note}});
  return {{"project", plan.project},
          {"store", plan.store_path},
          {"early_training_tokens_per_param", plan.early_threshold},
          {"correction", plan.correction},
          {"alpha", plan.alpha},
          {"power", plan.power},
          {"family", plan.family},
          {"secondary", plan.secondary},
          {"baseline_checks", plan.baseline_checks},
          {"level", plan.level},
          {"runs", runs},
          {"to_train", plan.to_train},
          {"seconds", plan.seconds},
          {"runs_without_time", plan.unknown_time},
          {"method", plan.method},
          {"jobs", plan.jobs},
          {"jobs_reason", plan.jobs_reason},
          {"wall_seconds", plan.wall_seconds},
          {"claims", claims},
          {"tuning", plan.tuning},
          {"confirmation_runs", plan.confirmation_runs},
          {"confirmation_seconds", plan.confirmation_seconds}};
}

}  // namespace pha::runtime
