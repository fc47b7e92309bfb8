#include "data/text_source.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/paths.h"
#include "core/config_reader.h"
#include "data/file_io.h"
#include "data/hash.h"
#include "data/internal/utf8.h"

namespace fs = std::filesystem;

namespace pha::data {

const char* split_name(Split s) {
  switch (s) {
    case Split::Train: return "train";
    case Split::Valid: return "valid";
    case Split::Test: return "test";
  }
  return "?";
}

Split parse_split(const std::string& name, const std::string& where) {
  if (name == "train") return Split::Train;
  if (name == "valid" || name == "validation") return Split::Valid;
  if (name == "test") return Split::Test;
  throw core::Error(where, "must be \"train\", \"valid\" or \"test\", got \"" + name + "\"");
}

SourceConfig SourceConfig::from_json(const nlohmann::json& section, const std::string& where) {
  core::ConfigReader r(section, where);
  SourceConfig c;
  c.kind = r.get_choice("kind", "gutenberg", {"wikitext", "folder", "file", "gutenberg"});
  if (c.kind == "gutenberg") c.path = r.get_string("path", core::gutenberg_dir().string());
  else c.path = r.require_string("path");
  c.tokenizer = r.has("tokenizer") ? r.get_object("tokenizer") : nlohmann::json{{"kind", "byte"}};
  c.eot_between_files = r.get_bool("eot_between_files", true);
  c.cache = r.get_bool("cache", true);
  c.cache_dir = r.get_string("cache_dir", core::cache_dir().string());

  core::ConfigReader s = r.object("split");
  const std::string default_rule = c.kind == "wikitext" ? "wikitext" : c.kind == "gutenberg" ? "files" : "hash";
  c.split.rule = s.get_choice("rule", default_rule, {"wikitext", "files", "hash"});
  if (c.split.rule == "wikitext" && c.kind != "wikitext")
    throw core::Error(s.field("rule"), "\"wikitext\" needs data.kind \"wikitext\"");
  if (c.kind == "wikitext" && c.split.rule != "wikitext")
    throw core::Error(s.field("rule"), "WikiText comes split; only \"wikitext\" is allowed");
  if (c.split.rule == "files" && c.kind == "file")
    throw core::Error(s.field("rule"), "a single file can only be split by \"hash\"");
  if (c.split.rule == "hash") {
    c.split.valid = s.get_double("valid", 0.05, 0.0, 1.0);
    c.split.test = s.get_double("test", 0.05, 0.0, 1.0);
    if (c.split.valid + c.split.test >= 1.0)
      throw core::Error(s.field("test"), core::format_number(c.split.test) + " with " + s.field("valid") + " = " +
                                       core::format_number(c.split.valid) + " leaves no training text; allowed: valid + test below 1");
    c.split.unit = c.kind == "file" ? "paragraph" : s.get_choice("unit", "file", {"file", "paragraph"});
  } else if (c.split.rule == "files") {
    const bool books = c.kind == "gutenberg";  // the installed corpus has a documented default split
    c.split.valid_files = s.get_string_list("valid_files", books ? std::vector<std::string>{"chesterton-thursday.txt"}
                                                                 : std::vector<std::string>{});
    c.split.test_files = s.get_string_list("test_files", books ? std::vector<std::string>{"austen-persuasion.txt"}
                                                               : std::vector<std::string>{});
    for (const auto& v : c.split.valid_files)
      if (std::find(c.split.test_files.begin(), c.split.test_files.end(), v) != c.split.test_files.end())
        throw core::Error(s.field("test_files"), "\"" + v + "\" is also in valid_files");
  }
  s.finish();
  r.finish();
  return c;
}

nlohmann::json SourceConfig::to_json() const {
  nlohmann::json split_json = {{"rule", split.rule}};
  if (split.rule == "hash") {
    split_json["valid"] = split.valid;
    split_json["test"] = split.test;
    split_json["unit"] = split.unit;
  } else if (split.rule == "files") {
    split_json["valid_files"] = split.valid_files;
    split_json["test_files"] = split.test_files;
  }
  return {{"kind", kind},           {"path", path.string()}, {"split", split_json},
          {"tokenizer", tokenizer}, {"eot_between_files", eot_between_files},
          {"cache", cache},         {"cache_dir", cache_dir.string()}};
}

namespace {

SourceFile stat_file(const fs::path& path, const std::string& relative) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw core::Error(path.string(), "file not found");
  if (!fs::is_regular_file(path, ec)) throw core::Error(path.string(), "not a regular file");
  SourceFile f;
  f.path = path;
  f.relative = relative;
  f.size = fs::file_size(path, ec);
  if (ec) throw core::Error(path.string(), "cannot read the size: " + ec.message());
  if (f.size == 0) throw core::Error(path.string(), "file is empty");
  f.mtime_ns = static_cast<int64_t>(fs::last_write_time(path, ec).time_since_epoch().count());
  return f;
}

}  // namespace

TextSource::TextSource(SourceConfig config) : config_(std::move(config)) {
  const fs::path& root = config_.path;
  std::error_code ec;
  if (config_.kind == "file") {
    files_.push_back(stat_file(root, root.filename().string()));
    return;
  }
  if (!fs::is_directory(root, ec)) throw core::Error(root.string(), "folder not found (data.path)");
  if (config_.kind == "wikitext") {
    for (const char* name : {"wiki.train.raw", "wiki.valid.raw", "wiki.test.raw"}) files_.push_back(stat_file(root / name, name));
    return;
  }
  for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) throw core::Error(root.string(), "cannot list the folder: " + ec.message());
    if (it->is_regular_file() && it->path().extension() == ".txt")
      files_.push_back(stat_file(it->path(), fs::relative(it->path(), root).generic_string()));
  }
  if (files_.empty()) throw core::Error(root.string(), "no .txt files in this folder");
  std::sort(files_.begin(), files_.end(), [](const SourceFile& a, const SourceFile& b) { return a.relative < b.relative; });
  if (config_.split.rule == "files") {
    for (const auto* list : {&config_.split.valid_files, &config_.split.test_files})
      for (const auto& name : *list)
        if (std::none_of(files_.begin(), files_.end(), [&](const SourceFile& f) { return f.relative == name; }))
          throw core::Error((root / name).string(), "named in data.split but not found");
  }
}

nlohmann::json TextSource::identity() const {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : files_) files.push_back({f.relative, f.size, f.mtime_ns});
  nlohmann::json cfg = config_.to_json();
  cfg.erase("cache");
  cfg.erase("cache_dir");
  return {{"config", cfg}, {"files", files}};
}

double split_bucket(std::string_view unit) { return static_cast<double>(fnv1a64(unit) % 1000000) / 1e6; }

std::vector<std::string_view> split_paragraphs(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0, i = 0;
  while (i < text.size()) {
    size_t nl = text.find('\n', i);
    if (nl == std::string_view::npos) break;
    // A blank line follows: swallow every following line that is empty or only \r.
    size_t j = nl + 1;
    bool blank = false;
    while (j < text.size() && (text[j] == '\n' || (text[j] == '\r' && j + 1 < text.size() && text[j + 1] == '\n'))) {
      j += text[j] == '\r' ? 2 : 1;
      blank = true;
    }
    if (blank) {
      out.push_back(text.substr(start, j - start));
      start = j;
    }
    i = j;
  }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

Split TextSource::split_of_file(const SourceFile& f) const {
  const auto& s = config_.split;
  if (s.rule == "wikitext") {
    if (f.relative == "wiki.valid.raw") return Split::Valid;
    if (f.relative == "wiki.test.raw") return Split::Test;
    return Split::Train;
  }
  if (s.rule == "files") {
    if (std::find(s.valid_files.begin(), s.valid_files.end(), f.relative) != s.valid_files.end()) return Split::Valid;
    if (std::find(s.test_files.begin(), s.test_files.end(), f.relative) != s.test_files.end()) return Split::Test;
    return Split::Train;
  }
  const double h = split_bucket(f.relative);
  return h < s.valid ? Split::Valid : h < s.valid + s.test ? Split::Test : Split::Train;
}

void TextSource::emit_paragraphs(std::string_view text, const Sink& sink) const {
  // Runs of consecutive paragraphs of the same split go out as one piece.
  auto paragraphs = split_paragraphs(text);
  const auto& s = config_.split;
  size_t run_begin = 0;
  Split run_split = Split::Train;
  for (size_t i = 0; i < paragraphs.size(); ++i) {
    const double h = split_bucket(paragraphs[i]);
    const Split sp = h < s.valid ? Split::Valid : h < s.valid + s.test ? Split::Test : Split::Train;
    if (i > 0 && sp != run_split) {
      const size_t off = static_cast<size_t>(paragraphs[run_begin].data() - text.data());
      const size_t end = static_cast<size_t>(paragraphs[i].data() - text.data());
      sink(run_split, text.substr(off, end - off), false);
      run_begin = i;
    }
    run_split = sp;
  }
  const size_t off = static_cast<size_t>(paragraphs[run_begin].data() - text.data());
  sink(run_split, text.substr(off), true);
}

std::vector<FileReadReport> TextSource::read(const Sink& sink) const {
  std::vector<FileReadReport> reports;
  for (const auto& f : files_) {
    std::string raw = read_file(f.path);
    if (raw.empty()) throw core::Error(f.path.string(), "file is empty");
    if (std::memchr(raw.data(), '\0', raw.size()) != nullptr)
      throw core::Error(f.path.string(), "contains NUL bytes: not a text file");
    DecodedText decoded = decode_utf8_latin1(raw);
    reports.push_back({f.relative, raw.size(), decoded.latin1_fallback});
    raw.clear();
    raw.shrink_to_fit();
    const bool by_paragraph = config_.split.rule == "hash" && config_.split.unit == "paragraph";
    if (by_paragraph) emit_paragraphs(decoded.text, sink);
    else sink(split_of_file(f), decoded.text, true);
  }
  return reports;
}

}  // namespace pha::data
