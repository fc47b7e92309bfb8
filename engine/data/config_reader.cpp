#include "data/config_reader.h"

#include <cmath>

#include "core/error.h"

namespace pha::data {

ConfigReader::ConfigReader(const nlohmann::json& section, std::string where)
    : section_(section), where_(std::move(where)) {
  if (!section_.is_object() && !section_.is_null())
    throw Error(where_, "must be a JSON object, got " + std::string(section_.type_name()));
}

const nlohmann::json* ConfigReader::find(const std::string& key) {
  known_.insert(key);
  if (!section_.is_object()) return nullptr;
  auto it = section_.find(key);
  if (it == section_.end() || it->is_null()) return nullptr;
  return &*it;
}

bool ConfigReader::has(const std::string& key) const {
  return section_.is_object() && section_.contains(key) && !section_.at(key).is_null();
}

int64_t ConfigReader::get_int(const std::string& key, int64_t def, int64_t lo, int64_t hi) {
  const auto* v = find(key);
  int64_t x = def;
  if (v) {
    bool integral = v->is_number_integer() || (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>());
    if (!integral) throw Error(field(key), "must be an integer, got " + v->dump());
    x = v->is_number_float() ? static_cast<int64_t>(v->get<double>()) : v->get<int64_t>();
  }
  if (x < lo || x > hi)
    throw Error(field(key), "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                                std::to_string(x));
  used_[key] = x;
  return x;
}

int64_t ConfigReader::require_int(const std::string& key, int64_t lo, int64_t hi) {
  if (!has(key)) throw Error(field(key), "is required (an integer in [" + std::to_string(lo) + ", " +
                                             std::to_string(hi) + "])");
  return get_int(key, 0, lo, hi);
}

double ConfigReader::get_double(const std::string& key, double def, double lo, double hi) {
  const auto* v = find(key);
  double x = def;
  if (v) {
    if (!v->is_number()) throw Error(field(key), "must be a number, got " + v->dump());
    x = v->get<double>();
  }
  if (!(x >= lo && x <= hi))
    throw Error(field(key), "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                                std::to_string(x));
  used_[key] = x;
  return x;
}

bool ConfigReader::get_bool(const std::string& key, bool def) {
  const auto* v = find(key);
  bool x = def;
  if (v) {
    if (!v->is_boolean()) throw Error(field(key), "must be true or false, got " + v->dump());
    x = v->get<bool>();
  }
  used_[key] = x;
  return x;
}

std::string ConfigReader::get_string(const std::string& key, const std::string& def) {
  const auto* v = find(key);
  std::string x = def;
  if (v) {
    if (!v->is_string()) throw Error(field(key), "must be a string, got " + v->dump());
    x = v->get<std::string>();
  }
  used_[key] = x;
  return x;
}

std::string ConfigReader::require_string(const std::string& key) {
  if (!has(key)) throw Error(field(key), "is required (a string)");
  return get_string(key, "");
}

std::string ConfigReader::get_choice(const std::string& key, const std::string& def,
                                     const std::vector<std::string>& allowed) {
  std::string x = get_string(key, def);
  for (const auto& a : allowed)
    if (a == x) return x;
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + ("\"" + a + "\"");
  throw Error(field(key), "must be one of " + list + ", got \"" + x + "\"");
}

std::vector<std::string> ConfigReader::get_string_list(const std::string& key) {
  const auto* v = find(key);
  std::vector<std::string> out;
  if (!v) {
    used_[key] = nlohmann::json::array();
    return out;
  }
  if (!v->is_array()) throw Error(field(key), "must be a list of strings, got " + v->dump());
  for (const auto& e : *v) {
    if (!e.is_string()) throw Error(field(key), "must be a list of strings, got element " + e.dump());
    out.push_back(e.get<std::string>());
  }
  used_[key] = out;
  return out;
}

nlohmann::json ConfigReader::get_object(const std::string& key) {
  const auto* v = find(key);
  if (!v) return nlohmann::json::object();
  if (!v->is_object()) throw Error(field(key), "must be a JSON object, got " + v->dump());
  return *v;
}

void ConfigReader::finish() const {
  if (!section_.is_object()) return;
  for (auto it = section_.begin(); it != section_.end(); ++it) {
    if (known_.count(it.key()) == 0) {
      std::string list;
      for (const auto& k : known_) list += (list.empty() ? "" : ", ") + k;
      throw Error(field(it.key()), "unknown field (allowed: " + list + ")");
    }
  }
}

}  // namespace pha::data
