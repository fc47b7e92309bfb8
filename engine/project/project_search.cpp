#include "project/project_search.h"

#include <algorithm>
#include <cmath>

#include "core/config_reader.h"
#include "core/error.h"
#include "data/file_io.h"
#include "model/flops.h"
#include "project/project_files.h"

namespace pha::runtime {

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
    throw Error("search.variants", "expected a non-empty list of the project's variants, got " + describe_json(v));
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string where = "search.variants[" + std::to_string(i) + "]";
    if (!v[i].is_string() || std::find(entries.begin(), entries.end(), v[i].get<std::string>()) == entries.end())
      throw Error(where, describe_json(v[i]) + " is not a variant of this project; allowed: " + quoted_list(entries));
    if (std::find(out.begin(), out.end(), v[i].get<std::string>()) != out.end())
      throw Error(where, "\"" + v[i].get<std::string>() + "\" is listed twice");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

const RunPlan& base_run(const Project& p, const std::string& entry) {
  for (const RunPlan& r : p.runs)
    if (r.entry == entry) return r;
  throw Error("search.variants", "\"" + entry + "\" has no runs");
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

void check_search_section(const Project& project) {
  if (project.search.is_null()) return;
  if (!project.search.is_object())
    throw Error("search", "expected an object (docs/search.md), got " + describe_json(project.search));
  const search::SearchSpec spec = search::SearchSpec::from_json(spec_section(project.search), "search");
  if (spec.sampler.kind == "grid" && spec.budget.brackets > 1)
    throw Error("search.budget.brackets", std::to_string(spec.budget.brackets) +
                                              " brackets with a grid sampler; allowed: 1 (a grid runs one successive-"
                                              "halving ladder; Hyperband brackets need the random sampler)");
  if (project.search.contains("threads")) {
    const json& t = project.search["threads"];
    if (!t.is_number_integer() || t.get<int64_t>() < 1 || t.get<int64_t>() > 4096)
      throw Error("search.threads", describe_json(t) + " is not allowed; allowed: an integer 1 to 4096");
  }
  for (const std::string& v : searched_variants(project)) {
    const RunPlan& base = base_run(project, v);
    // The first rung's run must have a stable phase after its warmup (WSD).
    TrainingConfig t = base.training;
    t.schedule = "wsd";
    t.steps = steps_for(spec.budget, spec.budget.min, base);
    if (t.warmup_steps > t.stable_end())
      throw Error("search.budget.min", format_number(spec.budget.min) + " " + spec.budget.resource + " gives " +
                                           std::to_string(t.steps) + " steps, whose stable phase ends at step " +
                                           std::to_string(t.stable_end()) + ", before \"" + v +
                                           "\"'s warmup of " + std::to_string(t.warmup_steps) +
                                           " steps; allowed: a larger min or a shorter training.warmup_steps");
  }
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
    throw Error(file, std::string("is not valid JSON: ") + e.what());
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
  if (!doc.is_object()) throw Error(file, "expected a JSON object");
  if (section.is_null())
    doc.erase("search");
  else
    doc["search"] = ordered_json::parse(section.dump());
  try {
    parse_project(json(doc), projectDir, file, browsing());
  } catch (const Error& e) {
    throw Error(e.where(), message_of(e) + " (" + file + " is unchanged)");
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

}  // namespace pha::runtime
