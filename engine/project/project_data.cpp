// project.json's "data" section: a text corpus (its files checked; missing ones listed for a browsing
// load or refused with the `pha data install` package that provides them) or
// synthetic tasks: a training task or a suite (Zoology's MQAR mixture and test sets), the
// held-out sets (default: the training task at seed + 10 with the suite's test size) and the
// length / OOD sweeps, each checked to be makeable before anything trains.
#include <algorithm>
#include <filesystem>

#include "core/config_reader.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/paths.h"
#include "data/text_source.h"
#include "data/tokenizer.h"
#include "data/data_install.h"
#include "project/project.h"
#include "project/internal/project_data.h"

namespace pha::project {

using nlohmann::json;

namespace detail {

std::unique_ptr<data::TaskGenerator> make_task_at(const json& config, const std::string& where) {
  try {
    return data::make_task(config);
  } catch (const core::Error& e) {
    core::rethrow_under(e, "task", where);
  }
}

}  // namespace detail

using detail::make_task_at;

namespace {

namespace fs = std::filesystem;

// A data check that failed: listed as missing (a load for browsing), else refused, saying how to
// install it when a data package provides it.
void data_unavailable(const core::Error& e, const std::string& field, const fs::path& path, const LoadOptions& options,
                      std::vector<MissingData>* missing) {
  const std::string package = data::package_providing(path);
  if (!options.require_data && missing) {
    missing->push_back({field, path.string(), e.what(), package});
    return;
  }
  if (package.empty()) throw e;
  throw core::Error(e.where(), core::message_of(e) + "; install it with `pha data install " + package + "`");
}

// A gpt2 / bpe tokenizer's files; its config errors are always refused.
void check_tokenizer(const json& tok, const std::string& where, const LoadOptions& options,
                     std::vector<MissingData>* missing) {
  try {
    data::make_tokenizer(tok, where);
  } catch (const core::Error& e) {
    const std::string kind = tok.is_object() && tok.contains("kind") && tok["kind"].is_string() ? tok["kind"].get<std::string>() : "";
    if (e.where().rfind(where, 0) == 0 || (kind != "gpt2" && kind != "bpe")) throw;
    const fs::path dir = tok.contains("dir") && tok["dir"].is_string() ? fs::path(tok["dir"].get<std::string>())
                                                                       : core::gpt2_tokenizer_dir();
    data_unavailable(e, where + ".dir", dir, options, missing);
  }
}

// data.test: a list of task configs with a "name"; each set is evaluated in full after training.
void read_test_tasks(DataSpec& d, core::ConfigReader& r, const data::TaskGenerator& train) {
  if (!r.has("test")) {
    r.ignore("test");
    // Default test set: the training task with seed + 10 (tasks-spec §2) and the suite's own
    // test size (MAD 1,280, others 1,000). Its stored name stays "test"; held_out_labels() says
    // what it is.
    json cfg = train.params();
    cfg["task"] = train.info().name;
    cfg["seed"] = cfg.value("seed", 0) + 10;
    cfg["num_examples"] = data::default_test_examples(train.info());
    make_task_at(cfg, r.field("train"));
    d.test_tasks.emplace_back("test", cfg);
    return;
  }
  const json& test = r.at("test");
  if (!test.is_array() || test.empty())
    throw core::Error(r.field("test"), "expected a non-empty list of {\"name\", \"task\", ...} objects, got " + core::describe_json(test));
  for (size_t i = 0; i < test.size(); ++i) {
    const std::string w = r.field("test") + "[" + std::to_string(i) + "]";
    if (!test[i].is_object()) throw core::Error(w, "expected an object {\"name\", \"task\", ...}, got " + core::describe_json(test[i]));
    if (!test[i].contains("name") || !test[i]["name"].is_string())
      throw core::Error(w + ".name", "is required (a string), got " + core::describe_json(test[i].value("name", json())));
    json cfg = test[i];
    cfg.erase("name");
    const int64_t n = make_task_at(cfg, w)->info().num_examples;
    if (n > core::limits::kMaxEvalExamples)
      core::ConfigReader::out_of_range(w + ".num_examples", std::to_string(n),
                                 "1 to " + std::to_string(core::limits::kMaxEvalExamples) + " for a test set", core::limits::kNote);
    d.test_tasks.emplace_back(test[i]["name"].get<std::string>(), cfg);
  }
}

}  // namespace

int DataSpec::max_train_seq_len() const {
  int T = 0;
  if (train_sets.empty()) return make_task_at(train_task, "data.train")->info().seq_len;
  for (const auto& [name, cfg] : train_sets) T = std::max(T, make_task_at(cfg, "data.suite")->info().seq_len);
  return T;
}

namespace {

// data.suite: "zoology" (or {"name": "zoology", "seed": 0, "vocab_size": 8192}) expands to
// Zoology's MQAR training mixture and its seven test sets (tasks-spec §2).
void read_suite(DataSpec& d, core::ConfigReader& r) {
  const json& v = r.at("suite");
  const std::string w = r.field("suite");
  json opts = v.is_string() ? json{{"name", v}} : v;
  if (!opts.is_object())
    throw core::Error(w, "expected \"zoology\" or {\"name\": \"zoology\", \"seed\", \"vocab_size\"}, got " + core::describe_json(v));
  core::ConfigReader sr(opts, w, {"name", "seed", "vocab_size"});
  d.suite = sr.get_choice("name", "zoology", {"zoology"});
  const uint64_t seed = static_cast<uint64_t>(sr.get_int("seed", 0, 0, int64_t{1} << 53));
  const int64_t vocab = sr.get_int("vocab_size", 8192, 4, 1 << 30);
  sr.finish();
  if (r.has("train"))
    throw core::Error(r.field("train"), "give either \"train\" or \"suite\"; the suite " + d.suite + " names its own training sets");
  auto with_vocab = [&](std::vector<data::TaskSet> sets, const std::string& where) {
    std::vector<std::pair<std::string, json>> out;
    for (auto& set : sets) {
      set.config["vocab_size"] = vocab;
      make_task_at(set.config, where + " (" + set.name + ")");  // e.g. V must exceed every set's T
      out.emplace_back(set.name, set.config);
    }
    return out;
  };
  d.train_sets = with_vocab(data::mqar_train_sets(seed), w);
  d.train_task = d.train_sets.front().second;
  if (!r.has("test")) d.test_tasks = with_vocab(data::mqar_test_sets(seed), w);
}

// data.sweeps / data.sweep_lengths: the length sweep must be able to remake the training task at
// every T (MQAR: T even, 4 kv <= T < V), checked here rather than after training.
void read_sweeps(DataSpec& d, core::ConfigReader& r) {
  for (const auto& s : r.get_choice_list("sweeps", {}, {"length", "ood"}, 0)) (s == "length" ? d.length_sweep : d.ood_sweep) = true;
  if (r.has("sweep_lengths")) {
    if (!d.length_sweep)
      throw core::Error(r.field("sweep_lengths"), "is the T list of the length sweep; add \"length\" to " + r.field("sweeps"));
    for (int64_t T : r.get_int_list("sweep_lengths", {}, 2, core::limits::kMaxSeqLen, 1, 64, core::limits::kNote))
      d.sweep_lengths.push_back(static_cast<int>(T));
  }
  if (d.length_sweep) {
    const std::vector<int>& lengths = d.sweep_lengths.empty() ? data::length_sweep_lengths() : d.sweep_lengths;
    for (size_t i = 0; i < lengths.size(); ++i) {
      try {
        data::length_generalization_sets(d.train_task, {lengths[i]});
      } catch (const core::Error& e) {
        const std::string where = d.sweep_lengths.empty() ? r.field("sweeps")
                                                          : r.field("sweep_lengths") + "[" + std::to_string(i) + "]";
        throw core::Error(where, "the length sweep cannot remake the training task at T = " + std::to_string(lengths[i]) + ": " +
                               e.what() + (d.sweep_lengths.empty() ? "; give data.sweep_lengths with valid T" : ""));
      }
    }
  }
  if (d.ood_sweep) {
    try {
      data::ood_bits_sets(d.train_task);
    } catch (const core::Error& e) {
      core::rethrow_under(e, "task", r.field("train"));
    }
  }
}

}  // namespace

DataSpec DataSpec::from_json(const json& section, const std::string& where) { return from_json(section, where, {}, nullptr); }

DataSpec DataSpec::from_json(const json& section, const std::string& where, const LoadOptions& options,
                             std::vector<MissingData>* missing) {
  if (!section.is_object())
    throw core::Error(where, "expected an object, got " + core::describe_json(section) +
                           "; allowed: a text corpus {\"kind\": \"file\", \"path\": ...} or tasks {\"kind\": \"task\", "
                           "\"train\": ...}");
  DataSpec d;
  d.section = section;
  core::ConfigReader r(section, where);
  const std::string kind = r.get_choice("kind", "gutenberg", {"wikitext", "folder", "file", "gutenberg", "task"});
  if (kind != "task") {
    // A text corpus: TextSource validates the section and checks that every file exists.
    // Missing files are listed (options.require_data false) or refused with how to install them.
    data::SourceConfig sc = data::SourceConfig::from_json(section, where);
    try {
      data::TextSource source(sc);
    } catch (const core::Error& e) {
      data_unavailable(e, where + ".path", sc.path, options, missing);
    }
    check_tokenizer(sc.tokenizer, where + ".tokenizer", options, missing);
    d.text = section;
    return d;
  }
  d.is_task = true;
  if (r.has("suite")) {
    read_suite(d, r);
  } else {
    if (!r.has("train"))
      throw core::Error(r.field("train"), "is required for kind \"task\"; allowed: a task config {\"task\": name, ...} "
                                    "(or \"suite\": \"zoology\" for the standard MQAR sets)");
    d.train_task = r.get_object("train");
  }
  auto train = make_task_at(d.train_task, r.field(d.suite.empty() ? "train" : "suite"));
  if (d.suite.empty() || r.has("test")) read_test_tasks(d, r, *train);
  read_sweeps(d, r);
  r.finish();
  return d;
}

}  // namespace pha::project
