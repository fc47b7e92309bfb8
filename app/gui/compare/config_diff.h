// ConfigDiff: flattens two or more JSON run configs into dotted paths and keeps only the paths
// whose values differ (a path missing from some configs counts as different). Plain C++ and
// nlohmann::json, no Qt, so it is tested on its own and reused by the run report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pha::gui {

// Leaf path -> value. Objects recurse with ".", arrays holding objects or arrays recurse with
// "[i]"; arrays of scalars stay one leaf (a layer pattern reads better whole). Empty objects
// and arrays are leaves ({} / []). A non-object root is one leaf with the path "".
std::vector<std::pair<std::string, nlohmann::json>> flattenJson(const nlohmann::json& value);

struct DiffRow {
  std::string path;
  // One entry per config, in the order given; nullopt where the path is absent.
  std::vector<std::optional<nlohmann::json>> values;
};

// Paths (sorted) whose values are not all equal and present. Numbers compare by value
// (1 == 1.0), as nlohmann::json does. A null config has no paths (all absent).
std::vector<DiffRow> diffConfigs(const std::vector<nlohmann::json>& configs);

// How a value is shown in the diff: JSON text (strings quoted), "(absent)" for nullopt.
std::string diffCellText(const std::optional<nlohmann::json>& value);

}  // namespace pha::gui
