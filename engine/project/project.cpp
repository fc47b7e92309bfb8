// project.json reading and validation: every section read through ConfigReader (unknown keys
// rejected, types and ranges checked, errors naming the field), variants, grid and seeds expanded
// into RunPlans (seeded replicas share a group), each model config validated and matched to the
// data's vocabulary; the claims checked against the runs and the data.
#include "project/project.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/metric_table.h"
#include "core/config_reader.h"
#include "core/error.h"
#include "core/limits.h"
#include "data/tasks/task.h"
#include "data/text_source.h"
#include "data/tokenizer.h"
#include "model/presets.h"
#include "model/variants.h"
#include "project/internal/project_data.h"
#include "project/project_search.h"
#include "project/project_files.h"
#include "project/internal/project_replicas.h"
#include "project/project_tuning.h"

namespace pha::project {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// {"preset": name, ...overrides} -> the preset's JSON with the overrides on top.
json expand_model_json(const json& section, const std::string& where) {
  if (!section.is_object()) throw core::Error(where, "expected an object, got " + core::describe_json(section));
  json out = section;
  if (section.contains("preset")) {
    if (!section["preset"].is_string())
      throw core::Error(where + ".preset", "expected a string, got " + core::describe_json(section["preset"]) +
                                         "; allowed: " + core::quoted_list(model::preset_names()));
    model::ModelConfig base;
    try {
      base = model::preset(section["preset"].get<std::string>());
    } catch (const core::Error& e) {
      core::rethrow_under(e, "", where + ".preset");
    }
    out = model::to_json(base);
    json patch = section;
    patch.erase("preset");
    // An override of the variant or depth must re-expand the layers the preset wrote.
    if ((patch.contains("variant") || patch.contains("n_layers")) && !patch.contains("layers")) out.erase("layers");
    out.merge_patch(patch);
  }
  return out;
}

// Sets a dotted grid key ("training.lr", "training.early_stop.patience") in a run's JSON. Each
// part is an object key taken literally (no JSON-pointer escapes); a part that would descend
// into a value that is not a section is an error naming the grid key.
void set_dotted(json& j, const std::string& key, const json& value) {
  json* at = &j;
  size_t start = 0;
  while (true) {
    const size_t dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.empty())
      throw core::Error("grid." + key, "has an empty part between dots; allowed: \"model.<key>\" or \"training.<key>\"");
    if (at->is_null()) *at = json::object();
    if (!at->is_object())
      throw core::Error("grid." + key, "\"" + key.substr(0, start - 1) + "\" is " + core::describe_json(*at) +
                                     " in the run's config, not a section that \"" + part + "\" could be set in");
    at = &(*at)[part];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  *at = value;
}

std::string value_label(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// The data's vocabulary; 0 when it is unknown (a bpe tokenizer whose files are missing).
int32_t data_vocab(const DataSpec& d, const std::string& where, const std::vector<MissingData>& missing) {
  if (d.is_task) return detail::make_task_at(d.train_task, where + ".train")->info().vocab_size;
  json tok = d.text.contains("tokenizer") ? d.text["tokenizer"] : json{{"kind", "byte"}};
  for (const auto& m : missing)
    if (m.field == where + ".tokenizer.dir") return tok.value("kind", "") == "gpt2" ? model::kGpt2VocabSize : 0;
  return data::make_tokenizer(tok, where + ".tokenizer")->vocab_size();
}

// early_stop watches a periodic-evaluation metric, which depends on the data: accuracies for
// tasks, losses for text.
void check_early_stop_fits(const EarlyStop& es, bool is_task, const std::string& training_where) {
  if (!es.enabled()) return;
  const auto& allowed = early_stop_metrics(is_task);
  if (std::find(allowed.begin(), allowed.end(), es.metric) == allowed.end())
    throw core::Error(training_where + ".early_stop.metric",
                "\"" + es.metric + "\" is not measured on " + (is_task ? "task" : "text") + " runs; allowed: " +
                    core::quoted_list(allowed));
}

RunPlan resolve_run(const Project& p, const json& entry_model, const json& entry_training, const std::string& name,
                    const std::string& model_where, const std::string& training_where, const DataSpec& dataspec,
                    int32_t vocab) {
  RunPlan plan;
  plan.name = name;
  plan.data = dataspec;
  json mj = expand_model_json(entry_model, model_where);
  const bool vocab_given = mj.contains("vocab_size");
  if (!vocab_given && vocab == 0)
    throw core::Error(model_where + ".vocab_size", "is needed: the bpe tokenizer (data.tokenizer.dir) is not on this machine, so "
                                             "the data's vocabulary is unknown; give vocab_size or locate the tokenizer");
  if (!vocab_given) mj["vocab_size"] = vocab;
  plan.model = model::model_config_from_json(mj, model_where);
  if (plan.model.vocab_size < vocab)
    throw core::Error(model_where + ".vocab_size", std::to_string(plan.model.vocab_size) +
                                                " is smaller than the data's vocabulary; allowed: " +
                                                std::to_string(vocab) + " or more (or leave it out)");
  if (plan.model.name == "custom") plan.model.name = name;
  plan.variant = plan.model.variant;
  plan.training = TrainingConfig::from_json(entry_training, training_where);
  if (dataspec.is_task) {
    plan.training.seq_len = dataspec.max_train_seq_len();
    plan.training.used["seq_len"] = plan.training.seq_len;
    check_training_work(plan.training, training_where);
  }
  check_early_stop_fits(plan.training.early_stop, dataspec.is_task, training_where);
  plan.config = json{{"project", p.name},          {"run", name},
                     {"model", model::to_json(plan.model)}, {"training", plan.training.used},
                     {"data", dataspec.section}};
  return plan;
}

}  // namespace

std::string Project::file() const { return project_file_in(dir); }
std::string Project::store_path() const { return store_path_in(dir); }

const RunPlan& Project::run(const std::string& name) const {
  for (const auto& r : runs)
    if (r.name == name) return r;
  std::string list;
  for (const auto& r : runs) list += (list.empty() ? "" : ", ") + r.name;
  throw core::Error(file(), "no run named \"" + name + "\" (the project has: " + list + ")");
}

std::vector<std::string> run_names(const Project& project) {
  std::vector<std::string> out;
  for (const auto& r : project.runs) out.push_back(r.name);
  return out;
}

namespace {

// One entry of "variants" (or the implicit single run): its name and its model / training
// sections, merged over the base ones, with the field paths errors name.
struct Entry {
  std::string name;
  json model, training;
  std::string model_where, training_where;
};

Entry read_variant(const json& v, const std::string& w, const json& base_model, const json& base_training) {
  Entry e{"", base_model, base_training, "model", "training"};
  if (v.is_string()) {
    e.name = v.get<std::string>();
    const auto presets = model::preset_names();
    const auto& known = model::known_variants();
    json m = std::find(presets.begin(), presets.end(), e.name) != presets.end() ? json{{"preset", e.name}}
             : std::find(known.begin(), known.end(), e.name) != known.end() ? json{{"variant", e.name}}
                                                                               : json();
    if (m.is_null()) {
      std::vector<std::string> names = presets;
      names.insert(names.end(), known.begin(), known.end());
      const std::string near = core::nearest_name(e.name, names, /*max_edits=*/2);
      throw core::Error(w, "\"" + e.name + "\" is neither a preset nor a variant name; " +
                         (near.empty() ? "" : "did you mean \"" + near + "\"? ") + "allowed: a preset (" +
                         core::quoted_list(presets) + "), a variant (" + core::quoted_list(known) +
                         ") or an object {\"name\", \"model\", \"training\"}");
    }
    if (m.contains("preset")) e.model.erase("preset");
    e.model.merge_patch(m);
    return e;
  }
  if (!v.is_object())
    throw core::Error(w, "expected a variant name or an object {\"name\", \"model\", \"training\"}, got " + core::describe_json(v));
  core::ConfigReader vr(v, w, {"name", "model", "training"});
  e.name = vr.require_string("name");
  const json m = vr.get_object("model");
  const json t = vr.get_object("training");
  if (m.contains("preset")) e.model.erase("preset");
  e.model.merge_patch(m);
  e.training.merge_patch(t);
  if (!m.empty()) e.model_where = w + ".model";
  if (!t.empty()) e.training_where = w + ".training";
  return e;
}

std::vector<Entry> read_variants(core::ConfigReader& r, const std::string& project_name, const json& base_model,
                                 const json& base_training) {
  if (!r.has("variants")) {
    r.ignore("variants");
    return {Entry{project_name, base_model, base_training, "model", "training"}};
  }
  const json& variants = r.at("variants");
  if (!variants.is_array() || variants.empty())
    throw core::Error("variants", "expected a non-empty list of variant names or {\"name\", \"model\", \"training\"} "
                            "objects, got " + core::describe_json(variants));
  std::vector<Entry> entries;
  for (size_t i = 0; i < variants.size(); ++i)
    entries.push_back(read_variant(variants[i], "variants[" + std::to_string(i) + "]", base_model, base_training));
  return entries;
}

// "grid": {"model.d_model": [64, 128], "training.lr": [...]}, crossed with every variant (and
// with every seed: `replicas` runs per point).
std::vector<std::pair<std::string, json>> read_grid(core::ConfigReader& r, size_t variants, size_t replicas) {
  const json grid = r.get_object("grid");
  std::vector<std::pair<std::string, json>> axes;
  double runs = static_cast<double>(variants) * static_cast<double>(replicas);
  for (auto it = grid.begin(); it != grid.end(); ++it) {
    const std::string& key = it.key();
    if (key.rfind("model.", 0) != 0 && key.rfind("training.", 0) != 0)
      throw core::Error("grid." + key, "unknown key; allowed: \"model.<key>\" or \"training.<key>\" (\"model.d_model\", "
                                 "\"training.lr\")");
    if (!it.value().is_array() || it.value().empty())
      throw core::Error("grid." + key, "expected a non-empty list of values, got " + core::describe_json(it.value()));
    axes.emplace_back(key, it.value());
    runs *= static_cast<double>(it.value().size());
  }
  if (runs > static_cast<double>(core::limits::kMaxRuns))
    core::ConfigReader::out_of_range("grid", std::string(replicas > 1 ? "variants x grid points x seeds = " : "variants x grid points = ") +
                                           core::format_number(runs) + " runs",
                               "at most " + std::to_string(core::limits::kMaxRuns), core::limits::kNote);
  return axes;
}

using Axes = std::vector<std::pair<std::string, json>>;

// Sets combination `index` of `axes` (the first axis varies fastest) in a run's JSON; returns its
// label "lr=0.001,d_model=64".
std::string apply_point(json& run, const Axes& axes, size_t index) {
  std::string suffix;
  for (const auto& [key, values] : axes) {
    const json& v = values[index % values.size()];
    index /= values.size();
    set_dotted(run, key, v);
    suffix += (suffix.empty() ? "" : ",") + key.substr(key.find('.') + 1) + "=" + value_label(v);
  }
  return suffix;
}

// "tune": {"training.lr": [...], ..., "variants": {"<entry>": {"training.lr": [...]}}, "select": "val/loss"}:
// the settings each family is tried at before a claim compares it (its own axes for an entry in
// "variants", the common ones otherwise), crossed with the grid; the report chooses each family's
// best setting on `select` (docs/project-format.md, "tune").
struct TuneSection {
  Axes common;
  std::map<std::string, Axes> per_entry;
  const Axes& axes_of(const std::string& entry) const {
    const auto it = per_entry.find(entry);
    return it == per_entry.end() ? common : it->second;
  }
};

Axes read_tune_axes(const json& section, const std::string& where, const Axes& grid, bool allow_meta) {
  Axes axes;
  for (auto it = section.begin(); it != section.end(); ++it) {
    const std::string& key = it.key();
    if (allow_meta && (key == "variants" || key == "select" || key == "extend" || key == "confirm_seeds")) continue;
    const std::string w = where + "." + key;
    if (key.rfind("model.", 0) != 0 && key.rfind("training.", 0) != 0)
      throw core::Error(w, "unknown key; allowed: \"model.<key>\" or \"training.<key>\" lists (\"training.lr\", "
                     "\"training.weight_decay\")" +
                         std::string(allow_meta ? ", \"variants\", \"select\", \"extend\", \"confirm_seeds\"" : ""));
    if (key == "training.seed") throw core::Error(w, "the seed is not a setting to tune; allowed: \"seeds\" or \"repeats\"");
    for (const auto& g : grid)
      if (g.first == key) throw core::Error(w, "is also a grid axis (grid." + key + "); allowed: one of the two");
    if (!it.value().is_array() || it.value().empty())
      throw core::Error(w, "expected a non-empty list of values, got " + core::describe_json(it.value()));
    axes.emplace_back(key, it.value());
  }
  return axes;
}

TuneSection read_tune(core::ConfigReader& r, const std::vector<Entry>& entries, const Axes& grid, bool is_task,
                      size_t replicas, analysis::TuneProtocol& protocol) {
  TuneSection t;
  if (!r.has("tune")) {
    r.ignore("tune");
    return t;
  }
  const json& section = r.at("tune");
  if (!section.is_object() || section.empty())
    throw core::Error("tune", "expected an object of settings to try {\"training.lr\": [1e-3, 3e-3], ...}, got " +
                            core::describe_json(section));
  t.common = read_tune_axes(section, "tune", grid, true);
  std::set<std::string> names;
  for (const auto& e : entries) names.insert(e.name);
  if (section.contains("variants")) {
    const json& v = section["variants"];
    if (!v.is_object()) throw core::Error("tune.variants", "expected {\"<variant>\": {\"training.lr\": [...]}}, got " + core::describe_json(v));
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string w = "tune.variants." + it.key();
      if (!names.count(it.key())) {
        std::vector<std::string> list(names.begin(), names.end());
        throw core::Error(w, "is not a variant of this project; allowed: " + core::quoted_list(list));
      }
      if (!it.value().is_object() || it.value().empty())
        throw core::Error(w, "expected a non-empty object {\"training.lr\": [...]}, got " + core::describe_json(it.value()));
      t.per_entry[it.key()] = read_tune_axes(it.value(), w, grid, false);
    }
  }
  if (t.common.empty() && t.per_entry.empty())
    throw core::Error("tune", "names no setting to try; allowed: \"model.<key>\" or \"training.<key>\" lists");
  // A setting chosen on one or two seeds is often a lucky one (docs/report.md, "Tuned comparisons").
  if (replicas < analysis::kMinSelectionSeeds)
    throw core::Error(r.has("seeds") ? "seeds" : r.has("repeats") ? "repeats" : "tune",
                "tune chooses each family's setting on the project's seeds, and " + std::to_string(replicas) +
                    (replicas == 1 ? " seed is" : " seeds are") + " too few: one lucky seed would pick it; allowed: at least " +
                    std::to_string(analysis::kMinSelectionSeeds) + " (\"seeds\": [0, 1, 2] or \"repeats\": 3)");
  const auto& allowed = early_stop_metrics(is_task);
  const std::string select = section.contains("select") ? (section["select"].is_string() ? section["select"].get<std::string>() : "")
                                                        : allowed.front();
  if (std::find(allowed.begin(), allowed.end(), select) == allowed.end())
    throw core::Error("tune.select", core::describe_json(section["select"]) + " is not a validation metric of " +
                                   (is_task ? "task" : "text") + " runs; allowed: " + core::quoted_list(allowed));
  double runs = 0;
  std::set<std::string> keys;
  size_t grid_points = 1;
  for (const auto& g : grid) grid_points *= g.second.size();
  for (const auto& e : entries) {
    double combos = 1;
    for (const auto& a : t.axes_of(e.name)) {
      combos *= static_cast<double>(a.second.size());
      keys.insert(a.first);
    }
    runs += combos * static_cast<double>(grid_points * replicas);
  }
  if (runs > static_cast<double>(core::limits::kMaxRuns))
    core::ConfigReader::out_of_range("tune", "variants x grid points x settings x seeds = " + core::format_number(runs) + " runs",
                               "at most " + std::to_string(core::limits::kMaxRuns), core::limits::kNote);
  if (section.contains("extend")) {
    std::vector<std::pair<std::string, const Axes*>> lists = {{"tune", &t.common}};
    for (const auto& [entry, axes] : t.per_entry) lists.emplace_back("tune.variants." + entry, &axes);
    detail::read_tune_extend(section, lists, protocol);  // project/project_tuning.h
  }
  if (section.contains("confirm_seeds")) detail::read_confirm_seeds(section, protocol);
  runs += static_cast<double>(entries.size() * grid_points * protocol.confirm_seeds.size());
  if (runs > static_cast<double>(core::limits::kMaxRuns))
    core::ConfigReader::out_of_range("tune", "variants x grid points x (settings x seeds + confirmation seeds) = " +
                                           core::format_number(runs) + " runs",
                               "at most " + std::to_string(core::limits::kMaxRuns), core::limits::kNote);
  protocol.enabled = true;
  protocol.select.text = protocol.select.key = select;
  protocol.maximize = core::higher_is_better(select);  // core/metric_table.h
  for (const auto& k : keys) protocol.axes += (protocol.axes.empty() ? "" : ", ") + k;
  return t;
}

// The runs of one variant at one grid point: one run named `group`, or one replica per seed
// named "<group>/seed=N" ("<entry>/<point>,seed=N" on a grid), all of group `group`.
void add_runs(Project& p, const Entry& e, const json& run, const std::string& grid_point, const std::string& tune_point,
              const DataSpec& dataspec, int32_t vocab, std::set<std::string>& names) {
  const std::string point = grid_point + (grid_point.empty() || tune_point.empty() ? "" : ",") + tune_point;
  const std::string group = point.empty() ? e.name : e.name + "/" + point;
  auto resolve = [&](const std::string& name, const json& training) {
    try {
      return resolve_run(p, run["model"], training, name, e.model_where, e.training_where, dataspec, vocab);
    } catch (const core::Error& err) {
      if (point.empty()) throw;
      throw core::Error(err.where(), core::message_of(err) + " (grid point " + point + ")");
    }
  };
  std::vector<std::pair<std::string, json>> replicas;  // name, training section
  if (p.seeds.empty()) {
    replicas.emplace_back(group, run["training"]);
  } else {
    const uint64_t base = p.repeats ? resolve(group, run["training"]).training.seed : 0;
    for (uint64_t offset : p.seeds) {
      json training = run["training"];
      training["seed"] = base + offset;
      replicas.emplace_back(group + (point.empty() ? "/" : ",") + "seed=" + std::to_string(base + offset), training);
    }
  }
  for (const auto& [name, training] : replicas) {
    if (!names.insert(name).second) throw core::Error("variants", "two runs are named \"" + name + "\"; names must be unique");
    RunPlan plan = resolve(name, training);
    plan.group = group;
    plan.seed = plan.training.seed;
    plan.entry = e.name;
    plan.grid_point = grid_point;
    plan.tune_point = tune_point;
    p.runs.push_back(std::move(plan));
  }
}

// The value at a dotted key ("training.lr") of a run's JSON; nullptr when absent.
const json* get_dotted(const json& j, const std::string& key) {
  const json* at = &j;
  size_t start = 0;
  while (at->is_object()) {
    const size_t dot = key.find('.', start);
    const auto it = at->find(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (it == at->end()) return nullptr;
    if (dot == std::string::npos) return &*it;
    at = &*it;
    start = dot + 1;
  }
  return nullptr;
}

// A value of the file that the grid or "tune" replaces on every run is never trained with, but
// is refused as it would be without them (`"training": {"lr": "fast"}` beside a tune of lr):
// the entry's first run is resolved again with that one value put back. Only an error naming
// that field refuses it (one caused by the combination with another axis' value is no error of
// the file).
void check_replaced_values(const Project& p, const Entry& e, const Axes& grid, const Axes& tune,
                           const DataSpec& dataspec, int32_t vocab) {
  const json file = {{"model", e.model}, {"training", e.training}};
  json first = file;
  apply_point(first, grid, 0);
  apply_point(first, tune, 0);
  for (const Axes* axes : {&grid, &tune})
    for (const auto& axis : *axes) {
      const json* value = get_dotted(file, axis.first);
      if (!value) continue;
      json run = first;
      set_dotted(run, axis.first, *value);
      const bool model = axis.first.rfind("model.", 0) == 0;
      const std::string field = (model ? e.model_where : e.training_where) + axis.first.substr(axis.first.find('.'));
      try {
        resolve_run(p, run["model"], run["training"], e.name, e.model_where, e.training_where, dataspec, vocab);
      } catch (const core::Error& err) {
        if (err.where() != field) continue;
        throw core::Error(field, core::message_of(err) + " (\"" + (axes == &grid ? "grid" : "tune") + "\" sets " + axis.first +
                               " on every run, but the value written here must be valid too)");
      }
    }
}

}  // namespace

Project parse_project(const json& j, const std::string& dir, const std::string& source, const LoadOptions& options) {
  Project p;
  p.dir = dir;
  p.json = j;
  if (!j.is_object()) throw core::Error(source, "expected a JSON object, got " + core::describe_json(j));
  core::ConfigReader r(j, "", {"name", "description", "data", "model", "training", "variants", "grid", "seeds", "repeats",
                         "profile", "claims", "tune", "scaling", "search", "report"});
  p.name = r.get_string("name", fs::path(dir).filename().string());
  p.description = r.get_string("description", "");
  if (r.has("profile")) p.profile = ProfileSettings::from_json(r.at("profile"), "profile");
  if (!r.has("data"))
    throw core::Error("data", "is required; allowed: a text corpus {\"kind\": \"file\", \"path\": ...} or tasks "
                        "{\"kind\": \"task\", \"train\": ...}");
  const DataSpec dataspec = DataSpec::from_json(r.at("data"), "data", options, &p.missing_data);
  const int32_t vocab = data_vocab(dataspec, "data", p.missing_data);
  const json base_model = r.get_object("model");
  const json base_training = r.get_object("training");
  const std::vector<Entry> entries = read_variants(r, p.name, base_model, base_training);
  detail::read_seeds(r, p);
  const auto axes = read_grid(r, entries.size(), std::max<size_t>(1, p.seeds.size()));
  for (const auto& a : axes)
    if (a.first == "training.seed" && !p.seeds.empty())
      throw core::Error("grid.training.seed", std::string("sets the seed that \"") + (p.repeats ? "repeats" : "seeds") +
                                            "\" sets; allowed: one of the two");

  const TuneSection tune = read_tune(r, entries, axes, dataspec.is_task, std::max<size_t>(1, p.seeds.size()), p.tune);
  std::set<std::string> names;
  for (const Entry& e : entries) {
    size_t combos = 1;
    for (const auto& a : axes) combos *= a.second.size();
    const Axes& tune_axes = tune.axes_of(e.name);
    check_replaced_values(p, e, axes, tune_axes, dataspec, vocab);
    size_t tune_combos = 1;
    for (const auto& a : tune_axes) tune_combos *= a.second.size();
    for (size_t c = 0; c < combos; ++c) {
      for (size_t t = 0; t < tune_combos; ++t) {
        json run = {{"model", e.model}, {"training", e.training}};
        const std::string suffix = apply_point(run, axes, c);
        const std::string tune_suffix = apply_point(run, tune_axes, t);
        add_runs(p, e, run, suffix, tune_suffix, dataspec, vocab, names);
      }
    }
  }
  for (const RunPlan& run : p.runs)  // fresh seeds: no selection replica trains with one
    for (size_t i = 0; i < p.tune.confirm_seeds.size(); ++i)
      if (static_cast<int64_t>(run.seed) == p.tune.confirm_seeds[i])
        throw core::Error("tune.confirm_seeds[" + std::to_string(i) + "]",
                    "seed " + std::to_string(run.seed) + " is also a selection seed (run \"" + run.name +
                        "\" trains with it); allowed: seeds no run of the project trains with");
  for (uint64_t s : p.seeds) p.tune.selection_seeds.push_back(static_cast<int64_t>(s));
  if (r.has("scaling")) {
    std::vector<std::string> names;
    for (const auto& e : entries) names.push_back(e.name);
    detail::read_scaling(r, dataspec.is_task, names, p);
  }
  detail::read_project_claims(r, p, dataspec);
  detail::read_report_settings(r, p);
  if (r.has("search")) {
    p.search = r.at("search");
    check_search_section(p);  // project/project_search.h
  }
  return p;
}

// `base` re-resolved from its model and training sections after a patch, under `name`.
static RunPlan repatched(const Project& project, const RunPlan& base, const json& patch, const std::string& name,
                  const std::string& model_where, const std::string& training_where) {
  json model = base.config.value("model", json::object());
  json training = base.training.used;
  if (patch.contains("model")) model.merge_patch(patch["model"]);
  if (patch.contains("training")) merge_training_patch(training, patch["training"]);
  return resolve_run(project, model, training, name, model_where, training_where, base.data, base.model.vocab_size);
}

RunPlan patched_run(const Project& project, const RunPlan& base, const json& patch, const std::string& name,
                    const std::string& where) {
  RunPlan plan = repatched(project, base, patch, name, where + ".model", where + ".training");
  plan.group = name;
  plan.seed = plan.training.seed;
  plan.entry = base.entry;
  return plan;
}

RunPlan with_training(const Project& project, const RunPlan& base, const json& training_patch,
                      const std::string& training_where) {
  if (!training_patch.is_object() || training_patch.empty()) return base;
  RunPlan plan = repatched(project, base, json{{"training", training_patch}}, base.name, "model", training_where);
  plan.group = base.group;
  plan.seed = base.seed;
  plan.entry = base.entry;
  plan.grid_point = base.grid_point;
  plan.tune_point = base.tune_point;
  plan.origin = base.origin;
  return plan;
}

json run_plan_to_json(const RunPlan& plan) {
  return {{"name", plan.name},
          {"group", plan.group},
          {"seed", plan.seed},
          {"entry", plan.entry},
          {"grid_point", plan.grid_point},
          {"tune_point", plan.tune_point},
          {"origin", plan.origin},
          {"model", plan.config.value("model", json::object())},
          {"training", plan.training.used}};
}

RunPlan run_plan_from_json(const Project& project, const json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string() || !j.contains("model") || !j.contains("training"))
    throw core::Error(where, "expects a run plan object with \"name\", \"model\" and \"training\"");
  if (project.runs.empty()) throw core::Error(where, "the project has no run to take the data section from");
  const DataSpec& data = project.runs.front().data;  // one data section per project
  const auto text = [&](const char* key) { return j.value(key, std::string()); };
  RunPlan plan = resolve_run(project, j["model"], j["training"], text("name"), where + ".model", where + ".training", data,
                             data_vocab(data, "data", project.missing_data));
  plan.group = text("group");
  plan.seed = j.value("seed", std::uint64_t{0});
  plan.entry = text("entry");
  plan.grid_point = text("grid_point");
  plan.tune_point = text("tune_point");
  plan.origin = text("origin");
  return plan;
}

Project load_project(const std::string& path, const LoadOptions& options) {
  fs::path file = path;
  if (fs::is_directory(file)) file = project_file_in(path);
  if (!fs::exists(file)) throw core::Error(file.string(), "no such file (a project is a folder with project.json)");
  std::ifstream in(file);
  if (!in) throw core::Error(file.string(), "cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  json j;
  try {
    j = json::parse(ss.str());
  } catch (const json::parse_error& e) {
    throw core::Error(file.string(), std::string("JSON syntax error: ") + e.what());
  } catch (const json::exception& e) {  // e.g. a number beyond double range: out_of_range 406 (found by fuzzing)
    throw core::Error(file.string(), std::string("not valid JSON: ") + e.what());
  }
  fs::path dir = fs::absolute(file).parent_path();
  try {
    return parse_project(j, dir.string(), file.string(), options);
  } catch (const core::Error& e) {
    // Name the file as well as the field.
    throw core::Error(e.where(), core::message_of(e) + " (in " + file.string() + ")");
  }
}

}  // namespace pha::project
