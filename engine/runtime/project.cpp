// project.json reading and validation: every section read through ConfigReader (unknown keys
// rejected, types and ranges checked, errors naming the field), variants and grid expanded
// into RunPlans, each model config validated and matched to the data's vocabulary.
#include "runtime/project.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.h"
#include "data/config_reader.h"
#include "data/tasks/task.h"
#include "data/text_source.h"
#include "data/tokenizer.h"
#include "model/presets.h"
#include "model/variants.h"

namespace pha::runtime {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<data::TaskGenerator> make_task_at(const json& config, const std::string& where) {
  try {
    return data::make_task(config);
  } catch (const Error& e) {
    rethrow_under(e, "task", where);
  }
}

// {"preset": name, ...overrides} -> the preset's JSON with the overrides on top.
json expand_model_json(const json& section, const std::string& where) {
  if (!section.is_object()) throw Error(where, "must be a JSON object, got " + section.dump());
  json out = section;
  if (section.contains("preset")) {
    if (!section["preset"].is_string()) throw Error(where + ".preset", "must be a string, got " + section["preset"].dump());
    model::ModelConfig base;
    try {
      base = model::preset(section["preset"].get<std::string>());
    } catch (const Error& e) {
      rethrow_under(e, "", where + ".preset");
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

// Sets a dotted grid key ("training.lr") in a run's JSON.
void set_dotted(json& j, const std::string& key, const json& value, const std::string& where) {
  std::string pointer = "/";
  for (char c : key) pointer += c == '.' ? '/' : c;
  if (key.empty() || (key.rfind("model.", 0) != 0 && key.rfind("training.", 0) != 0))
    throw Error(where, "grid keys start with \"model.\" or \"training.\", got \"" + key + "\"");
  j[json::json_pointer(pointer)] = value;
}

std::string value_label(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

int32_t data_vocab(const DataSpec& d, const std::string& where) {
  if (d.is_task) return make_task_at(d.train_task, where + ".train")->info().vocab_size;
  json tok = d.text.contains("tokenizer") ? d.text["tokenizer"] : json{{"kind", "byte"}};
  return data::make_tokenizer(tok, where + ".tokenizer")->vocab_size();
}

RunPlan resolve_run(const Project& p, const json& entry_model, const json& entry_training, const std::string& name,
                    const std::string& model_where, const std::string& training_where, const DataSpec& dataspec,
                    int32_t vocab) {
  RunPlan plan;
  plan.name = name;
  plan.data = dataspec;
  json mj = expand_model_json(entry_model, model_where);
  const bool vocab_given = mj.contains("vocab_size");
  if (!vocab_given) mj["vocab_size"] = vocab;
  plan.model = model::model_config_from_json(mj, model_where);
  if (plan.model.vocab_size < vocab)
    throw Error(model_where + ".vocab_size", std::to_string(plan.model.vocab_size) + " is smaller than the data's vocabulary (" +
                                                std::to_string(vocab) + " ids)");
  if (plan.model.name == "custom") plan.model.name = name;
  plan.variant = plan.model.variant;
  plan.training = TrainingConfig::from_json(entry_training, training_where);
  if (dataspec.is_task) {
    auto task = make_task_at(dataspec.train_task, "data.train");
    plan.training.seq_len = task->info().seq_len;
    plan.training.used["seq_len"] = plan.training.seq_len;
  }
  plan.config = json{{"project", p.name},          {"run", name},
                     {"model", model::to_json(plan.model)}, {"training", plan.training.used},
                     {"data", dataspec.section}};
  return plan;
}

}  // namespace

TrainingConfig TrainingConfig::from_json(const json& section, const std::string& where) {
  data::ConfigReader r(section, where);
  TrainingConfig c;
  c.steps = r.get_int("steps", c.steps, 1, int64_t{1} << 40);
  c.batch_size = static_cast<int>(r.get_int("batch_size", c.batch_size, 1, 1 << 16));
  c.seq_len = static_cast<int>(r.get_int("seq_len", c.seq_len, 2, 1 << 20));
  c.grad_accum = static_cast<int>(r.get_int("grad_accum", c.grad_accum, 1, 1 << 12));
  c.lr = r.get_double("lr", c.lr, 0.0, 1e12);
  c.min_lr_ratio = r.get_double("min_lr_ratio", c.min_lr_ratio, 0.0, 1.0);
  c.warmup_steps = r.get_int("warmup_steps", c.warmup_steps, 0, int64_t{1} << 40);
  c.weight_decay = r.get_double("weight_decay", c.weight_decay, 0.0, 10.0);
  c.beta1 = r.get_double("beta1", c.beta1, 0.0, 0.999999);
  c.beta2 = r.get_double("beta2", c.beta2, 0.0, 0.999999999);
  c.eps = r.get_double("eps", c.eps, 1e-30, 1.0);
  c.dss_lr = r.get_double("dss_lr", c.dss_lr, 0.0, 1e12);
  c.mixer_lr = r.get_double("mixer_lr", c.lr, 0.0, 1e12);  // default: the main lr
  c.grad_clip = r.get_double("grad_clip", c.grad_clip, 0.0, 1e12);
  c.seed = static_cast<uint64_t>(r.get_int("seed", 0, 0, int64_t{1} << 53));
  c.eval_every = r.get_int("eval_every", c.eval_every, 0, int64_t{1} << 40);
  c.eval_tokens = r.get_int("eval_tokens", c.eval_tokens, 0, int64_t{1} << 40);
  c.eval_examples = r.get_int("eval_examples", c.eval_examples, 1, int64_t{1} << 30);
  c.sweep_examples = r.get_int("sweep_examples", c.sweep_examples, 1, int64_t{1} << 30);
  c.final_eval_tokens = r.get_int("final_eval_tokens", c.final_eval_tokens, 0, int64_t{1} << 40);
  c.checkpoint_every = r.get_int("checkpoint_every", c.checkpoint_every, 0, int64_t{1} << 40);
  c.mixer_every = r.get_int("mixer_every", c.mixer_every, 1, int64_t{1} << 40);
  c.device = r.get_choice("device", c.device, {"auto", "cpu", "cuda"});
  c.precision = r.get_choice("precision", c.precision, {"auto", "fp32", "bf16"});
  c.threads = static_cast<int>(r.get_int("threads", c.threads, 0, 4096));
  c.max_loss = r.get_double("max_loss", c.max_loss, 0.0, 1e30);
  r.finish();
  if (c.warmup_steps > c.steps)
    throw Error(r.field("warmup_steps"), std::to_string(c.warmup_steps) + " is more than training.steps (" +
                                             std::to_string(c.steps) + ")");
  if (c.precision == "bf16" && c.device == "cpu")
    throw Error(r.field("precision"), "\"bf16\" autocast needs device \"cuda\" (CPU trains in fp32)");
  c.used = r.used();
  return c;
}

ProfileSettings ProfileSettings::from_json(const json& section, const std::string& where) {
  data::ConfigReader r(section, where);
  ProfileSettings p;
  p.present = true;
  p.after_runs = r.get_bool("after_runs", p.after_runs);
  if (r.has("seq_lens")) {
    const json& v = section["seq_lens"];
    if (!v.is_array() || v.empty())
      throw Error(r.field("seq_lens"), "must be a non-empty list of sequence lengths, got " + v.dump());
    p.seq_lens.clear();
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_number_integer() || v[i].get<int64_t>() < 2 || v[i].get<int64_t>() > (1 << 20))
        throw Error(r.field("seq_lens") + "[" + std::to_string(i) + "]", "must be an integer in [2, 1048576], got " + v[i].dump());
      p.seq_lens.push_back(v[i].get<int>());
    }
  }
  r.ignore("seq_lens");
  if (r.has("phases")) {
    p.phases = r.get_string_list("phases");
    if (p.phases.empty()) throw Error(r.field("phases"), "must list \"train\" and/or \"forward\"");
    for (const auto& ph : p.phases)
      if (ph != "train" && ph != "forward")
        throw Error(r.field("phases"), "entries must be \"train\" or \"forward\", got \"" + ph + "\"");
  }
  r.ignore("phases");
  p.tokens_per_batch = r.get_int("tokens_per_batch", p.tokens_per_batch, 1, int64_t{1} << 30);
  p.warmup = static_cast<int>(r.get_int("warmup", p.warmup, 0, 1000));
  p.repeats = static_cast<int>(r.get_int("repeats", p.repeats, 1, 1000));
  p.timeout_s = static_cast<int>(r.get_int("timeout_s", p.timeout_s, 1, 86400));
  p.device = r.get_choice("device", p.device, {"auto", "cpu", "cuda"});
  r.finish();
  p.used = r.used();
  p.used["seq_lens"] = p.seq_lens;
  p.used["phases"] = p.phases;
  return p;
}

DataSpec DataSpec::from_json(const json& section, const std::string& where) {
  if (!section.is_object()) throw Error(where, "is required (a JSON object with \"kind\")");
  DataSpec d;
  d.section = section;
  const std::string kind = section.value("kind", std::string());
  if (kind != "task") {
    // A text corpus: TextSource validates the section and checks that every file exists.
    data::SourceConfig sc = data::SourceConfig::from_json(section, where);
    data::TextSource source(sc);
    data::make_tokenizer(sc.tokenizer, where + ".tokenizer");
    d.text = section;
    return d;
  }
  data::ConfigReader r(section, where);
  r.get_string("kind", "task");
  d.is_task = true;
  if (!r.has("train")) throw Error(r.field("train"), "is required for kind \"task\" (a task config {\"task\": ...})");
  d.train_task = r.get_object("train");
  auto train = make_task_at(d.train_task, r.field("train"));
  const json& test = r.has("test") ? section["test"] : json();
  r.ignore("test");
  if (!test.is_null()) {
    if (!test.is_array()) throw Error(r.field("test"), "must be a list of {\"name\": ..., \"task\": ...}");
    for (size_t i = 0; i < test.size(); ++i) {
      const std::string w = r.field("test") + "[" + std::to_string(i) + "]";
      if (!test[i].is_object() || !test[i].contains("name") || !test[i]["name"].is_string())
        throw Error(w + ".name", "is required (a string)");
      json cfg = test[i];
      cfg.erase("name");
      make_task_at(cfg, w);
      d.test_tasks.emplace_back(test[i]["name"].get<std::string>(), cfg);
    }
  } else {
    // Default test set: the training task with seed + 10 and 1000 examples (tasks-spec §2).
    json cfg = train->params();
    cfg["task"] = train->info().name;
    cfg["seed"] = cfg.value("seed", 0) + 10;
    cfg["num_examples"] = 1000;
    make_task_at(cfg, r.field("train"));
    d.test_tasks.emplace_back("test", cfg);
  }
  for (const auto& s : r.get_string_list("sweeps")) {
    if (s == "length") {
      d.length_sweep = true;
      try {
        data::length_generalization_sets(d.train_task);
      } catch (const Error& e) {
        throw Error(r.field("sweeps"), std::string("\"length\" cannot remake data.train at every T: ") + e.what());
      }
    } else if (s == "ood") {
      d.ood_sweep = true;
      try {
        data::ood_bits_sets(d.train_task);
      } catch (const Error& e) {
        rethrow_under(e, "task", r.field("train"));
      }
    } else {
      throw Error(r.field("sweeps"), "entries must be \"length\" or \"ood\", got \"" + s + "\"");
    }
  }
  r.finish();
  return d;
}

const RunPlan& Project::run(const std::string& name) const {
  for (const auto& r : runs)
    if (r.name == name) return r;
  std::string list;
  for (const auto& r : runs) list += (list.empty() ? "" : ", ") + r.name;
  throw Error(file(), "no run named \"" + name + "\" (the project has: " + list + ")");
}

std::vector<std::string> run_names(const Project& project) {
  std::vector<std::string> out;
  for (const auto& r : project.runs) out.push_back(r.name);
  return out;
}

Project parse_project(const json& j, const std::string& dir, const std::string& source) {
  Project p;
  p.dir = dir;
  p.json = j;
  if (!j.is_object()) throw Error(source, "must hold a JSON object, got " + std::string(j.type_name()));
  data::ConfigReader r(j, "");
  p.name = r.get_string("name", fs::path(dir).filename().string());
  p.description = r.get_string("description", "");
  r.ignore("data");
  r.ignore("model");
  r.ignore("training");
  r.ignore("variants");
  r.ignore("grid");
  r.ignore("profile");
  r.finish();
  if (j.contains("profile") && !j["profile"].is_null()) p.profile = ProfileSettings::from_json(j["profile"], "profile");
  if (!j.contains("data")) throw Error("data", "is required (the dataset: a text corpus or \"kind\": \"task\")");
  const DataSpec dataspec = DataSpec::from_json(j["data"], "data");
  const int32_t vocab = data_vocab(dataspec, "data");
  const json base_model = j.value("model", json::object());
  const json base_training = j.value("training", json::object());
  if (!base_training.is_object()) throw Error("training", "must be a JSON object, got " + base_training.dump());

  // Variants: strings (a preset or variant name) or {"name", "model", "training"} patches.
  struct Entry {
    std::string name;
    json model, training;
    std::string model_where, training_where;
  };
  std::vector<Entry> entries;
  const json variants = j.value("variants", json());
  if (!variants.is_null() && (!variants.is_array() || variants.empty()))
    throw Error("variants", "must be a non-empty list of variant names or {\"name\", \"model\", \"training\"} objects");
  if (variants.is_null()) entries.push_back({p.name, base_model, base_training, "model", "training"});
  const auto presets = model::preset_names();
  const auto& known = model::known_variants();
  for (size_t i = 0; variants.is_array() && i < variants.size(); ++i) {
    const std::string w = "variants[" + std::to_string(i) + "]";
    const json& v = variants[i];
    Entry e{"", base_model, base_training, "model", "training"};
    if (v.is_string()) {
      e.name = v.get<std::string>();
      json m = std::find(presets.begin(), presets.end(), e.name) != presets.end() ? json{{"preset", e.name}}
               : std::find(known.begin(), known.end(), e.name) != known.end() ? json{{"variant", e.name}}
                                                                                 : json();
      if (m.is_null()) throw Error(w, "\"" + e.name + "\" is neither a preset nor a variant name");
      if (m.contains("preset")) e.model.erase("preset");
      e.model.merge_patch(m);
    } else {
      data::ConfigReader vr(v, w);
      e.name = vr.require_string("name");
      const json m = vr.get_object("model");
      const json t = vr.get_object("training");
      vr.finish();
      if (m.contains("preset")) e.model.erase("preset");
      e.model.merge_patch(m);
      e.training.merge_patch(t);
      if (!m.empty()) e.model_where = w + ".model";
      if (!t.empty()) e.training_where = w + ".training";
    }
    entries.push_back(std::move(e));
  }

  // Grid: {"model.d_model": [64, 128], "training.lr": [...]} crossed with every variant.
  const json grid = j.value("grid", json::object());
  if (!grid.is_object()) throw Error("grid", "must be an object of \"section.key\": [values]");
  std::vector<std::pair<std::string, json>> axes;
  for (auto it = grid.begin(); it != grid.end(); ++it) {
    if (!it.value().is_array() || it.value().empty())
      throw Error("grid." + it.key(), "must be a non-empty list of values");
    axes.emplace_back(it.key(), it.value());
  }
  std::set<std::string> names;
  for (const Entry& e : entries) {
    size_t combos = 1;
    for (const auto& a : axes) combos *= a.second.size();
    for (size_t c = 0; c < combos; ++c) {
      json run = {{"model", e.model}, {"training", e.training}};
      std::string name = e.name;
      std::string suffix;
      size_t rest = c;
      for (const auto& [key, values] : axes) {
        const json& v = values[rest % values.size()];
        rest /= values.size();
        set_dotted(run, key, v, "grid." + key);
        suffix += (suffix.empty() ? "" : ",") + key.substr(key.find('.') + 1) + "=" + value_label(v);
      }
      if (!suffix.empty()) name += "/" + suffix;
      if (!names.insert(name).second) throw Error("variants", "two runs are named \"" + name + "\"");
      try {
        p.runs.push_back(
            resolve_run(p, run["model"], run["training"], name, e.model_where, e.training_where, dataspec, vocab));
      } catch (const Error& err) {
        if (suffix.empty()) throw;
        throw Error(err.where(), std::string(err.what()).substr(err.where().empty() ? 0 : err.where().size() + 2) +
                                     " (grid point " + suffix + ")");
      }
    }
  }
  return p;
}

Project load_project(const std::string& path) {
  fs::path file = path;
  if (fs::is_directory(file)) file /= "project.json";
  if (!fs::exists(file)) throw Error(file.string(), "no such file (a project is a folder with project.json)");
  std::ifstream in(file);
  if (!in) throw Error(file.string(), "cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  json j;
  try {
    j = json::parse(ss.str());
  } catch (const json::parse_error& e) {
    throw Error(file.string(), std::string("JSON syntax error: ") + e.what());
  }
  fs::path dir = fs::absolute(file).parent_path();
  try {
    return parse_project(j, dir.string(), file.string());
  } catch (const Error& e) {
    // Name the file as well as the field.
    throw Error(e.where(), std::string(e.what()).substr(e.where().empty() ? 0 : e.where().size() + 2) + " (in " +
                               file.string() + ")");
  }
}

}  // namespace pha::runtime
