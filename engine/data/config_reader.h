// Reads one JSON object section field by field, with errors that name the field
// ("data.split.valid") and what is allowed, and rejects unknown fields so typos do not pass
// silently. Every value read (including defaults) is recorded, so callers can report the exact
// parameters they ran with.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pha::data {

class ConfigReader {
 public:
  // `where` is the dotted path of this section, e.g. "data" or "task".
  ConfigReader(const nlohmann::json& section, std::string where);

  int64_t get_int(const std::string& key, int64_t def, int64_t lo, int64_t hi);
  int64_t require_int(const std::string& key, int64_t lo, int64_t hi);
  double get_double(const std::string& key, double def, double lo, double hi);
  bool get_bool(const std::string& key, bool def);
  std::string get_string(const std::string& key, const std::string& def);
  std::string require_string(const std::string& key);
  // A string from a fixed set of choices.
  std::string get_choice(const std::string& key, const std::string& def, const std::vector<std::string>& allowed);
  std::vector<std::string> get_string_list(const std::string& key);
  // A nested object (an empty object when absent); marks the key as known.
  nlohmann::json get_object(const std::string& key);
  bool has(const std::string& key) const;
  void ignore(const std::string& key) { known_.insert(key); }

  // Throws pha::Error naming the first field that is not known.
  void finish() const;

  std::string field(const std::string& key) const { return where_.empty() ? key : where_ + "." + key; }
  const nlohmann::json& used() const { return used_; }

 private:
  const nlohmann::json* find(const std::string& key);
  nlohmann::json section_;  // a copy: callers often pass temporaries
  std::string where_;
  std::set<std::string> known_;
  nlohmann::json used_ = nlohmann::json::object();
};

}  // namespace pha::data
