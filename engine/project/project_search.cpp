#include "project/project_search.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/config_reader.h"
#include "core/error.h"
#include "data/file_io.h"
#include "model/flops.h"
#include "project/project_files.h"
#include "search/schedule.h"
#include "search/search_space.h"

namespace pha::project {

using json = nlohmann::json;

// The section without the keys the runtime reads itself ("variants", "threads").
json spec_section(const json& section) {
  json s = section;
  if (s.is_object()) {
    s.erase("variants");
    s.erase("threads");
  }
  return s;
}

namespace {
std::vector<std::string> entries_of(const Project& p) {
  std::vector<std::string> out;
  for (const RunPlan& r : p.runs)
    if (std::find(out.begin(), out.end(), r.entry) == out.end()) out.push_back(r.entry);
  return out;
}
}  // namespace

std::vector<std::string> searched_variants(const Project& p) {
  const std::vector<std::string> entries = entries_of(p);
  if (!p.search.contains("variants")) return {entries.front()};
  const json& v = p.search["variants"];
  if (!v.is_array() || v.empty())
    throw core::Error("search.variants", "expected a non-empty list of the project's variants, got " + core::describe_json(v));
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string where = "search.variants[" + std::to_string(i) + "]";
    if (!v[i].is_string() || std::find(entries.begin(), entries.end(), v[i].get<std::string>()) == entries.end())
      throw core::Error(where, core::describe_json(v[i]) + " is not a variant of this project; allowed: " + core::quoted_list(entries));
    if (std::find(out.begin(), out.end(), v[i].get<std::string>()) != out.end())
      throw core::Error(where, "\"" + v[i].get<std::string>() + "\" is listed twice");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

const RunPlan& base_run(const Project& p, const std::string& entry) {
  for (const RunPlan& r : p.runs)
    if (r.entry == entry) return r;
  throw core::Error("search.variants", "\"" + entry + "\" has no runs");
}

namespace {
std::int64_t tokens_per_step(const TrainingConfig& t) {
  return static_cast<std::int64_t>(t.batch_size) * t.seq_len * t.grad_accum;
}
}  // namespace

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

json steps_probe_patch(const json& patch) {
  json out = patch;
  if (out.contains("training") && out["training"].is_object())
    for (const char* key : {"schedule", "warmup_steps", "warmup_fraction", "cooldown", "cooldown_shape"})
      out["training"].erase(key);
  return out;
}

json with_one_warmup(json patch) {
  if (!patch.contains("training") || !patch["training"].is_object()) return patch;
  json& t = patch["training"];
  const auto set = [&](const char* key) { return t.contains(key) && !t[key].is_null(); };
  if (set("warmup_fraction") && !set("warmup_steps")) t["warmup_steps"] = nullptr;
  if (set("warmup_steps") && !set("warmup_fraction")) t["warmup_fraction"] = nullptr;
  return patch;
}

search::WarmupCooldown warmup_cooldown(const json& training) {
  search::WarmupCooldown w;
  const auto number = [&](const char* key, double def) {
    return training.contains(key) && training[key].is_number() ? training[key].get<double>() : def;
  };
  w.warmup_fraction = number("warmup_fraction", 0.0);
  w.warmup_steps = static_cast<std::int64_t>(number("warmup_steps", static_cast<double>(TrainingConfig{}.warmup_steps)));
  w.cooldown = number("cooldown", TrainingConfig{}.cooldown);
  return w;
}

namespace {

// The first rung of every bracket must leave each trial a stable phase after its warmup (WSD),
// checked with the values the trial trains with: the space may set training.warmup_steps,
// cooldown, or what a tokens or FLOPs budget divides by. The trials are the runner's (grid:
// every one; random: the ones each bracket draws); each rung run is the base run with the
// trial's patch, the rung's steps and the WSD schedule, as the runner builds it
// (search_runner/search_setup.cpp rung_run), and must be a valid run. A trial whose model is
// invalid is the runner's infeasible trial, not a refused section; a FLOPs budget is converted
// with the trial's model before the equal-parameter fit moves its FFN width.
void check_first_rungs(const Project& project, const search::SearchSpec& spec, const std::string& variant) {
  const RunPlan& base = base_run(project, variant);
  const bool by_model = spec.budget.resource == "flops";
  const int sh_trials = spec.sampler.kind == "grid" ? static_cast<int>(search::generate_trials(spec, 0).size())
                                                    : spec.sampler.trials;
  std::set<std::string> checked;
  for (const search::Bracket& b : search::hyperband_brackets(spec.budget, sh_trials)) {
    const double first = b.rungs.front().resource;
    for (const search::Trial& trial : search::generate_trials(spec, b.trials, static_cast<std::uint64_t>(b.index))) {
      json patch = json::object();
      if (trial.patch.contains("training")) patch["training"] = trial.patch["training"];
      if (by_model && trial.patch.contains("model")) patch["model"] = trial.patch["model"];
      if (!checked.insert(patch.dump() + "@" + core::format_number(first)).second) continue;
      const std::string which = "trial t" + std::to_string(trial.index) + " of \"" + variant + "\"" +
                                (trial.label.empty() ? "" : " (" + trial.label + ")");
      const auto named = [&](const core::Error& e) { return core::Error(e.where(), core::message_of(e) + " (" + which + ")"); };
      std::int64_t steps = std::max<std::int64_t>(1, std::llround(first));
      if (spec.budget.resource != "steps") {
        try {
          steps = steps_for(spec.budget, first, patched_run(project, base, steps_probe_patch(patch), base.name, "search"));
        } catch (const core::Error& e) {
          if (e.where().rfind("search.model", 0) == 0) continue;  // infeasible: the runner says so per trial
          throw named(e);
        }
      }
      patch = with_one_warmup(patch);
      json training = base.training.used;
      if (patch.contains("training")) training.merge_patch(patch["training"]);
      const search::WarmupCooldown w = warmup_cooldown(training);
      const search::RungSchedule rs = search::rung_schedule(w, steps, 0);
      if (!rs.peak_reached())
        throw core::Error("search.budget.min",
                    core::format_number(first) + " " + spec.budget.resource + " gives " + which + " " +
                        std::to_string(rs.steps) + " steps, whose stable phase ends at step " +
                        std::to_string(rs.stable_end) + ", before its warmup of " + std::to_string(rs.warmup) +
                        " steps" +
                        (w.warmup_fraction > 0 ? " (warmup_fraction " + core::format_number(w.warmup_fraction) + ")" : "") +
                        "; allowed: a larger min, or shorter warmups (training.warmup_steps or warmup_fraction in "
                        "the space or the variant)");
      patch["training"] = patch.value("training", json::object());  // the rung run's, as the runner sets it
      patch["training"]["steps"] = steps;
      patch["training"]["schedule"] = "wsd";
      try {
        patched_run(project, base, patch, base.name, "search");
      } catch (const core::Error& e) {
        if (e.where().rfind("search.model", 0) == 0) continue;
        throw named(e);
      }
    }
  }
}

}  // namespace

void check_search_section(const Project& project) {
  if (project.search.is_null()) return;
  if (!project.search.is_object())
    throw core::Error("search", "expected an object (docs/search.md), got " + core::describe_json(project.search));
  const search::SearchSpec spec = search::SearchSpec::from_json(spec_section(project.search), "search");
  if (spec.sampler.kind == "grid" && spec.budget.brackets > 1)
    throw core::Error("search.budget.brackets", std::to_string(spec.budget.brackets) +
                                              " brackets with a grid sampler; allowed: 1 (a grid runs one successive-"
                                              "halving ladder; Hyperband brackets need the random sampler)");
  if (project.search.contains("threads")) {
    const json& t = project.search["threads"];
    if (!t.is_number_integer() || t.get<int64_t>() < 1 || t.get<int64_t>() > 4096)
      throw core::Error("search.threads", core::describe_json(t) + " is not allowed; allowed: an integer 1 to 4096");
  }
  for (const std::string& v : searched_variants(project)) check_first_rungs(project, spec, v);
}

using nlohmann::ordered_json;

namespace {

LoadOptions browsing() {
  LoadOptions o;
  o.require_data = false;  // the section can be edited where the corpus is not
  return o;
}

ordered_json parseFile(const std::string& file, const std::string& text) {
  try {
    return ordered_json::parse(text);
  } catch (const ordered_json::exception& e) {
    throw core::Error(file, std::string("is not valid JSON: ") + e.what());
  }
}

}  // namespace

SearchSectionFile read_search_section(const std::string& projectDir) {
  const Project p = load_project(projectDir, browsing());
  SearchSectionFile out;
  out.section = p.search;
  for (const RunPlan& r : p.runs)
    if (std::find(out.variants.begin(), out.variants.end(), r.entry) == out.variants.end())
      out.variants.push_back(r.entry);
  if (!p.runs.empty()) {
    const json& cfg = p.runs.front().config;
    out.taskData = cfg.contains("data") && cfg["data"].value("kind", std::string()) == "task";
    out.training = p.runs.front().training.used;
  }
  return out;
}

void write_search_section(const std::string& projectDir, const json& section) {
  const std::string file = project_file_in(projectDir);
  ordered_json doc = parseFile(file, data::read_file(file));
  if (!doc.is_object()) throw core::Error(file, "expected a JSON object");
  if (section.is_null())
    doc.erase("search");
  else
    doc["search"] = ordered_json::parse(section.dump());
  try {
    parse_project(json(doc), projectDir, file, browsing());
  } catch (const core::Error& e) {
    throw core::Error(e.where(), core::message_of(e) + " (" + file + " is unchanged)");
  }
  data::write_file_atomic(file, {doc.dump(2), "\n"});
}

json default_search_section(const SearchSectionFile& f) {
  const double lr = f.training.value("lr", 3e-3);
  const int steps = std::max(9, f.training.value("steps", 300));
  const int warmup = f.training.value("warmup_steps", 30);
  // Rung 0 needs a stable phase after the warmup (WSD's cooldown is the last 20%).
  const int min = std::min(steps / 3, std::max(steps / 9, static_cast<int>(std::ceil(warmup / 0.8)) + 1));
  const auto round3 = [](double v) { return std::round(v * 1e6) / 1e6; };
  return {{"space", {{"training.lr", {round3(lr / 3), round3(lr), round3(lr * 3)}}}},
          {"budget", {{"resource", "steps"}, {"min", min}, {"max", steps}, {"eta", 3}}},
          {"objective", f.taskData ? "val/accuracy" : "val/bpb"},
          {"seeds", 1},
          {"sampler", {{"kind", "grid"}}}};
}

}  // namespace pha::project
