// Internal to the search runner (search_job.cpp, search_setup.cpp): the resolved search (its
// trials per bracket with the equal-parameter fit applied), one rung run as a training run, what
// the store says of it, and how it is trained (here or in a `pha search --only` worker). Not a
// public API: the GUI and the CLI use search_job.h.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "project/project.h"
#include "project/project_search.h"
#include "search_runner/search_job.h"
#include "search/promotion.h"
#include "search/rung_schedule.h"
#include "search/schedule.h"
#include "search/search_space.h"
#include "search/search_spec.h"
#include "store/store.h"

namespace pha::search_runner::detail {

using json = nlohmann::json;

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
  const project::RunPlan* base = nullptr;
  std::vector<BracketSetup> brackets;
};

struct Setup {
  project::Project project;
  search::SearchSpec spec;
  std::vector<std::uint64_t> seeds;
  int threads = 1;
  std::vector<OneSearch> searches;
};

struct RungRun {
  SearchJobId id;
  project::RunPlan plan;
  std::string label;
  std::int64_t steps = 0;
  std::int64_t branch_step = 0;  // the previous rung's stable end (0: from scratch)
};

struct RunOutcome {
  bool done = false;       // finished, failed or diverged: decidable
  bool failed = false;
  std::string reason;
  std::vector<double> values;  // per objective
  std::int64_t run_id = 0;
  std::string stored;      // the stored run's status ("running", "cancelled", "interrupted", ...); "" : none
};

using project::base_run;  // project/project_search.h
using project::searched_variants;
using project::spec_section;
using project::steps_for;
using project::with_one_warmup;
// `as_grid`: the trials are the space's exhaustive grid whatever the sampler (`--repeat`; a
// space of ranges or Hyperband brackets is refused naming the field).
Setup make_setup(const std::string& project_dir, const std::vector<std::string>& only, bool as_grid = false);
RungRun rung_run(const Setup& s, const OneSearch& one, const BracketSetup& bs, const TrialSetup& ts, int rung,
                 std::uint64_t seed);
// The WSD schedule of `plan` (a rung run's, at rung `rung` of `bs`): its warmup, stable end, and
// whether it continues the previous rung run's stable phase (search/rung_schedule.h).
search::RungSchedule rung_schedule_of(const Setup& s, const BracketSetup& bs, const project::RunPlan& plan, int rung);
// The seeds a rung trains each trial with: every seed when it ranks more than one trial; a lone
// trial (the last rung's finalist) decides nothing and trains the first seed only.
std::vector<std::uint64_t> rung_seeds(const Setup& s, size_t alive);
// What the store says of a rung run: its run found by name and configuration, else (renamed in
// the run table) a finished run with its configuration under any name.
RunOutcome outcome_of(store::Store& st, const Setup& s, const RungRun& rr);
void train_rung_run(const Setup& s, const SearchOptions& o, const RungRun& rr, const BracketSetup& bs, runtime::RunObserver& obs,
                    runtime::RunControl& ctl);
// A rung's decision as the store recorded it (search_decisions), per alive trial.
struct RecordedTrial {
  int trial = 0;
  std::string decision, why;
  std::vector<std::vector<double>> values;  // [objective][seed], as recorded
  std::vector<std::int64_t> run_ids;        // the recorded runs still in the store
};
// The recorded decision of rung `rung` when its rows may stand in for its runs (a run deleted
// since, e.g. a stopped trial's): one row per alive trial, with the trial's label and the
// rung's budget; no row naming a stored run of another configuration (the section changed);
// every rung run found in the store named by its trial's row, with the recorded values.
// std::nullopt otherwise: the rung is decided from its runs. `outcomes` are runs' (same order).
std::optional<std::vector<RecordedTrial>> recorded_rung(store::Store& st, const Setup& s, const OneSearch& one,
                                                        const BracketSetup& bs, int rung, const std::vector<int>& alive,
                                                        const std::vector<RungRun>& runs,
                                                        const std::vector<RunOutcome>& outcomes);
// Mean and sample standard deviation over the replicas of each objective ([objective][seed]),
// as search::promote computes them.
search::Ranked measured(int trial, const std::vector<std::vector<double>>& values);

// The rung run a SearchJobId text names, with its bracket; core::Error naming `where` otherwise.
std::pair<RungRun, const BracketSetup*> find_rung_run(const Setup& s, const std::string& job, const std::string& where);
std::string shell_quote(const std::string& s);
std::vector<std::string> worker_argv(const Setup& s, const SearchOptions& o, const SearchJobId& id);
// `ended(i)`: todo[i]'s worker has exited (called on this thread).
void train_in_workers(const Setup& s, const SearchOptions& o, const std::vector<RungRun>& todo, SearchObserver& obs,
                      runtime::RunControl& ctl, int& started, int planned, const std::function<void(size_t)>& ended);

}  // namespace pha::search_runner::detail
