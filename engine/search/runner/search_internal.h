// Internal to the search runner (search_job.cpp, search_setup.cpp): the resolved search (its
// trials per bracket with the equal-parameter fit applied), one rung run as a training run, what
// the store says of it, and how it is trained (here or in a `pha search --only` worker). Not a
// public API: the GUI and the CLI use search_job.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "project/project.h"
#include "project/project_search.h"
#include "search/runner/search_job.h"
#include "search/schedule.h"
#include "search/search_space.h"
#include "search/search_spec.h"
#include "store/store.h"

namespace pha::runtime::search_detail {

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

struct RungRun {
  SearchJobId id;
  RunPlan plan;
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
};

using runtime::base_run;  // project/project_search.h
using runtime::searched_variants;
using runtime::spec_section;
using runtime::steps_for;
Setup make_setup(const std::string& project_dir, const std::vector<std::string>& only);
RungRun rung_run(const Setup& s, const OneSearch& one, const BracketSetup& bs, const TrialSetup& ts, int rung,
                 std::uint64_t seed);
RunOutcome outcome_of(store::Store& st, const Setup& s, const RungRun& rr);
void train_rung_run(const Setup& s, const SearchOptions& o, const RungRun& rr, const BracketSetup& bs, RunObserver& obs,
                    RunControl& ctl);
// The rung run a SearchJobId text names, with its bracket; pha::Error naming `where` otherwise.
std::pair<RungRun, const BracketSetup*> find_rung_run(const Setup& s, const std::string& job, const std::string& where);
std::string shell_quote(const std::string& s);
std::vector<std::string> worker_argv(const Setup& s, const SearchOptions& o, const SearchJobId& id);
void train_in_workers(const Setup& s, const SearchOptions& o, const std::vector<RungRun>& todo, SearchObserver& obs,
                      RunControl& ctl, int& started, int planned);

}  // namespace pha::runtime::search_detail
