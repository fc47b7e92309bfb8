#include "search_section_file.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "data/file_io.h"
#include "runtime/project.h"
#include "runtime/project_files.h"

namespace pha::gui {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

runtime::LoadOptions browsing() {
  runtime::LoadOptions o;
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

SearchSectionFile readSearchSection(const std::string& projectDir) {
  const runtime::Project p = runtime::load_project(projectDir, browsing());
  SearchSectionFile out;
  out.section = p.search;
  for (const runtime::RunPlan& r : p.runs)
    if (std::find(out.variants.begin(), out.variants.end(), r.entry) == out.variants.end())
      out.variants.push_back(r.entry);
  if (!p.runs.empty()) {
    const json& cfg = p.runs.front().config;
    out.taskData = cfg.contains("data") && cfg["data"].value("kind", std::string()) == "task";
    out.training = p.runs.front().training.used;
  }
  return out;
}

void writeSearchSection(const std::string& projectDir, const json& section) {
  const std::string file = runtime::project_file_in(projectDir);
  ordered_json doc = parseFile(file, data::read_file(file));
  if (!doc.is_object()) throw Error(file, "expected a JSON object");
  if (section.is_null())
    doc.erase("search");
  else
    doc["search"] = ordered_json::parse(section.dump());
  try {
    runtime::parse_project(json(doc), projectDir, file, browsing());
  } catch (const Error& e) {
    throw Error(e.where(), message_of(e) + " (" + file + " is unchanged)");
  }
  data::write_file_atomic(file, {doc.dump(2), "\n"});
}

json defaultSearchSection(const SearchSectionFile& f) {
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

}  // namespace pha::gui
