// `pha search --repeat N` (search_job.h): the section's grid at the full budget and N successive-
// halving searches of it, every value a rung run of the store (trained here, or found finished),
// judged by search/search_repeats.cpp; and the report of the figures.
#include <cmath>
#include <sstream>

#include "core/config_reader.h"
#include "core/error.h"
#include "search_runner/internal/search_internal.h"
#include "search_runner/search_job.h"
#include "search/search_repeats.h"
#include "store/store.h"

namespace pha::search_runner {

using json = nlohmann::json;
using namespace detail;

namespace {

struct Cancelled {};

// The values of one base variant's grid: rung runs by (trial, rung, seed), trained when the
// store has none finished.
struct GridObjective {
  const Setup& s;
  const OneSearch& one;
  const BracketSetup& bs;
  SearchObserver& obs;
  runtime::RunControl& ctl;
  SearchRepeatResult& result;
  int started = 0, planned = 0;

  double value(int trial, int rung, std::uint64_t seed) {
    if (ctl.cancel_requested()) throw Cancelled{};
    const TrialSetup& ts = bs.trials[static_cast<size_t>(trial)];
    if (!ts.infeasible.empty()) return std::nan("");
    const RungRun rr = rung_run(s, one, bs, ts, rung, seed);
    auto st = store::Store::open(s.project.store_path());
    RunOutcome out = outcome_of(st, s, rr);
    if (!out.done) {
      obs.on_search_run(rr.id, rr.label, ++started, planned);
      SearchOptions o;
      train_rung_run(s, o, rr, bs, obs, ctl);
      if (ctl.cancel_requested()) throw Cancelled{};
      out = outcome_of(st, s, rr);
      result.runs_trained++;
    } else {
      result.runs_reused++;
    }
    return out.done && !out.failed && !out.values.empty() ? out.values.front() : std::nan("");
  }

  // One replica's compute of the rung run inside a search (its extra steps when it continues the
  // previous rung's stable phase), or of the grid's run from step 0 (`alone`).
  double cost(int trial, int rung, bool alone) const {
    const TrialSetup& ts = bs.trials[static_cast<size_t>(trial)];
    if (!ts.infeasible.empty()) return 0.0;
    const RungRun rr = rung_run(s, one, bs, ts, rung, s.seeds.front());
    return static_cast<double>(alone ? rr.steps : rr.steps - rr.branch_step);
  }
};

SearchRepeatStudy study_of(const Setup& s, const OneSearch& one, const search::SearchSpec& given, int repeats,
                           SearchObserver& obs, runtime::RunControl& ctl, SearchRepeatResult& result) {
  const BracketSetup& bs = one.brackets.front();
  SearchRepeatStudy out;
  out.variant = one.name;
  out.objective = s.spec.objectives.front().metric;
  out.resource = s.spec.budget.resource;
  for (const auto& r : bs.bracket.rungs) out.rung_resources.push_back(r.resource);
  for (const auto& ts : bs.trials) out.labels.push_back(ts.trial.label);
  out.grid_seed = s.seeds.front();
  out.replicas = s.spec.replicas;
  out.not_worse = s.spec.promotion.not_worse;
  out.alpha = s.spec.promotion.alpha;
  out.sampled_trials = given.sampler.kind == "random" ? std::min(given.sampler.trials, static_cast<int>(bs.trials.size())) : 0;

  search::RepeatSetup rs;
  rs.budget = s.spec.budget;
  rs.objective = s.spec.objectives.front();
  rs.promotion = s.spec.promotion;
  rs.replicas = s.spec.replicas;
  rs.grid_trials = static_cast<int>(bs.trials.size());
  rs.sampled_trials = out.sampled_trials;
  rs.sampler_seed = given.sampler.seed;
  rs.first_seed = out.grid_seed;

  GridObjective f{s, one, bs, obs, ctl, result};
  const int last = static_cast<int>(bs.bracket.rungs.size()) - 1;
  f.planned = rs.grid_trials;  // an estimate for "run i of n": the grid, then each repeat's ladder
  const auto ladder = search::hyperband_brackets(rs.budget, rs.sampled_trials > 0 ? rs.sampled_trials : rs.grid_trials);
  for (const auto& r : ladder.front().rungs) f.planned += repeats * r.trials * (r.trials > 1 ? rs.replicas : 1);
  search::RepeatProblem p;
  p.rung_value = [&f](int t, int rung, double, std::uint64_t seed) { return f.value(t, rung, seed); };
  p.rung_cost = [&f](int t, int rung) { return f.cost(t, rung, false); };
  p.full_value = [&f, last, &out](int t) { return f.value(t, last, out.grid_seed); };
  p.full_cost = [&f, last](int t) { return f.cost(t, last, true); };
  out.study = search::run_repeats(rs, repeats, p);
  return out;
}

std::string num(double v, int digits = 4) {
  if (!std::isfinite(v)) return "-";
  std::ostringstream os;
  os.precision(digits);
  os << v;
  return os.str();
}

std::string percent(double v) { return std::isfinite(v) ? num(100.0 * v, 3) + "%" : "-"; }

json study_json(const SearchRepeatStudy& x) {
  const search::RepeatStudy& st = x.study;
  const auto finite = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  json repeats = json::array();
  for (const auto& r : st.repeats) {
    json rungs = json::array();
    for (const auto& g : r.rungs) {
      json means = json::array();
      for (double m : g.means) means.push_back(finite(m));
      rungs.push_back({{"rung", g.rung}, {"resource", g.resource}, {"seeds", g.seeds}, {"trials", g.trials},
                       {"means", means}, {"promoted", g.promoted}, {"kept_close", g.kept_close},
                       {"spearman", finite(g.spearman)}, {"pooled_sd", finite(g.pooled_sd)}, {"df", g.df}});
    }
    repeats.push_back({{"repeat", r.repeat}, {"seeds", r.seeds}, {"pick", r.pick},
                       {"label", r.pick >= 0 ? x.labels[static_cast<size_t>(r.pick)] : ""},
                       {"grid_rank", r.pick_rank}, {"value", finite(r.pick_value)}, {"regret", finite(r.regret)},
                       {"compute", r.compute}, {"compute_fraction", finite(r.compute_fraction)}, {"rungs", rungs}});
  }
  json grid = json::array();
  for (size_t i = 0; i < st.grid_order.size(); ++i) {
    const int t = st.grid_order[i];
    grid.push_back({{"rank", i + 1}, {"trial", t}, {"label", x.labels[static_cast<size_t>(t)]},
                    {"value", finite(st.full_values[static_cast<size_t>(t)])}});
  }
  json rungs = json::array();
  for (size_t k = 0; k < st.rung_pooled_sd.size(); ++k)
    rungs.push_back({{"rung", k}, {"resource", k < x.rung_resources.size() ? x.rung_resources[k] : 0.0},
                     {"pooled_sd", finite(st.rung_pooled_sd[k])}, {"df", st.rung_df[k]},
                     {"spearman_median", finite(st.rung_spearman[k])}, {"spearman_repeats", st.rung_spearman_n[k]}});
  return {{"variant", x.variant}, {"objective", x.objective}, {"resource", x.resource}, {"rungs", x.rung_resources},
          {"replicas", x.replicas}, {"promotion", x.not_worse ? json{{"rule", "not_worse"}, {"alpha", x.alpha}} : json{{"rule", "top"}}},
          {"sampled_trials", x.sampled_trials}, {"grid_seed", x.grid_seed}, {"grid_compute", st.grid_compute},
          {"median_regret", finite(st.median_regret)}, {"top2_rate", st.top2_rate},
          {"median_compute_fraction", finite(st.median_compute_fraction)}, {"seed_sd", finite(st.seed_sd)},
          {"equal_compute_trials", st.equal_compute_trials}, {"equal_compute_chance_top2", st.equal_compute_chance_top2},
          {"per_rung", rungs}, {"repeats", repeats}, {"grid", grid}};
}

void study_md(std::ostringstream& o, const SearchRepeatStudy& x) {
  const search::RepeatStudy& st = x.study;
  const size_t n = st.repeats.size();
  std::string ladder;
  for (double r : x.rung_resources) ladder += (ladder.empty() ? "" : ", ") + core::format_number(r);
  o << "\n## " << x.variant << "\n\n" << n << " searches of successive halving (rungs of " << ladder << " " << x.resource
    << "; " << x.replicas << " seed" << (x.replicas == 1 ? "" : "s") << " per trial at a rung that ranks more than one; "
    << (x.not_worse ? "promotion: the top 1/eta and every trial not significantly worse than the leader (alpha " +
                          core::format_number(x.alpha) + ")"
                    : std::string("promotion: the top 1/eta"))
    << (x.sampled_trials > 0 ? "; " + std::to_string(x.sampled_trials) + " grid trials drawn per repeat" : std::string())
    << ") against the exhaustive grid of " << st.full_values.size() << " trials at the full budget (seed " << x.grid_seed
    << "; " << core::format_number(st.grid_compute) << " steps), `" << x.objective << "`.\n\n";
  o << "| repeat | seeds | pick | settings | grid rank | " << x.objective << " at the full budget | regret | steps | of the grid |\n";
  o << "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : st.repeats) {
    std::string seeds;
    for (auto v : r.seeds) seeds += (seeds.empty() ? "" : ",") + std::to_string(v);
    o << "| " << r.repeat + 1 << " | " << seeds << " | " << (r.pick >= 0 ? "t" + std::to_string(r.pick) : "-") << " | "
      << (r.pick >= 0 ? x.labels[static_cast<size_t>(r.pick)] : "-") << " | " << (r.pick_rank ? std::to_string(r.pick_rank) : "-")
      << " of " << st.full_values.size() << " | " << num(r.pick_value, 5) << " | " << num(r.regret) << " | "
      << core::format_number(r.compute) << " | " << percent(r.compute_fraction) << " |\n";
  }
  int top2 = 0;
  for (const auto& r : st.repeats) top2 += r.pick_rank >= 1 && r.pick_rank <= 2;
  o << "\n- pick in the grid's top 2: " << top2 << " of " << n << " (" << percent(st.top2_rate) << ")\n";
  o << "- median regret: " << num(st.median_regret) << "; one seed's standard deviation: " << num(st.seed_sd)
    << " (pooled over the replicas of the highest rung with replicas)\n";
  o << "- median compute: " << percent(st.median_compute_fraction) << " of the grid's\n";
  o << "- a random choice of " << st.equal_compute_trials << " full-budget trials (the same compute) holds one of the "
    << "grid's top 2 with probability " << num(st.equal_compute_chance_top2, 3) << " (picking without noise)\n";
  o << "- the goal (top 2 in >= 80% of the repeats at <= 35% of the grid's compute, median regret within one seed's sd): "
    << (st.top2_rate >= 0.8 ? "top-2 rate met" : "top-2 rate NOT met") << ", "
    << (st.median_compute_fraction <= 0.35 ? "compute met" : "compute NOT met") << ", "
    << (std::isfinite(st.seed_sd) ? (st.median_regret <= st.seed_sd ? "regret met" : "regret NOT met")
                                  : std::string("regret not judged (no replicas)"))
    << "\n\n| rung | " << x.resource << " | pooled seed sd (df) | Spearman with the full-budget ranking (median over repeats) |\n"
    << "|---|---|---|---|\n";
  for (size_t k = 0; k < st.rung_pooled_sd.size(); ++k)
    o << "| " << k << " | " << (k < x.rung_resources.size() ? core::format_number(x.rung_resources[k]) : "-") << " | "
      << num(st.rung_pooled_sd[k]) << " (" << st.rung_df[k] << ") | " << num(st.rung_spearman[k], 3) << " ("
      << st.rung_spearman_n[k] << " repeat" << (st.rung_spearman_n[k] == 1 ? "" : "s") << " with 3 trials or more) |\n";
  o << "\nThe grid at the full budget:\n\n| rank | trial | settings | " << x.objective << " |\n|---|---|---|---|\n";
  for (size_t i = 0; i < st.grid_order.size(); ++i) {
    const auto t = static_cast<size_t>(st.grid_order[i]);
    o << "| " << i + 1 << " | t" << t << " | " << x.labels[t] << " | " << num(st.full_values[t], 5) << " |\n";
  }
}

}  // namespace

SearchRepeatResult run_search_repeats(const std::string& project, const SearchRepeatOptions& options,
                                      SearchObserver& observer, runtime::RunControl& control) {
  if (options.repeats < 1 || options.repeats > 1000)
    throw core::Error("--repeat", std::to_string(options.repeats) + " is out of range; allowed: 1 to 1000");
  Setup s = make_setup(project, options.searches, /*as_grid=*/true);
  const search::SearchSpec given = search::SearchSpec::from_json(project::spec_section(s.project.search), "search");
  if (s.spec.objectives.size() != 1)
    throw core::Error("search.objective", "--repeat ranks one objective; allowed: one metric");
  // Every repeat's replica seeds are known to the setup (a rung run's previous rung is found by
  // its seed), and run names always carry the seed when there are several.
  const std::uint64_t first = s.seeds.front();
  s.seeds.clear();
  for (int i = 0; i < options.repeats * s.spec.replicas; ++i) s.seeds.push_back(first + static_cast<std::uint64_t>(i));
  SearchRepeatResult result;
  result.project = s.project.name;
  try {
    for (const auto& one : s.searches)
      result.studies.push_back(study_of(s, one, given, options.repeats, observer, control, result));
  } catch (const Cancelled&) {
    result.cancelled = true;
  }
  return result;
}

std::string search_repeats_report(const SearchRepeatResult& r, const std::string& format) {
  if (format == "json") {
    json j = {{"project", r.project}, {"runs_trained", r.runs_trained}, {"runs_reused", r.runs_reused}, {"studies", json::array()}};
    for (const auto& x : r.studies) j["studies"].push_back(study_json(x));
    return j.dump(2) + "\n";
  }
  if (format != "md") throw core::Error("--format", "\"" + format + "\" is not allowed; allowed: \"md\", \"json\"");
  std::ostringstream o;
  o << "# Search repeats of " << r.project << "\n";
  for (const auto& x : r.studies) study_md(o, x);
  o << "\n" << r.runs_trained << " rung run(s) trained now, " << r.runs_reused << " value(s) read from runs already in the store.\n";
  return o.str();
}

}  // namespace pha::search_runner
