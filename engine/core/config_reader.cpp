// ConfigReader: typed, range-checked reads of one JSON object, unknown keys refused with the
// nearest known key suggested. The message shapes are listed in config_reader.h and
// docs/project-format.md ("Errors").
#include "core/config_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/error.h"

namespace pha::core {

using nlohmann::json;

namespace {

size_t levenshtein(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string int_range(int64_t lo, int64_t hi) { return std::to_string(lo) + " to " + std::to_string(hi); }

std::string element(const std::string& where, size_t i) { return where + "[" + std::to_string(i) + "]"; }

}  // namespace

std::string describe_json(const json& v) {
  std::string dumped = v.dump();
  if (dumped.size() > 40) {
    size_t cut = 37;  // not inside a UTF-8 sequence: the message may be stored as JSON later
    while (cut > 0 && (static_cast<unsigned char>(dumped[cut]) & 0xC0) == 0x80) --cut;
    dumped = dumped.substr(0, cut) + "...";
  }
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean (" + dumped + ")";
    case json::value_t::string:
      return "a string (" + dumped + ")";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer (" + dumped + ")";
    case json::value_t::number_float:
      return "a number (" + dumped + ")";
    case json::value_t::array:
      return v.empty() ? "an empty array" : "an array";
    case json::value_t::object:
      return "an object";
    default:
      return "a value of unsupported type";
  }
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", \"" : "\"") + items[i] + "\"";
  return out;
}

std::string format_number(double v) {
  for (int precision = 6; precision <= 17; ++precision) {
    std::ostringstream os;
    os.precision(precision);
    os << v;
    if (std::stod(os.str()) == v) return os.str();
  }
  return std::to_string(v);
}

ConfigReader::ConfigReader(const json& section, std::string path) : path_(std::move(path)) {
  if (!section.is_null() && !section.is_object())
    throw Error(path_, "expected an object, got " + describe_json(section));
  section_ = section.is_null() ? json::object() : section;
}

ConfigReader::ConfigReader(const json& section, std::string path, std::vector<std::string> keys)
    : ConfigReader(section, std::move(path)) {
  strict_ = true;
  known_ = std::move(keys);
  finish();
}

void ConfigReader::know(const std::string& key) {
  if (std::find(known_.begin(), known_.end(), key) == known_.end()) known_.push_back(key);
}

const json* ConfigReader::find(const std::string& key) {
  know(key);
  auto it = section_.find(key);
  if (it == section_.end() || it->is_null()) return nullptr;
  return &*it;
}

bool ConfigReader::has(const std::string& key) const {
  auto it = section_.find(key);
  return it != section_.end() && !it->is_null();
}

const json& ConfigReader::at(const std::string& key) {
  know(key);
  if (!has(key)) throw Error(field(key), "is required");
  return section_.at(key);
}

void ConfigReader::ignore(const std::string& key) { know(key); }

void ConfigReader::out_of_range(const std::string& where, const std::string& found, const std::string& allowed,
                                const std::string& note) {
  throw Error(where, found + " is out of range; allowed: " + allowed + (note.empty() ? "" : " (" + note + ")"));
}

int64_t ConfigReader::int_value(const json& v, const std::string& where, int64_t lo, int64_t hi,
                                const std::string& note) const {
  int64_t x = 0;
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      out_of_range(where, v.dump(), int_range(lo, hi), note);
    x = static_cast<int64_t>(v.get<uint64_t>());
  } else if (v.is_number_integer()) {
    x = v.get<int64_t>();
  } else if (v.is_number_float() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>()) {
    // 1e5 is an integer written as a float; compare as double first so a huge one cannot overflow.
    const double d = v.get<double>();
    if (d < static_cast<double>(lo) || d > static_cast<double>(hi)) out_of_range(where, v.dump(), int_range(lo, hi), note);
    x = static_cast<int64_t>(d);
  } else {
    throw Error(where, "expected an integer, got " + describe_json(v));
  }
  if (x < lo || x > hi) out_of_range(where, v.dump(), int_range(lo, hi), note);
  return x;
}

int64_t ConfigReader::get_int(const std::string& key, int64_t def, int64_t lo, int64_t hi, const std::string& note) {
  const json* v = find(key);
  int64_t x = def;
  if (v) {
    x = int_value(*v, field(key), lo, hi, note);
  } else if (x < lo || x > hi) {
    out_of_range(field(key), std::to_string(x) + " (the default)", int_range(lo, hi), note);
  }
  used_[key] = x;
  return x;
}

int64_t ConfigReader::require_int(const std::string& key, int64_t lo, int64_t hi) {
  if (!has(key)) throw Error(field(key), "is required; allowed: an integer from " + int_range(lo, hi));
  return get_int(key, 0, lo, hi);
}

double ConfigReader::get_double(const std::string& key, double def, double lo, double hi, bool lo_open) {
  const json* v = find(key);
  double x = def;
  if (v) {
    if (!v->is_number()) throw Error(field(key), "expected a number, got " + describe_json(*v));
    x = v->get<double>();
  }
  const bool below = lo_open ? !(x > lo) : !(x >= lo);
  if (!std::isfinite(x) || below || x > hi) {
    const std::string found = v ? v->dump() : format_number(x) + " (the default)";
    out_of_range(field(key), found, (lo_open ? "> " : ">= ") + format_number(lo) + " and <= " + format_number(hi));
  }
  used_[key] = x;
  return x;
}

bool ConfigReader::get_bool(const std::string& key, bool def) {
  const json* v = find(key);
  bool x = def;
  if (v) {
    if (!v->is_boolean()) throw Error(field(key), "expected true or false, got " + describe_json(*v));
    x = v->get<bool>();
  }
  used_[key] = x;
  return x;
}

std::string ConfigReader::get_string(const std::string& key, const std::string& def) {
  const json* v = find(key);
  std::string x = def;
  if (v) {
    if (!v->is_string()) throw Error(field(key), "expected a string, got " + describe_json(*v));
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
  const json* v = find(key);
  if (v && !v->is_string())
    throw Error(field(key), "expected a string, got " + describe_json(*v) + "; allowed: " + quoted_list(allowed));
  const std::string x = get_string(key, def);
  if (std::find(allowed.begin(), allowed.end(), x) == allowed.end())
    throw Error(field(key), "\"" + x + "\" is not allowed; allowed: " + quoted_list(allowed));
  return x;
}

std::vector<std::string> ConfigReader::get_string_list(const std::string& key, const std::vector<std::string>& def) {
  const json* v = find(key);
  std::vector<std::string> out = def;
  if (v) {
    if (!v->is_array()) throw Error(field(key), "expected a list of strings, got " + describe_json(*v));
    out.clear();
    for (size_t i = 0; i < v->size(); ++i) {
      const json& e = (*v)[i];
      if (!e.is_string()) throw Error(element(field(key), i), "expected a string, got " + describe_json(e));
      out.push_back(e.get<std::string>());
    }
  }
  used_[key] = out;
  return out;
}

std::vector<std::string> ConfigReader::get_choice_list(const std::string& key, const std::vector<std::string>& def,
                                                       const std::vector<std::string>& allowed, size_t min_items) {
  const bool given = has(key);
  std::vector<std::string> out = get_string_list(key, def);
  if (given && out.size() < min_items)
    throw Error(field(key), "is an empty list; allowed: a list of " + quoted_list(allowed));
  for (size_t i = 0; i < out.size(); ++i) {
    if (std::find(allowed.begin(), allowed.end(), out[i]) == allowed.end())
      throw Error(element(field(key), i), "\"" + out[i] + "\" is not allowed; allowed: " + quoted_list(allowed));
  }
  return out;
}

std::vector<int64_t> ConfigReader::get_int_list(const std::string& key, const std::vector<int64_t>& def, int64_t lo,
                                                int64_t hi, size_t min_items, size_t max_items, const std::string& note) {
  const json* v = find(key);
  std::vector<int64_t> out = def;
  if (v) {
    if (!v->is_array()) throw Error(field(key), "expected a list of integers, got " + describe_json(*v));
    const std::string allowed = std::to_string(min_items) + " to " + std::to_string(max_items) +
                                " integers, each from " + int_range(lo, hi);
    if (v->size() < min_items || v->size() > max_items)
      throw Error(field(key), "has " + std::to_string(v->size()) + " entries; allowed: " + allowed);
    out.clear();
    for (size_t i = 0; i < v->size(); ++i) out.push_back(int_value((*v)[i], element(field(key), i), lo, hi, note));
  }
  used_[key] = out;
  return out;
}

json ConfigReader::get_object(const std::string& key) {
  const json* v = find(key);
  if (!v) return json::object();
  if (!v->is_object()) throw Error(field(key), "expected an object, got " + describe_json(*v));
  return *v;
}

ConfigReader ConfigReader::object(const std::string& key, std::vector<std::string> keys) {
  const json value = get_object(key);
  return keys.empty() ? ConfigReader(value, field(key)) : ConfigReader(value, field(key), std::move(keys));
}

std::string nearest_name(const std::string& name, const std::vector<std::string>& names, size_t max_edits) {
  std::string best;
  size_t best_d = std::numeric_limits<size_t>::max();
  for (const auto& k : names) {
    const size_t d = levenshtein(name, k);
    if (d < best_d) best_d = d, best = k;
  }
  // Only a plausible typo: by default at most 2 edits, or half the shorter name.
  if (max_edits == 0) max_edits = std::max<size_t>(2, std::min(name.size(), best.size()) / 2);
  if (!best.empty() && best_d <= max_edits) return best;
  return "";
}

void ConfigReader::unknown(const std::string& key) const {
  // Suggest only a plausible typo; otherwise list every key of this object.
  if (const std::string best = nearest_name(key, known_); !best.empty())
    throw Error(field(key), "unknown key; did you mean \"" + best + "\"?");
  throw Error(field(key), "unknown key; allowed keys: " + quoted_list(known_));
}

void ConfigReader::finish() const {
  for (auto it = section_.begin(); it != section_.end(); ++it)
    if (std::find(known_.begin(), known_.end(), it.key()) == known_.end()) unknown(it.key());
}

}  // namespace pha::core
