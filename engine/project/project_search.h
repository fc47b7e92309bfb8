// What a project's "search" section must satisfy to be loaded (docs/search.md), and the few
// facts of it the search runner and the project reader share: the section without the keys
// the runner reads itself, the variants it searches, each one's base run and a rung's budget
// in optimizer steps. Plain C++ on the project description: no torch, no store, no training.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "project/project.h"
#include "search/rung_schedule.h"
#include "search/search_spec.h"

namespace pha::project {

// Throws core::Error naming the field for a bad "search" section of `project` (load_project
// calls it; the variants it names must be the project's). The first rung of every bracket is
// checked with each trial's own values (the runner's trials, the base run with the trial's
// training patch, the rung's steps, WSD): a space that sets training.warmup_steps may shorten
// the rungs below the base's warmup; a trial that cannot fit is refused naming its values.
void check_search_section(const Project& project);

// The section without the keys the runner reads itself ("variants", "threads").
nlohmann::json spec_section(const nlohmann::json& section);
// The variants the section searches (its "variants", else the project's first entry).
std::vector<std::string> searched_variants(const Project& p);
// The first run of the variants entry `entry`: the base the trials patch.
const RunPlan& base_run(const Project& p, const std::string& entry);
// The rung's budget in optimizer steps for a run of `plan` (tokens and FLOPs divided by what
// one step processes; FLOPs counted per token by the engine's estimate, model/flops.h).
std::int64_t steps_for(const search::Budget& b, double resource, const RunPlan& plan);
// A trial's patch without the schedule's keys (schedule, warmup_steps, cooldown,
// cooldown_shape), on which a rung's step count does not depend: the run steps_for converts a
// tokens or FLOPs budget with, valid whatever the base run's schedule and length.
nlohmann::json steps_probe_patch(const nlohmann::json& patch);
// A trial's patch whose training section sets one of warmup_steps / warmup_fraction, with the
// other removed (null, a merge patch's removal) so that it replaces the base run's warmup.
nlohmann::json with_one_warmup(nlohmann::json patch);
// The warmup and cooldown a training section (the base's used values with a trial's patch
// merged) gives its rung runs (search/rung_schedule.h).
search::WarmupCooldown warmup_cooldown(const nlohmann::json& training);

// The "search" section of project.json as the window's Search form edits it. Written like the
// other project-file operations (project_files.h): the edited file is validated by the
// project reader first (parse_project, which runs check_search_section), so a refused section
// writes nothing and the core::Error names the field ("search.budget.eta: ..."); the file lands
// atomically with every other key kept, in its order.
struct SearchSectionFile {
  nlohmann::json section;             // null when the project has none
  std::vector<std::string> variants;  // the project's variant entries (search.variants' choices)
  bool taskData = false;              // a task project (accuracy objectives), else text (val/bpb)
  nlohmann::json training;            // the first run's resolved training section
};

// Loads the project (its data need not be on this machine). Throws core::Error.
SearchSectionFile read_search_section(const std::string& projectDir);
// Replaces (or, with null, removes) project.json's "search" section. Throws core::Error, writing
// nothing, when the project with that section does not load.
void write_search_section(const std::string& projectDir, const nlohmann::json& section);
// A section to start from for a project that has none: its first variant's learning rate at
// a third, once and three times, over successive halving from about a ninth of training.steps
// to all of it (eta 3), on val/bpb (val/accuracy for task projects), one seed, grid sampler.
nlohmann::json default_search_section(const SearchSectionFile& file);

}  // namespace pha::project
