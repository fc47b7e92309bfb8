// The architecture search of a project (its "search" section; docs/search.md): successive
// halving or Hyperband over the section's space of model and training settings and layer
// patterns, for each base variant it names. Every rung of every trial is an ordinary training
// run in the project's store (WSD schedule: the rung's cooldown branches off the trial's
// stable phase, so its figure is that of a finished run of the rung's length), and each
// decided rung is recorded in the store's search_decisions with its reason. No torch, no Qt.
//
//   runtime::SearchOptions o;  o.jobs = 2;
//   runtime::SearchResult r = runtime::run_search("projects/search-lr", o, observer, control);
//
// Determinism: the trials come from the section and its sampler seed alone; a rung is decided
// only when every run of it has ended, from the set of their results (never their order), and
// every run's thread count comes from the section, not from --jobs. So the same project gives
// the same trials, values and decisions whatever the concurrency. Resumption: each rung run is
// looked up in the store by its name and configuration (a finished run renamed in the run table
// by its configuration alone); a finished one is reused, an interrupted one resumed from its
// last checkpoint, so rerunning continues where it stopped. A decided rung whose runs were
// deleted since keeps its recorded decision (store search_decisions), values and run ids: it
// is neither un-decided nor trained again.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/events.h"
#include "project/project.h"
#include "search/search_repeats.h"

namespace pha::search_runner {

// check_search_section (what load_project checks of the section): project/project_search.h.

// One rung run of one trial: what `--plan` prints and a worker trains.
struct SearchJobId {
  std::string search;  // the base variant
  int bracket = 0, trial = 0, rung = 0;
  std::uint64_t seed = 0;
  std::string text() const;  // "pha-tiny:b0:t3:r1:s1"
  static SearchJobId parse(const std::string& text);  // core::Error naming --only otherwise
};

// One decided (or pending) rung of a trial: the rung chart's point.
struct SearchRungPoint {
  int rung = 0;
  double resource = 0.0;
  std::string state;                 // as SearchTrialState::state, at that rung
  std::vector<double> mean, stdev;   // per objective (empty: not measured)
  std::vector<std::int64_t> run_ids;
};

// A trial's state at its latest rung, for the live table, --status and the report.
struct SearchTrialState {
  std::string search;
  int bracket = 0, trial = 0;
  std::string label;                 // "lr=0.001,layers=gss-attn-gss-attn"
  nlohmann::json values;             // the sampled values
  int rung = 0;                      // the latest rung it reached
  double resource = 0.0;             // that rung's budget
  // Decided: "promoted", "stopped", "failed", "finished". Not decided yet: "trained" (every run
  // of its rung ended; mean/stdev measured, the rung waits for its other runs), "running",
  // "cancelled", "interrupted" (its rung run's state in the store; continuing the search resumes
  // it), "pending" (not started).
  std::string state;
  std::vector<double> mean, stdev;   // per objective at that rung (empty: not measured)
  std::string why;                   // the decision's reason
  std::vector<std::int64_t> run_ids; // the rung's runs still in the store
  std::int64_t params = 0;
  std::vector<SearchRungPoint> history;  // every rung it reached, in rung order (the last is the above)
};

struct SearchSummary {
  std::string project;
  std::vector<std::string> searches;           // base variants, in order
  std::vector<std::string> objectives;         // metric names
  std::string resource;                        // "steps", "tokens", "flops"
  std::vector<SearchTrialState> trials;        // every trial of every search
  struct Rung {                                // every rung of every bracket, planned or decided
    std::string search;
    int bracket = 0, rung = 0;
    double resource = 0.0;                     // its budget, in `resource` units
    int trials = 0;                            // trials the rung trains
  };
  std::vector<Rung> rungs;
  std::int64_t runs_trained = 0;               // rung runs this call trained to their end (not reused; a
                                               // cancelled one is not counted)
  std::int64_t runs_reused = 0;                // found finished in the store
  double steps_trained = 0;                    // optimizer steps this call ran (compute used)
  double steps_total = 0;                      // steps of every rung run of the search (done or not)
  bool complete = false;                       // every bracket's last rung is decided
};

// The leaderboard's one order of a search's trials (`pha search --status`, the report and the
// Search dock): finished trials first, then undecided ones (promoted, trained, running, cancelled,
// interrupted, pending), then stopped ones, failed last; within a state by the rung reached
// (higher first), then by the first objective's value (measured first, best first by `summary`'s
// first objective's goal), then by bracket and trial.
bool leaderboard_before(const SearchSummary& summary, const SearchTrialState& a, const SearchTrialState& b);

class SearchObserver : public runtime::RunObserver {
 public:
  // A rung run starts (`index` of `planned` rung runs known so far; the rung runs found finished
  // in the store, or decided by recorded rows, count among the first index - 1) / the summary
  // changed: a rung is decided, or a rung run ended (its trial then reads "trained" with its
  // value, or "cancelled").
  virtual void on_search_run(const SearchJobId&, const std::string& /*label*/, int /*index*/, int /*planned*/) {}
  virtual void on_search_decided(const SearchSummary&) {}
};

struct SearchOptions {
  int jobs = 1;                     // rung runs at once, each in a `pha search --only` worker (> 1)
  int nproc = 1;                    // data-parallel processes per rung run (`--nproc`; docs/distributed.md)
  bool plan = false;                // print nothing, run nothing: the next runnable rung runs' commands
  std::string only;                 // train this one rung run (SearchJobId text) and return
  std::vector<std::string> searches;  // only these base variants (empty: the section's)
  std::string program;              // the `pha` the workers run ("" : this executable)
  bool quiet_workers = true;
};

struct SearchResult {
  SearchSummary summary;
  std::vector<std::string> plan;    // with options.plan: one command per runnable rung run
  bool cancelled = false;
};

// Runs (or continues) the project's search. Blocks; checks `control` between and inside runs.
// Bad input throws core::Error before anything is written.
SearchResult run_search(const std::string& project, const SearchOptions& options, SearchObserver& observer,
                        runtime::RunControl& control);

// What the store says about the search, without training anything.
SearchSummary search_status(const std::string& project);
// The training run of one rung run (SearchJobId text) as run_search builds it (its steps, warmup
// and patch, for a test or a tool to inspect). core::Error (naming search_run) when it is none.
project::RunPlan search_rung_plan(const std::string& project, const std::string& job);

// The leaderboard, the rungs and each stopped trial's reason: "md" or "json".
std::string search_report(const SearchSummary& summary, const std::string& format);

// `pha search --repeat N` (docs/search.md "Is the pick right?"): N independent successive-halving
// searches of the section's grid, each with its own replica seeds (and, with a random sampler,
// its own draw of sampler.trials grid trials), against the exhaustive grid trained once at the
// full budget with the first seed. Every run is an ordinary rung run of the store (named by
// trial, rung and seed), so a (trial, rung, seed) already trained, by an earlier repeat, the
// grid or `pha search`, is reused, and rerunning continues. The figures are search_repeats.h's.
struct SearchRepeatOptions {
  int repeats = 2;
  std::vector<std::string> searches;  // only these base variants (empty: the section's)
};

struct SearchRepeatStudy {
  std::string variant;
  std::string objective;                // the metric
  std::string resource;                 // "steps", "tokens", "flops"
  std::vector<double> rung_resources;   // the ladder
  std::vector<std::string> labels;      // per grid trial
  std::uint64_t grid_seed = 0;
  int replicas = 1;
  bool not_worse = false;
  double alpha = 0.05;
  int sampled_trials = 0;               // random sampler: trials drawn per repeat (0: the whole grid)
  search::RepeatStudy study;
};

struct SearchRepeatResult {
  std::string project;
  std::vector<SearchRepeatStudy> studies;
  std::int64_t runs_trained = 0, runs_reused = 0;
  bool cancelled = false;
};

SearchRepeatResult run_search_repeats(const std::string& project, const SearchRepeatOptions& options,
                                      SearchObserver& observer, runtime::RunControl& control);
// The repeats' table, the summary (median regret, top-2 rate, compute, seed sd, the goal's
// checks), each rung's rank correlation and the grid's ranking: "md" or "json".
std::string search_repeats_report(const SearchRepeatResult& result, const std::string& format);

// Adds the trial (search:bracket:trial, e.g. "pha-tiny:b0:t3") to project.json as a variant
// named `name` (its model and training settings written out), through the engine's project
// file operation. Returns the variant's name.
std::string promote_search_trial(const std::string& project, const std::string& trial, const std::string& name);

}  // namespace pha::search_runner
