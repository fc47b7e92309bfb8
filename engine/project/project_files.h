// Operations on project folders that the window and the CLI share: where a project's run store
// is, finding and copying templates (one search order), creating a project from text, and
// adding a variant to project.json. Every project.json written is validated with the engine's
// own parser first and lands atomically (data::write_file_atomic): a refused change writes nothing.
// Plain C++, no torch, no Qt: the GUI includes this header. Format: docs/project-format.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "project/project.h"

namespace pha::project {

// ---- files of a project folder ------------------------------------------------------------

std::string project_file_in(const std::string& project_dir);  // <dir>/project.json
std::string store_path_in(const std::string& project_dir);    // <dir>/runs.sqlite (the run store)
// True for the run store and its SQLite side files (-wal, -shm, -journal): results, not settings.
bool is_store_file(const std::string& file_name);

// ---- templates ----------------------------------------------------------------------------

// The folders searched for templates, in order, those that exist:
//   1. $PHA_PROJECTS_DIR
//   2. <program dir>/../share/pha-workbench/projects   (an installed pha / pha-workbench)
//   3. the source tree's projects/                     (programs run from a build tree)
std::vector<std::string> template_dirs();
// Template names (folders holding a project.json) over every template folder, sorted; a name
// in an earlier folder hides the same name in a later one.
std::vector<std::string> template_names();
// The folder of template `name`: the first template folder holding <name>/project.json.
// core::Error listing where it looked otherwise.
std::string find_template(const std::string& name);
// Copies template `name` into `destination` (created; must not hold a project.json yet),
// without run stores or checkpoints. Returns the destination's absolute path.
std::string copy_template(const std::string& name, const std::string& destination);
// The working copy of template `name` at `destination` (the quickstart's, for `pha quickstart`
// and the window's default project): copied when missing; replaced by the current template when
// its project.json differs and it has no run store yet (a copy an older version made and never
// trained); kept as it is otherwise. `note` (may be null) says what was done: "" when the copy
// was current, else one sentence for the user. Returns the destination's absolute path.
std::string template_working_copy(const std::string& name, const std::string& destination, std::string* note);

// ---- new projects and variants ------------------------------------------------------------

// A new project in `workspace` that trains the quickstart template's variants on `text`: one
// text file (data kind "file") or a folder of .txt files (kind "folder", hash split by
// paragraph). Its folder is named after the file or folder ("-2", "-3", ... when taken).
// Validated before anything is written; returns the project folder.
std::string create_project_from_text(const std::string& text, const std::string& workspace);

// A variant name not yet used by the project's variants and runs: `base`, else base-2, ...
std::string unique_variant_name(const std::string& project_dir, const std::string& base);

// Appends {"name", "model", "training"} to project.json's "variants" (training may be null:
// the project's own). A project without "variants" gets its implicit run listed first
// ({"name": <project name>}), so its runs keep their names. The rest of the file is kept as
// written. Refused with a core::Error, writing nothing, when the name is taken, empty or holds
// '/' (grid run names use it), or the project with the new variant does not load.
void add_variant(const std::string& project_dir, const std::string& name, const nlohmann::json& model,
                 const nlohmann::json& training = nullptr);

// ---- data that is not on this machine -----------------------------------------------------

// Points a project at a local copy of its data: sets `field` ("data.path", or
// "data.tokenizer.dir": a MissingData::field of load_project with require_data = false) to the
// absolute form of `path` in project.json, the rest of the file kept as written. Validated
// first: the project must still load and `field`'s data must be usable at `path` (other missing
// data may remain: the returned project lists it). Refused with a core::Error naming the field,
// writing nothing, otherwise; written atomically.
Project relocate_data(const std::string& project_dir, const std::string& field, const std::string& path);

}  // namespace pha::project
