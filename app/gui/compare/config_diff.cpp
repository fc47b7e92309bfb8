#include "gui/compare/config_diff.h"

#include <map>

namespace pha::gui {

namespace {

bool isScalarArray(const nlohmann::json& value) {
  for (const auto& item : value)
    if (item.is_structured()) return false;
  return true;
}

void flattenInto(const nlohmann::json& value, const std::string& path,
                 std::vector<std::pair<std::string, nlohmann::json>>& out) {
  if (value.is_object() && !value.empty()) {
    for (auto it = value.begin(); it != value.end(); ++it)
      flattenInto(it.value(), path.empty() ? it.key() : path + "." + it.key(), out);
  } else if (value.is_array() && !value.empty() && !isScalarArray(value)) {
    for (std::size_t i = 0; i < value.size(); ++i)
      flattenInto(value[i], path + "[" + std::to_string(i) + "]", out);
  } else {
    out.emplace_back(path, value);
  }
}

}  // namespace

std::vector<std::pair<std::string, nlohmann::json>> flattenJson(const nlohmann::json& value) {
  std::vector<std::pair<std::string, nlohmann::json>> out;
  flattenInto(value, "", out);
  return out;
}

std::vector<DiffRow> diffConfigs(const std::vector<nlohmann::json>& configs) {
  // path -> per-config value; std::map keeps the rows sorted by path.
  std::map<std::string, std::vector<std::optional<nlohmann::json>>> table;
  for (std::size_t c = 0; c < configs.size(); ++c) {
    if (configs[c].is_null()) continue;  // no config (did not parse): absent everywhere
    for (auto& [path, value] : flattenJson(configs[c])) {
      auto& row = table[path];
      row.resize(configs.size());
      row[c] = std::move(value);
    }
  }
  std::vector<DiffRow> rows;
  for (auto& [path, values] : table) {
    bool same = true;
    for (const auto& v : values) {
      if (!v || !values.front() || *v != *values.front()) {
        same = false;
        break;
      }
    }
    if (!same) rows.push_back({path, std::move(values)});
  }
  return rows;
}

std::string diffCellText(const std::optional<nlohmann::json>& value) {
  return value ? value->dump() : std::string("(absent)");
}

}  // namespace pha::gui
