// `pha plan PROJECT` and the window's plan before *Run project* (docs/cli.md, "pha plan"): what a
// project will train and whether it can answer its question before a step is spent. Per run:
// its training tokens, parameters and tokens per parameter (marked "early training" below the
// project's threshold), what the store already holds of it, and the estimated wall time on this
// machine from a measured training speed; per claim the smallest effect its planned seeds can
// detect at the report's level and power, from the spread the store already measured. Plain C++
// header (the window includes it); one implementation for the CLI and the window.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pha::runtime {

struct PlanOptions {
  std::string store_path;   // "": the project's runs.sqlite
  // Measure the training speed of each distinct model / batch / T that the store has no figure
  // for: a few training steps in this process (step_bench.h). false: such runs have no time.
  bool measure = true;
  int warmup = 1, repeats = 3;  // of that measurement
  int jobs = 0;     // training runs side by side (`pha train --jobs`); 0: project::default_jobs
  int threads = 0;  // `--threads` (each run's threads otherwise by its plan: project/run_threads.h)
};

struct PlannedRun {
  std::string name, group, entry, variant;
  std::int64_t seed = 0;
  std::int64_t steps = 0;
  std::int64_t tokens = 0;            // training tokens: steps x grad_accum x batch x T
  std::int64_t n_params = 0;          // the engine's count of the model (model/flops.h)
  double tokens_per_param = 0.0;
  bool early = false;                 // tokens_per_param below PlanReport::early_threshold
  std::string state;                  // "to train", "finished (run 12)", "to resume (run 9 at step 40)", ...
  bool to_train = true;               // false: finished in the store (nothing left to do)
  double tokens_per_s = 0.0;          // 0: unknown
  std::string speed_source;           // where tokens_per_s comes from, in words
  double seconds = -1.0;              // estimated training time left; -1: unknown
};

struct PlannedClaim {
  std::string title;                  // the claim's "title" ("" without one)
  std::string statement;
  bool primary = true;                // "role": primary claims form the corrected family
  int tests = 0;                      // tests it brings to its family (analysis::planned_tests)
  // "underpowered by design: ..." when it cannot pass the correction at its planned seeds at all
  // (analysis::design_power); "" when it can. The report repeats the mark.
  std::string underpowered;
  int seeds_needed = 0;               // the seeds that would pass (0: not known or not needed)
  std::string design_note;            // what the planned seeds can detect, from the design alone
  int seeds = 0;                      // replicas per side the project plans
  double spread = -1.0;               // the standard deviation the MDE uses; -1: none measured yet
  std::string spread_source;          // "paired differences of 3 seeds in the store", ...
  double mde = -1.0;                  // minimum detectable effect; -1: unknown
  std::string note;
};

struct PlanReport {
  std::string project, store_path;
  double early_threshold = 20.0;      // tokens per parameter below which a run is early training
  std::string correction;             // holm | dunnett | none (the report's setting)
  double alpha = 0.05, power = 0.8;
  int family = 0;                     // tests of the primary claims, corrected together (the correction's m)
  int secondary = 0;                  // tests of the secondary (exploratory) claims, corrected among themselves
  std::vector<std::string> baseline_checks;  // shapes a reviewer would not accept (analysis::baseline_checks)
  double level = 0.05;                // the two-sided level of the MDE: alpha / m (Holm's first step), alpha without correction
  std::vector<PlannedRun> runs;       // in queue order
  std::vector<PlannedClaim> claims;
  int to_train = 0;
  double seconds = 0.0;               // sum over the runs with a known time
  int unknown_time = 0;               // runs to train without one
  std::string method;                 // how the times were estimated, in words
  int jobs = 1;                       // training runs side by side (`pha train --jobs`)
  std::string jobs_reason;            // "--jobs", or the rule: cores / each run's threads
  double wall_seconds = 0.0;          // the runs with a known time, `jobs` at a time in queue order
  // The tune section's protocol in words, and the confirmation runs it will still plan (not in
  // `runs` until the choice they confirm is made; project/project_tuning.h) with their time.
  std::vector<std::string> tuning;
  int confirmation_runs = 0;
  double confirmation_seconds = 0.0;
};

// Reads the project and its store (never writes). Throws core::Error for a bad project.
PlanReport plan_project(const std::string& project_path, const PlanOptions& options = {});

std::string render_plan_text(const PlanReport& plan);
nlohmann::json plan_json(const PlanReport& plan);

}  // namespace pha::runtime
