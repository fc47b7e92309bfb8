// Project-folder operations shared by the window and the CLI: store path, templates, a project
// made from text, a variant added to project.json (kept as the user wrote it: the new entry is
// spliced into the text, and the result checked against the parsed edit).
#include "project/project_files.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "core/config_reader.h"
#include "core/error.h"
#include "core/json_syntax.h"
#include "data/file_io.h"
#include "core/process_stats.h"
#include "project/project.h"

#ifndef PHA_SOURCE_PROJECTS_DIR
#define PHA_SOURCE_PROJECTS_DIR ""
#endif

namespace pha::project {

using nlohmann::json;
using nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kProjectFile = "project.json";
constexpr const char* kStoreFile = "runs.sqlite";
constexpr const char* kCheckpointDir = "checkpoints";

// An absolute folder path without "." / ".." parts or a trailing separator.
fs::path clean_dir(const std::string& dir) {
  fs::path p = fs::absolute(dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p;
}

ordered_json parse_file(const std::string& file, const std::string& text) {
  try {
    return ordered_json::parse(text);
  } catch (const ordered_json::parse_error& e) {
    throw core::Error(file, "JSON syntax error, " + core::describe_json_syntax_error(text, e).text());
  } catch (const ordered_json::exception& e) {  // a number beyond double range (out_of_range 406)
    throw core::Error(file, std::string("not valid JSON: ") + e.what());
  }
}

// The names of a project file's variant entries; the implicit single run when it lists none.
std::vector<std::string> entry_names(const ordered_json& doc, const fs::path& dir) {
  const std::string project = doc.contains("name") && doc["name"].is_string() ? doc["name"].get<std::string>()
                                                                              : dir.filename().string();
  if (!doc.contains("variants") || doc["variants"].is_null()) return {project};
  std::vector<std::string> names;
  for (const auto& v : doc["variants"]) {
    if (v.is_string()) names.push_back(v.get<std::string>());
    if (v.is_object() && v.contains("name") && v["name"].is_string()) names.push_back(v["name"].get<std::string>());
  }
  return names;
}

// ---- splicing a variant into the text of project.json -------------------------------------

constexpr const char* kSpace = " \t\r\n";

// Offsets in the text of the top-level object's end ('}') and of its "variants" array's '['
// and ']' (npos when absent), found by a scan that steps over strings.
struct Layout {
  size_t object_end = std::string::npos;
  size_t variants_open = std::string::npos;
  size_t variants_close = std::string::npos;
};

Layout scan_layout(const std::string& t) {
  Layout l;
  int depth = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < t.size() && t[j] != '"') j += t[j] == '\\' ? 2 : 1;
      const size_t colon = t.find_first_not_of(kSpace, j + 1);
      if (depth == 1 && colon != std::string::npos && t[colon] == ':' && t.compare(i + 1, j - i - 1, "variants") == 0) {
        const size_t value = t.find_first_not_of(kSpace, colon + 1);
        if (value != std::string::npos && t[value] == '[') l.variants_open = value;
      }
      i = j;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 2 && c == ']' && l.variants_open != std::string::npos && l.variants_close == std::string::npos)
        l.variants_close = i;
      if (depth == 1 && c == '}' && l.object_end == std::string::npos) l.object_end = i;
      --depth;
    }
  }
  return l;
}

// The leading spaces of the line holding offset `at`.
std::string indent_of_line(const std::string& t, size_t at) {
  const size_t start = t.rfind('\n', at) == std::string::npos ? 0 : t.rfind('\n', at) + 1;
  const size_t end = t.find_first_not_of(" \t", start);
  return t.substr(start, (end == std::string::npos ? t.size() : end) - start);
}

std::string indented(const ordered_json& v, const std::string& indent) {
  std::string s = v.dump(2);
  for (size_t p = s.find('\n'); p != std::string::npos; p = s.find('\n', p + 1 + indent.size())) s.insert(p + 1, indent);
  return s;
}

// `text` with `entries` appended to its "variants" array (created when absent), in the file's
// own layout: one line per entry in a multi-line file, inline otherwise. "" when the layout is
// not one this understands (the caller then writes the parsed edit instead).
std::string splice_variants(const std::string& text, const ordered_json& entries) {
  const Layout l = scan_layout(text);
  const bool has_array = l.variants_close != std::string::npos;
  const size_t end = has_array ? l.variants_close : l.object_end;
  if (end == std::string::npos) return "";
  const size_t last = text.find_last_not_of(kSpace, end - 1);
  if (last == std::string::npos || text[last] == '[' || text[last] == '{') return "";
  const bool multiline = text.find('\n', has_array ? l.variants_open : 0) < end;
  const std::string indent = multiline ? indent_of_line(text, last) : "";
  std::string insert;
  if (has_array) {
    for (const auto& e : entries) insert += multiline ? ",\n" + indent + indented(e, indent) : ", " + e.dump();
  } else {
    const std::string inner = indent + "  ";
    insert = multiline ? ",\n" + indent + "\"variants\": [" : ", \"variants\": [";
    for (size_t i = 0; i < entries.size(); ++i)
      insert += (i ? "," : "") + (multiline ? "\n" + inner + indented(entries[i], inner) : (i ? " " : "") + entries[i].dump());
    insert += multiline ? "\n" + indent + "]" : "]";
  }
  return text.substr(0, last + 1) + insert + text.substr(last + 1);
}

// ---- replacing one value in the text of project.json --------------------------------------

// One past the end of the JSON value that starts at `i` (string, object, array or scalar).
size_t value_end(const std::string& t, size_t i) {
  if (i >= t.size()) return std::string::npos;
  if (t[i] == '"') {
    size_t j = i + 1;
    while (j < t.size() && t[j] != '"') j += t[j] == '\\' ? 2 : 1;
    return j < t.size() ? j + 1 : std::string::npos;
  }
  if (t[i] == '{' || t[i] == '[') {
    int depth = 0;
    for (size_t j = i; j < t.size(); ++j) {
      if (t[j] == '"') {
        const size_t e = value_end(t, j);
        if (e == std::string::npos) return e;
        j = e - 1;
      } else if (t[j] == '{' || t[j] == '[') {
        ++depth;
      } else if ((t[j] == '}' || t[j] == ']') && --depth == 0) {
        return j + 1;
      }
    }
    return std::string::npos;
  }
  const size_t e = t.find_first_of(",}] \t\r\n", i);
  return e == std::string::npos ? t.size() : e;
}

// The text range {begin, end} of member `key` of the object whose '{' is at `open`; npos when
// it has none (or the text is laid out in a way this does not follow).
std::pair<size_t, size_t> member_value(const std::string& t, size_t open, const std::string& key) {
  constexpr size_t npos = std::string::npos;
  size_t i = t.find_first_not_of(kSpace, open + 1);
  while (i != npos && t[i] == '"') {
    const size_t key_end = value_end(t, i);
    const size_t colon = key_end == npos ? npos : t.find_first_not_of(kSpace, key_end);
    if (colon == npos || t[colon] != ':') break;
    const size_t begin = t.find_first_not_of(kSpace, colon + 1);
    const size_t end = begin == npos ? npos : value_end(t, begin);
    if (end == npos) break;
    const json name = json::parse(t.substr(i, key_end - i), nullptr, /*allow_exceptions=*/false);
    if (name.is_string() && name.get<std::string>() == key) return {begin, end};
    i = t.find_first_not_of(kSpace, end);
    if (i == npos || t[i] != ',') break;
    i = t.find_first_not_of(kSpace, i + 1);
  }
  return {npos, npos};
}

// `text` with the value at dotted `field` ("data.path") replaced by `value`; "" when the field
// is not written in the file (the caller then writes the parsed edit).
std::string replace_value(const std::string& text, const std::string& field, const json& value) {
  size_t open = text.find_first_not_of(kSpace);
  if (open == std::string::npos || text[open] != '{') return "";
  std::pair<size_t, size_t> range{open, open};
  for (size_t start = 0; start <= field.size();) {
    const size_t dot = std::min(field.find('.', start), field.size());
    if (text[range.first] != '{') return "";
    range = member_value(text, range.first, field.substr(start, dot - start));
    if (range.first == std::string::npos) return "";
    start = dot + 1;
  }
  return text.substr(0, range.first) + value.dump() + text.substr(range.second);
}

}  // namespace

// ---- files of a project folder ------------------------------------------------------------

std::string project_file_in(const std::string& project_dir) { return project_dir + "/" + kProjectFile; }
std::string store_path_in(const std::string& project_dir) { return project_dir + "/" + kStoreFile; }
bool is_store_file(const std::string& file_name) { return file_name.rfind(kStoreFile, 0) == 0; }

// ---- templates ----------------------------------------------------------------------------

std::vector<std::string> template_dirs() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("PHA_PROJECTS_DIR"); env && *env) candidates.emplace_back(env);
  try {
    candidates.push_back(fs::path(core::self_executable()).parent_path() / ".." / "share" / "pha-workbench" / "projects");
  } catch (const core::Error&) {
    // No /proc/self/exe: only the other places.
  }
  if (*PHA_SOURCE_PROJECTS_DIR) candidates.emplace_back(PHA_SOURCE_PROJECTS_DIR);
  std::vector<std::string> dirs;
  for (const auto& c : candidates) {
    std::error_code ec;
    if (!fs::is_directory(c, ec)) continue;
    const std::string dir = fs::canonical(c, ec).string();
    if (!ec && std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  }
  return dirs;
}

std::vector<std::string> template_names() {
  std::set<std::string> names;
  for (const auto& dir : template_dirs()) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (fs::exists(e.path() / kProjectFile, ec)) names.insert(e.path().filename().string());
  }
  return {names.begin(), names.end()};
}

std::string find_template(const std::string& name) {
  const auto dirs = template_dirs();
  for (const auto& dir : dirs)
    if (fs::exists(fs::path(dir) / name / kProjectFile)) return (fs::path(dir) / name).string();
  std::string looked = "$PHA_PROJECTS_DIR, <program>/../share/pha-workbench/projects, the source tree's projects/";
  if (!dirs.empty()) {
    looked += "; existing: ";
    for (size_t i = 0; i < dirs.size(); ++i) looked += (i ? ", " : "") + dirs[i];
  }
  throw core::Error("projects/" + name, "project template not found (looked in " + looked + ")");
}

std::string copy_template(const std::string& name, const std::string& destination) {
  const fs::path src = find_template(name);
  const fs::path dest = clean_dir(destination);
  if (fs::exists(dest / kProjectFile)) throw core::Error(dest.string(), "already holds a project (project.json)");
  std::error_code ec;
  fs::create_directories(dest, ec);
  if (ec) throw core::Error(dest.string(), "cannot create the folder: " + ec.message());
  for (auto it = fs::recursive_directory_iterator(src); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = fs::relative(it->path(), src);
    const std::string top = rel.begin()->string();
    if (is_store_file(top) || top == kCheckpointDir) {  // results, never part of a template copy
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_directory()) {
      fs::create_directories(dest / rel, ec);
    } else if (!fs::copy_file(it->path(), dest / rel, ec) || ec) {
      throw core::Error((dest / rel).string(), "cannot copy the template file: " + ec.message());
    }
  }
  return dest.string();
}

std::string template_working_copy(const std::string& name, const std::string& destination, std::string* note) {
  const fs::path src = fs::path(find_template(name)) / kProjectFile;
  const fs::path dest = clean_dir(destination);
  const auto read_all = [](const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  std::string said;
  const bool exists = fs::exists(dest / kProjectFile);
  const bool stale = exists && read_all(dest / kProjectFile) != read_all(src);
  if (stale && !fs::exists(store_path_in(dest.string()))) {
    std::error_code ec;
    fs::remove(dest / kProjectFile, ec);
    if (ec) throw core::Error((dest / kProjectFile).string(), "cannot replace the older copy of the template: " + ec.message());
    copy_template(name, dest.string());
    said = "replaced " + (dest / kProjectFile).string() + ", an untrained copy of an older " + name +
           " template, with the current one (" + src.string() + ")";
  } else if (!exists) {
    copy_template(name, dest.string());
    said = "copied the template " + src.parent_path().string() + " to " + dest.string();
  } else if (stale) {
    said = (dest / kProjectFile).string() + " differs from the current template (" + src.string() +
           ") and has runs: it is used as it is; delete " + dest.string() + " for the current " + name;
  }
  if (note) *note = said;
  return dest.string();
}

// ---- new projects and variants ------------------------------------------------------------

std::string create_project_from_text(const std::string& text, const std::string& workspace) {
  const fs::path src = clean_dir(text);
  std::error_code ec;
  const bool folder = fs::is_directory(src, ec);
  if (!folder && !fs::is_regular_file(src, ec))
    throw core::Error(text, "no such file or folder; allowed: a text file or a folder of .txt files");
  const std::string base = folder ? src.filename().string() : src.stem().string();
  fs::path dest = clean_dir(workspace) / base;
  for (int i = 2; fs::exists(dest, ec); ++i) dest = clean_dir(workspace) / (base + "-" + std::to_string(i));

  const std::string template_file = project_file_in(find_template("quickstart"));
  ordered_json j = parse_file(template_file, data::read_file(template_file));
  ordered_json data = {{"kind", folder ? "folder" : "file"}, {"path", src.string()}};
  // A folder of a few files cannot be split by file; paragraphs always leave text in each split.
  if (folder) data["split"] = {{"rule", "hash"}, {"unit", "paragraph"}};
  if (j.contains("data") && j["data"].contains("tokenizer")) data["tokenizer"] = j["data"]["tokenizer"];
  j["data"] = data;
  j["name"] = base;
  j["description"] = "Trains the quickstart's variants on " + src.filename().string() + (folder ? "/*.txt" : "");
  parse_project(json(j), dest.string(), src.string());  // validate first: a refused project writes nothing
  const std::string out = j.dump(2) + "\n";
  data::write_file_atomic(project_file_in(dest.string()), {out});
  return dest.string();
}

std::string unique_variant_name(const std::string& project_dir, const std::string& base) {
  const fs::path dir = clean_dir(project_dir);
  const std::string file = project_file_in(dir.string());
  const auto names = entry_names(parse_file(file, data::read_file(file)), dir);
  auto taken = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  std::string name = base.empty() ? "custom" : base;
  for (int i = 2; taken(name); ++i) name = (base.empty() ? "custom" : base) + "-" + std::to_string(i);
  return name;
}

void add_variant(const std::string& project_dir, const std::string& name, const json& model, const json& training) {
  const fs::path dir = clean_dir(project_dir);
  const std::string file = project_file_in(dir.string());
  const std::string text = data::read_file(file);
  const ordered_json doc = parse_file(file, text);
  if (!doc.is_object()) throw core::Error(file, "expected a JSON object, got " + core::describe_json(json(doc)));
  const auto names = entry_names(doc, dir);
  const bool listed = doc.contains("variants") && doc["variants"].is_array();
  const std::string where = "variants[" + std::to_string(listed ? doc["variants"].size() : 1) + "].name";
  if (name.empty() || name.find('/') != std::string::npos)
    throw core::Error(where, "\"" + name + "\" is not allowed; allowed: a non-empty name without '/' (grid runs use it)");
  if (std::find(names.begin(), names.end(), name) != names.end())
    throw core::Error(where, "\"" + name + "\" is taken; allowed: a name not in " + core::quoted_list(names));

  ordered_json entries = ordered_json::array();
  if (!doc.contains("variants") || doc["variants"].is_null()) entries.push_back({{"name", names.front()}});
  // The model is named after its variant: a model edited from pha-tiny and added as
  // "pha-d64-l6" must not keep reporting itself as "pha-tiny" (model.name is what `pha model`,
  // checkpoints and profiles show).
  json named = model;
  if (named.is_object()) named["name"] = name;
  ordered_json variant = {{"name", name}, {"model", named}};
  if (!training.is_null()) variant["training"] = training;
  entries.push_back(variant);
  ordered_json edited = doc;
  if (!edited.contains("variants") || edited["variants"].is_null()) edited["variants"] = ordered_json::array();
  for (const auto& e : entries) edited["variants"].push_back(e);

  try {
    parse_project(json(edited), dir.string(), file);
  } catch (const core::Error& e) {
    throw core::Error(e.where(), core::message_of(e) + " (with the new variant \"" + name + "\"; " + file + " is unchanged)");
  }
  std::string out = splice_variants(text, entries);
  const json reread = json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (out.empty() || reread.is_discarded() || reread != json(edited)) out = edited.dump(2) + "\n";
  data::write_file_atomic(file, {out});
}

// ---- data that is not on this machine -----------------------------------------------------

Project relocate_data(const std::string& project_dir, const std::string& field, const std::string& path) {
  const fs::path dir = clean_dir(project_dir);
  const std::string file = project_file_in(dir.string());
  const std::string text = data::read_file(file);
  const ordered_json doc = parse_file(file, text);
  if (field != "data.path" && field != "data.tokenizer.dir")
    throw core::Error(field, "cannot be relocated; allowed: \"data.path\", \"data.tokenizer.dir\"");
  if (!doc.is_object() || !doc.contains("data") || !doc["data"].is_object() ||
      doc["data"].value("kind", std::string("gutenberg")) == "task")
    throw core::Error(file, "has no text data section to relocate (synthetic tasks need no data files)");
  if (path.empty()) throw core::Error(field, "the new location is empty; allowed: an existing file or folder");
  const std::string location = fs::absolute(path).lexically_normal().string();
  ordered_json edited = doc;
  if (field == "data.path") {
    edited["data"]["path"] = location;
  } else {
    if (!edited["data"].contains("tokenizer") || !edited["data"]["tokenizer"].is_object())
      throw core::Error("data.tokenizer", "is not an object with a \"dir\": nothing to relocate");
    edited["data"]["tokenizer"]["dir"] = location;
  }
  LoadOptions browse;
  browse.require_data = false;
  Project p;
  try {
    p = parse_project(json(edited), dir.string(), file, browse);
  } catch (const core::Error& e) {
    throw core::Error(e.where(), core::message_of(e) + " (with " + field + " = " + location + "; " + file + " is unchanged)");
  }
  for (const auto& m : p.missing_data)
    if (m.field == field) throw core::Error(field, "no usable data at " + location + ": " + m.message + " (" + file + " is unchanged)");
  std::string out = replace_value(text, field, json(location));
  const json reread = json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (out.empty() || reread.is_discarded() || reread != json(edited)) out = edited.dump(2) + "\n";
  data::write_file_atomic(file, {out});
  return p;
}

}  // namespace pha::project
