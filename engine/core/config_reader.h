// The one reader of JSON config sections (model, data, tokenizer, task, training, profile, the
// project's top level). Every error is a core::Error whose `where` is the full field path
// ("variants[1].training.lr") and whose message says what was found and what is allowed:
//   model.n_layers: 0 is out of range; allowed: 1 to 1024
//   training.lr: expected a number, got a string ("fast")
//   model.attention.kv_head: unknown key; did you mean "kv_heads"?
//   training.device: "tpu" is not allowed; allowed: "auto", "cpu", "cuda"
// A key whose value is null counts as absent (its default applies). Every value read, defaults
// included, is recorded in used(), so a run can store the exact settings it ran with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pha::core {

// "a string (\"128\")", "an integer (3)", "an array", ...: what a config value is, for messages.
std::string describe_json(const nlohmann::json& value);
// "\"a\", \"b\"": the allowed values of a choice.
std::string quoted_list(const std::vector<std::string>& items);
// The name of `names` nearest to `name` by edit distance when it is a plausible typo (as the
// unknown-key message suggests: "did you mean \"kv_heads\"?"): at most `max_edits` edits
// (0: 2, or half the shorter name); "" when none is that close.
std::string nearest_name(const std::string& name, const std::vector<std::string>& names, size_t max_edits = 0);
// Shortest decimal form that reads back as the same double ("0.1", "1e-06").
std::string format_number(double value);

class ConfigReader {
 public:
  // Keys become known as they are read (or ignore()d); finish() rejects the others.
  ConfigReader(const nlohmann::json& section, std::string path);
  // Every key the section may hold, in documentation order: an unknown key is rejected here,
  // before any value is read, so a typo is the first error the user sees.
  ConfigReader(const nlohmann::json& section, std::string path, std::vector<std::string> keys);

  // Integers accept integral JSON numbers written as floats (1e5). Ranges are inclusive; `note`
  // (may be empty) is appended to an out-of-range message, e.g. where a limit is documented.
  int64_t get_int(const std::string& key, int64_t def, int64_t lo, int64_t hi, const std::string& note = "");
  int64_t require_int(const std::string& key, int64_t lo, int64_t hi);
  // [lo, hi], or (lo, hi] when lo_open; NaN and infinities are out of range.
  double get_double(const std::string& key, double def, double lo, double hi, bool lo_open = false);
  bool get_bool(const std::string& key, bool def);
  std::string get_string(const std::string& key, const std::string& def);
  std::string require_string(const std::string& key);
  std::string get_choice(const std::string& key, const std::string& def, const std::vector<std::string>& allowed);
  // Lists: absent keeps `def`; present must be a list; elements are checked one by one and an
  // error names the element ("profile.seq_lens[1]").
  std::vector<std::string> get_string_list(const std::string& key, const std::vector<std::string>& def = {});
  std::vector<std::string> get_choice_list(const std::string& key, const std::vector<std::string>& def,
                                           const std::vector<std::string>& allowed, size_t min_items = 1);
  std::vector<int64_t> get_int_list(const std::string& key, const std::vector<int64_t>& def, int64_t lo, int64_t hi,
                                    size_t min_items, size_t max_items, const std::string& note = "");
  // A nested object as a JSON value (an empty object when absent).
  nlohmann::json get_object(const std::string& key);
  // A reader of a nested object at path "<path>.<key>" (of an empty object when absent).
  ConfigReader object(const std::string& key, std::vector<std::string> keys = {});

  bool has(const std::string& key) const;
  // The raw value of a present key (marks it known).
  const nlohmann::json& at(const std::string& key);
  void ignore(const std::string& key);

  // Throws for the first key that was never read (lazy readers).
  void finish() const;

  std::string field(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  const std::string& path() const { return path_; }
  const nlohmann::json& used() const { return used_; }

  // The error for a number outside its range: "<found> is out of range; allowed: <allowed>".
  [[noreturn]] static void out_of_range(const std::string& where, const std::string& found,
                                        const std::string& allowed, const std::string& note = "");

 private:
  const nlohmann::json* find(const std::string& key);
  void know(const std::string& key);
  [[noreturn]] void unknown(const std::string& key) const;
  int64_t int_value(const nlohmann::json& v, const std::string& where, int64_t lo, int64_t hi,
                    const std::string& note) const;

  nlohmann::json section_;  // a copy: callers often pass temporaries
  std::string path_;
  std::vector<std::string> known_;  // in the order declared or read: listed in errors
  bool strict_ = false;
  nlohmann::json used_ = nlohmann::json::object();
};

}  // namespace pha::core
