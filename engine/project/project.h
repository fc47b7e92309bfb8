// Project files: a folder with project.json (data, base model, training settings, a list and/or
// a grid of variants), runs.sqlite (the run store) and checkpoints/. Plain data, no torch and
// no Qt: the GUI includes this header. Every error is a core::Error naming the field
// ("variants[1].training.lr") or the file. Format reference: docs/project-format.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/claims.h"
#include "analysis/report.h"
#include "model/model_config.h"
#include "project/training_config.h"

namespace pha::project {

// Data a project names that is not on this machine (load_project with require_data = false):
// a project trained elsewhere (`pha train` on a GPU server) opens for browsing its runs.
struct MissingData {
  std::string field;    // "data.path" or "data.tokenizer.dir"
  std::string path;     // where it was expected
  std::string message;  // the engine's error, as a strict load gives it
  std::string package;  // the `pha data install` package that provides it ("gutenberg", "gpt2"), or ""
};

struct LoadOptions {
  // false: a text corpus or tokenizer files that are missing (or unusable) are listed in
  // Project::missing_data instead of refused; everything else is still validated. Training and
  // evaluation load strictly, so they refuse such a project with the same message.
  bool require_data = true;
};

// The "data" section: a text corpus (TextDataset's section, kind wikitext|folder|file|gutenberg)
// or synthetic tasks (kind "task": a "train" task, or a "suite" that names standard sets).
struct DataSpec {
  bool is_task = false;
  nlohmann::json text;                  // the TextDataset section (is_task false)
  nlohmann::json train_task;            // make_task config (is_task true); with a suite its first set
  // Suite "zoology": the training mixture (name -> config); each step draws one set with a
  // probability proportional to its size. Empty: train_task alone.
  std::vector<std::pair<std::string, nlohmann::json>> train_sets;
  std::vector<std::pair<std::string, nlohmann::json>> test_tasks;  // name -> make_task config
  std::string suite;                    // "zoology" or ""
  bool length_sweep = false;            // accuracy against T after training (tasks)
  std::vector<int> sweep_lengths;       // T of the length sweep (empty: data::length_sweep_lengths())
  bool ood_sweep = false;               // Bernoulli-p sweep after training (bit tasks)
  nlohmann::json section;               // as written

  int max_train_seq_len() const;        // tasks: the longest T a training batch has

  static DataSpec from_json(const nlohmann::json& section, const std::string& where = "data");
  // With require_data false, missing text data is appended to `missing` instead of refused.
  static DataSpec from_json(const nlohmann::json& section, const std::string& where, const LoadOptions& options,
                            std::vector<MissingData>* missing);
};

// The "profile" section: the efficiency sweep (tokens/s and peak memory against T) the
// workbench measures for the project's models, each point in a fresh `pha __profile-point`
// worker (runtime/profiler.h). Absent: the workbench profiles only when asked (Run > Measure
// efficiency), with these defaults.
// How an efficiency sweep measures, whoever asks: the project's "profile" section (these
// defaults) or `pha bench` (runtime::ProfileSweep, its own defaults).
struct SweepSettings {
  std::vector<int> seq_lens = {128, 256, 512, 1024};
  std::vector<std::string> phases = {"train"};  // "train" and/or "forward"
  int64_t tokens_per_batch = 2048;           // B = max(1, tokens_per_batch / T)
  int warmup = 1;                            // untimed steps per point
  int repeats = 2;                           // timed steps per point (median)
  int timeout_s = 300;                       // a point's worker is killed after this
  std::string device = "auto";               // auto | cpu | cuda
};

struct ProfileSettings : SweepSettings {
  bool present = false;                      // the project has a "profile" section
  bool after_runs = true;                    // measure when the project's run queue finishes
  nlohmann::json used;                       // every value in effect

  static ProfileSettings from_json(const nlohmann::json& section, const std::string& where = "profile");
};

// One run a project asks for: a variant (and grid point, and seed) with everything resolved.
struct RunPlan {
  std::string name;             // unique in the project, e.g. "pha-tiny", "pha-tiny/lr=0.001", "pha-tiny/seed=1"
  std::string group;            // the replicas' group: the name without the seed ("pha-tiny/lr=0.001")
  uint64_t seed = 0;            // training.seed of this replica
  std::string entry;            // the variants entry ("pha-tiny")
  std::string grid_point;       // "lr=0.001" ("" without a grid)
  std::string tune_point;       // "lr=0.003,weight_decay=0.1": the "tune" setting ("" without one)
  // "" (project.json plans it), "extension" or "confirmation": planned from results by the tune
  // section (project/project_tuning.h).
  std::string origin;
  std::string variant;          // model variant (pha, transformer, ...)
  model::ModelConfig model;     // vocab size matched to the data
  TrainingConfig training;
  DataSpec data;
  nlohmann::json config;        // what the store records: {"project", "run", "model", "training", "data"}
};

struct Project {
  std::string dir;              // the project folder
  std::string name;
  std::string description;
  nlohmann::json json;          // project.json as read
  std::vector<RunPlan> runs;    // in the order the file lists them (variants x grid x seeds)
  ProfileSettings profile;      // the "profile" section (defaults when absent)
  std::vector<uint64_t> seeds;  // the "seeds" list (or repeats' offsets 0..N-1); empty: one run per point
  bool repeats = false;         // seeds are offsets from each run's training.seed ("repeats": N)
  std::vector<analysis::Claim> claims;  // the "claims" the report tests (analysis/claims.h)
  analysis::TuneProtocol tune;          // the "tune" section: each family's settings, chosen on validation
  analysis::ScalingSpec scaling;        // the "scaling" section: fits over the grid's sizes
  analysis::ReportSettings report;      // the "report" section: how the report tests its claims together
  nlohmann::json search;                // the "search" section as written (validated; null when absent)
  std::vector<MissingData> missing_data;  // empty unless loaded with require_data = false

  std::string file() const;        // project_file_in(dir): <dir>/project.json
  std::string store_path() const;  // store_path_in(dir): the run store (project/project_files.h)
  std::string checkpoint_dir() const { return dir + "/checkpoints"; }
  const RunPlan& run(const std::string& name) const;  // core::Error listing the names otherwise
};

// Reads and validates `dir`/project.json (or the file itself when `path` names a .json file):
// JSON syntax, types, unknown keys, model dimensions, that data files exist and that the data
// fits the model. Writes nothing. A missing corpus or tokenizer that `pha data install` provides
// is refused with a message saying so.
Project load_project(const std::string& path, const LoadOptions& options = {});
// Same from JSON already in memory; `dir` is where the store and checkpoints live.
Project parse_project(const nlohmann::json& json, const std::string& dir, const std::string& source,
                      const LoadOptions& options = {});

// The project a job runs (runtime::JobSpec, runtime::ProfileJobSpec): its folder and, when the
// job was queued, the project as read then (QueueItem::resolved), which the job uses instead of
// reading the file again, so that an edit after the click does not change what runs.
struct ProjectSource {
  std::string project;                              // project folder, or its project.json
  std::shared_ptr<const Project> resolved_project;  // null: `project` is read when the job starts
  Project get() const { return resolved_project ? *resolved_project : load_project(project); }
};

// A run the project file does not list: `base` with `patch` ({"model": {...}, "training":
// {...}}, a JSON merge patch over base's resolved sections) named `name`, validated like any of
// the project's runs (errors name `where`.model... / `where`.training...). The search's trials
// (search_runner/search_job.h). A patched lr moves mixer_lr with it when base left mixer_lr at lr.
RunPlan patched_run(const Project& project, const RunPlan& base, const nlohmann::json& patch, const std::string& name,
                    const std::string& where);

// `base` with the queue's training overrides (`pha train --steps/--set`, the window's run
// options) applied and validated, under base's name and identity: what a queued run trains
// (queue::WorkQueue::add resolves it once, when the run is queued; the trainer takes it as it
// is). Errors name `training_where`.<key>. An empty patch returns base.
RunPlan with_training(const Project& project, const RunPlan& base, const nlohmann::json& training_patch,
                      const std::string& training_where = "training");

// A RunPlan across a process boundary (a data-parallel worker rank, runtime/local_parallel.h):
// its name, identity and resolved model and training sections. Read back against the same
// project (its data section and vocabulary) and validated like any run; errors name `where`.
nlohmann::json run_plan_to_json(const RunPlan& plan);
RunPlan run_plan_from_json(const Project& project, const nlohmann::json& j, const std::string& where);

// Runs to make, in order (the GUI's queue): the names of project.runs.
std::vector<std::string> run_names(const Project& project);

}  // namespace pha::project
