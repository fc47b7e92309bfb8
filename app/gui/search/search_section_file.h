// The "search" section of a project's project.json, read and written for the Search view's
// form. The engine's project-file operations (runtime/project_files.h) add variants and
// relocate data but have no "set a section" operation yet; this one follows their rules: the
// edited file is validated by the engine's own parser first (runtime::parse_project, which
// runs runtime::check_search_section), so a refused section writes nothing and the pha::Error
// names the field ("search.budget.eta: ..."); the file lands atomically
// (data::write_file_atomic) with every other key kept, in its order. Plain C++: no Qt.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pha::gui {

struct SearchSectionFile {
  nlohmann::json section;             // null when the project has none
  std::vector<std::string> variants;  // the project's variant entries (search.variants' choices)
  bool taskData = false;              // a task project (accuracy objectives), else text (val/bpb)
  nlohmann::json training;            // the first run's resolved training section
};

// Loads the project (its data need not be on this machine). Throws pha::Error.
SearchSectionFile readSearchSection(const std::string& projectDir);
// Replaces (or, with null, removes) project.json's "search" section. Throws pha::Error, writing
// nothing, when the project with that section does not load.
void writeSearchSection(const std::string& projectDir, const nlohmann::json& section);
// A section to start from for a project that has none: its first variant's learning rate at
// a third, once and three times, over successive halving from about a ninth of training.steps
// to all of it (eta 3), on val/bpb (val/accuracy for task projects), one seed, grid sampler.
nlohmann::json defaultSearchSection(const SearchSectionFile& file);

}  // namespace pha::gui
