// Parsing of the "search" section (search_spec.h): each part in its own reader, every error at
// its full field path, every value in effect recorded in SearchSpec::used.
#include "search/search_spec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "core/config_reader.h"
#include "core/error.h"
#include "search/schedule.h"
#include "search/search_space.h"

namespace pha::search {

using json = nlohmann::json;

namespace {

const char* const kRangeForms = "a non-empty list of values, or {\"uniform\"|\"log_uniform\"|\"int\": [lo, hi]}";

std::string at_index(const std::string& where, size_t i) { return where + "[" + std::to_string(i) + "]"; }

// ---- space ---------------------------------------------------------------------------------

void check_space_key(const std::string& key, const std::string& where) {
  if (key.rfind("model.", 0) != 0 && key.rfind("training.", 0) != 0)
    throw core::Error(where, "unknown section; allowed: keys starting with \"model.\" or \"training.\"");
  for (const char* owned : {"model.layers", "model.n_layers", "model.variant"})
    if (key == owned || key.rfind(std::string(owned) + ".", 0) == 0)
      throw core::Error(where, "is set by the layer patterns; search them with search.patterns, not search.space");
  bool ok = key.back() != '.' && key.find("..") == std::string::npos;
  for (char c : key) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.');
  if (!ok) throw core::Error(where, "is not a field name; allowed: dotted names of letters, digits and '_' (\"training.lr\")");
}

bool integral(const json& v) {
  if (v.is_number_integer()) return true;
  return v.is_number_float() && std::isfinite(v.get<double>()) && std::floor(v.get<double>()) == v.get<double>();
}

Range read_bounds(const json& pair, const std::string& kind, const std::string& where) {
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_number())
    throw core::Error(where, "expected [lo, hi] (two numbers), got " + core::describe_json(pair));
  Range r;
  r.lo = pair[0].get<double>();
  r.hi = pair[1].get<double>();
  const std::string found = core::format_number(r.lo) + ", " + core::format_number(r.hi);
  if (!std::isfinite(r.lo) || !std::isfinite(r.hi)) throw core::Error(where, "[" + found + "]: allowed: finite numbers");
  if (kind == "int") {
    r.kind = Range::Kind::Int;
    const double limit = 9007199254740992.0;  // 2^53: exact as a double
    if (!integral(pair[0]) || !integral(pair[1]) || std::fabs(r.lo) > limit || std::fabs(r.hi) > limit)
      throw core::Error(where, "[" + found + "]: allowed: two integers lo <= hi");
    if (r.lo > r.hi) throw core::Error(where, "lo " + core::format_number(r.lo) + " > hi " + core::format_number(r.hi) + "; allowed: lo <= hi");
    return r;
  }
  r.kind = kind == "uniform" ? Range::Kind::Uniform : Range::Kind::LogUniform;
  if (r.lo >= r.hi) throw core::Error(where, "lo " + core::format_number(r.lo) + " >= hi " + core::format_number(r.hi) + "; allowed: lo < hi");
  if (kind == "log_uniform" && r.lo <= 0)
    throw core::Error(where, "lo " + core::format_number(r.lo) + " is out of range; allowed: lo > 0 (a log scale)");
  return r;
}

Range read_range(const json& v, const std::string& where) {
  if (v.is_array()) {
    if (v.empty()) throw core::Error(where, "is an empty list; allowed: " + std::string(kRangeForms));
    Range r;
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_number() && !v[i].is_string() && !v[i].is_boolean())
        throw core::Error(at_index(where, i), "expected a number, string or boolean, got " + core::describe_json(v[i]));
      if (std::find(r.choices.begin(), r.choices.end(), v[i]) != r.choices.end())
        throw core::Error(at_index(where, i), v[i].dump() + " is listed twice");
      r.choices.push_back(v[i]);
    }
    return r;
  }
  if (!v.is_object()) throw core::Error(where, "expected " + std::string(kRangeForms) + ", got " + core::describe_json(v));
  core::ConfigReader o(v, where, {"uniform", "log_uniform", "int"});
  std::vector<std::string> given;
  for (const char* k : {"uniform", "log_uniform", "int"})
    if (o.has(k)) given.push_back(k);
  if (given.size() != 1)
    throw core::Error(where, "has " + std::to_string(given.size()) + " of \"uniform\", \"log_uniform\", \"int\"; allowed: exactly one");
  return read_bounds(o.at(given[0]), given[0], o.field(given[0]));
}

json range_json(const Range& r) {
  switch (r.kind) {
    case Range::Kind::Choices: return r.choices;
    case Range::Kind::Uniform: return {{"uniform", {r.lo, r.hi}}};
    case Range::Kind::LogUniform: return {{"log_uniform", {r.lo, r.hi}}};
    case Range::Kind::Int: return {{"int", {static_cast<int64_t>(r.lo), static_cast<int64_t>(r.hi)}}};
  }
  return nullptr;
}

std::vector<SpaceKey> read_space(core::ConfigReader& r, json& used) {
  const json section = r.get_object("space");
  std::vector<SpaceKey> space;
  used = json::object();
  for (auto it = section.begin(); it != section.end(); ++it) {
    if (it->is_null()) continue;
    const std::string where = r.field("space") + "." + it.key();
    check_space_key(it.key(), where);
    for (const auto& k : space)
      if (it.key().rfind(k.key + ".", 0) == 0)
        throw core::Error(where, "lies inside \"" + k.key + "\"; allowed: one of the two, not both");
    space.push_back({it.key(), read_range(*it, where)});
    used[it.key()] = range_json(space.back().range);
  }
  return space;
}

// ---- patterns ------------------------------------------------------------------------------

std::vector<std::string> read_pattern(const json& v, const std::string& where) {
  if (!v.is_array() || v.empty() || v.size() > 64)
    throw core::Error(where, "expected a list of 1 to 64 layer kinds, got " + core::describe_json(v));
  std::vector<std::string> pattern;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) throw core::Error(at_index(where, i), "expected a layer kind, got " + core::describe_json(v[i]));
    pattern.push_back(normalise_layer_kind(v[i].get<std::string>(), at_index(where, i)));
  }
  return pattern;
}

void read_pattern_list(core::ConfigReader& o, PatternSpace& p) {
  for (const char* k : {"n_layers", "kinds", "attention", "first", "last", "symmetric", "max"})
    if (o.has(k)) throw core::Error(o.field(k), "cannot be combined with " + o.field("list") + "; allowed: one or the other");
  const json& list = o.at("list");
  if (!list.is_array() || list.empty())
    throw core::Error(o.field("list"), "expected a non-empty list of patterns, got " + core::describe_json(list));
  for (size_t i = 0; i < list.size(); ++i) {
    auto pattern = read_pattern(list[i], at_index(o.field("list"), i));
    const auto same = std::find(p.list.begin(), p.list.end(), pattern);
    if (same != p.list.end())
      throw core::Error(at_index(o.field("list"), i), "repeats list[" + std::to_string(same - p.list.begin()) + "]");
    p.list.push_back(std::move(pattern));
  }
}

void read_attention(core::ConfigReader& o, PatternSpace& p) {
  const int n = p.n_layers;
  if (o.has("attention") && o.at("attention").is_array()) {
    const auto mm = o.get_int_list("attention", {}, 0, n, 2, 2, "layers carrying attention");
    if (mm[0] > mm[1]) throw core::Error(o.field("attention"), "min " + std::to_string(mm[0]) + " > max " + std::to_string(mm[1]) + "; allowed: [min, max] with min <= max");
    p.min_attention = static_cast<int>(mm[0]), p.max_attention = static_cast<int>(mm[1]);
  } else if (o.has("attention")) {
    p.min_attention = p.max_attention = static_cast<int>(o.get_int("attention", 0, 0, n, "layers carrying attention"));
  } else {
    o.ignore("attention");
    p.min_attention = 0, p.max_attention = n;
  }
}

void read_pattern_constraints(core::ConfigReader& o, PatternSpace& p) {
  if (!o.has("n_layers")) throw core::Error(o.field("n_layers"), "is required; allowed: 1 to 64 (or give \"list\")");
  p.n_layers = static_cast<int>(o.get_int("n_layers", 0, 1, 64));
  if (!o.has("kinds")) throw core::Error(o.field("kinds"), "is required; allowed: a list of " + core::quoted_list(layer_kind_tokens()));
  const auto kinds = o.get_string_list("kinds");
  if (kinds.empty()) throw core::Error(o.field("kinds"), "is an empty list; allowed: a list of " + core::quoted_list(layer_kind_tokens()));
  for (size_t i = 0; i < kinds.size(); ++i) {
    const std::string kind = normalise_layer_kind(kinds[i], at_index(o.field("kinds"), i));
    if (std::find(p.kinds.begin(), p.kinds.end(), kind) != p.kinds.end())
      throw core::Error(at_index(o.field("kinds"), i), "\"" + kind + "\" is listed twice");
    p.kinds.push_back(kind);
  }
  read_attention(o, p);
  for (auto [key, out] : {std::pair{"first", &p.first}, std::pair{"last", &p.last}}) {
    const std::string kind = o.get_string(key, "");
    if (!kind.empty()) *out = normalise_layer_kind(kind, o.field(key));
  }
  p.symmetric = o.get_bool("symmetric", false);
  p.max = static_cast<int>(o.get_int("max", 0, 0, kMaxTrials, "0: all"));
}

PatternSpace read_patterns(core::ConfigReader& r, json& used) {
  PatternSpace p;
  used = nullptr;
  if (!r.has("patterns")) {
    r.ignore("patterns");
    return p;
  }
  core::ConfigReader o = r.object("patterns", {"n_layers", "kinds", "attention", "first", "last", "symmetric", "max", "list"});
  p.present = true;
  if (o.has("list")) {
    read_pattern_list(o, p);
    used = {{"list", p.list}};
    return p;
  }
  read_pattern_constraints(o, p);
  used = o.used();
  used["kinds"] = p.kinds;
  used["first"] = p.first.empty() ? json(nullptr) : json(p.first);
  used["last"] = p.last.empty() ? json(nullptr) : json(p.last);
  used["attention"] = {p.min_attention, p.max_attention};
  generate_patterns(p);  // throws when the constraints leave nothing, or too much without max
  return p;
}

// ---- budget, objectives, seeds, sampler, equal parameters ----------------------------------

Budget read_budget(core::ConfigReader& r, json& used) {
  if (!r.has("budget")) throw core::Error(r.field("budget"), "is required; allowed: {\"min\": ..., \"max\": ..., \"eta\": 3}");
  core::ConfigReader o = r.object("budget", {"resource", "min", "max", "eta", "brackets", "concurrency"});
  Budget b;
  b.resource = o.get_choice("resource", "steps", {"steps", "tokens", "flops"});
  for (const char* k : {"min", "max"})
    if (!o.has(k)) throw core::Error(o.field(k), "is required; allowed: a number > 0 (" + b.resource + ")");
  b.min = o.get_double("min", 0, 0, 1e30, true);
  b.max = o.get_double("max", 0, b.min, 1e30);
  b.eta = static_cast<int>(o.get_int("eta", 3, 2, 10));
  const int s_max = max_rung(b);
  b.brackets = static_cast<int>(o.get_int("brackets", 1, 1, s_max + 1,
                                          "min " + core::format_number(b.min) + ", max " + core::format_number(b.max) + ", eta " +
                                              std::to_string(b.eta) + ": floor(log_eta(max/min)) + 1 = " +
                                              std::to_string(s_max + 1) + " at most"));
  b.concurrency = static_cast<int>(o.get_int("concurrency", 1, 1, 64));
  used = o.used();
  return b;
}

Objective read_objective(const json& v, const std::string& where) {
  Objective o;
  std::string direction, metric_where = where;
  if (v.is_string()) {
    o.metric = v.get<std::string>();
  } else if (v.is_object()) {
    core::ConfigReader r(v, where, {"metric", "direction"});
    o.metric = r.require_string("metric");
    metric_where = r.field("metric");
    if (r.has("direction")) direction = r.get_choice("direction", "min", {"min", "max"});
  } else {
    throw core::Error(where, "expected a metric name (\"val/bpb\") or {\"metric\", \"direction\"}, got " + core::describe_json(v));
  }
  const core::MetricGoal table = core::metric_goal(o.metric);
  if (direction.empty()) {
    if (table == core::MetricGoal::None)
      throw core::Error(metric_where, "\"" + o.metric + "\" has no known direction (" +
                                    (core::find_metric(o.metric) ? "a measurement, not a quality" : "not in the metric table") +
                                    "); allowed: a metric of docs/metrics.md, or add \"direction\": \"min\" or \"max\"");
    o.goal = table;
    return o;
  }
  o.goal = direction == "min" ? core::MetricGoal::Minimize : core::MetricGoal::Maximize;
  if (table != core::MetricGoal::None && table != o.goal)
    throw core::Error(where + ".direction", "\"" + direction + "\" contradicts the metric table (" + o.metric + ": " +
                                          (table == core::MetricGoal::Minimize ? "lower" : "higher") + " is better)");
  return o;
}

std::vector<Objective> read_objectives(core::ConfigReader& r, json& used) {
  if (!r.has("objective"))
    throw core::Error(r.field("objective"), "is required; allowed: a metric (\"val/bpb\"), {\"metric\", \"direction\"} or a list of two");
  const json& v = r.at("objective");
  std::vector<Objective> out;
  if (!v.is_array()) {
    out.push_back(read_objective(v, r.field("objective")));
  } else {
    if (v.empty() || v.size() > 2)
      throw core::Error(r.field("objective"), "has " + std::to_string(v.size()) + " entries; allowed: 1 or 2 objectives");
    for (size_t i = 0; i < v.size(); ++i) out.push_back(read_objective(v[i], at_index(r.field("objective"), i)));
    if (out.size() == 2 && out[0].metric == out[1].metric)
      throw core::Error(at_index(r.field("objective"), 1), "\"" + out[1].metric + "\" is listed twice");
  }
  used = json::array();
  for (const auto& o : out) used.push_back({{"metric", o.metric}, {"direction", o.goal == core::MetricGoal::Minimize ? "min" : "max"}});
  return out;
}

void read_seeds(core::ConfigReader& r, SearchSpec& s, json& used) {
  if (!r.has("seeds") || !r.at("seeds").is_array()) {
    s.replicas = static_cast<int>(r.get_int("seeds", 1, 1, 100, "replicas per trial, or a list of seeds"));
    used = s.replicas;
    return;
  }
  const json& v = r.at("seeds");
  if (v.empty() || v.size() > 100) throw core::Error(r.field("seeds"), "has " + std::to_string(v.size()) + " entries; allowed: 1 to 100 seeds");
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_unsigned() && !(v[i].is_number_integer() && v[i].get<int64_t>() >= 0))
      throw core::Error(at_index(r.field("seeds"), i), "expected a non-negative integer, got " + core::describe_json(v[i]));
    const auto seed = v[i].get<uint64_t>();
    if (std::find(s.seeds.begin(), s.seeds.end(), seed) != s.seeds.end())
      throw core::Error(at_index(r.field("seeds"), i), std::to_string(seed) + " is listed twice");
    s.seeds.push_back(seed);
  }
  s.replicas = static_cast<int>(s.seeds.size());
  used = s.seeds;
}

Sampler read_sampler(core::ConfigReader& r, const Budget& budget, json& used) {
  core::ConfigReader o = r.object("sampler", {"kind", "seed", "trials"});
  Sampler s;
  s.kind = o.get_choice("kind", "grid", {"grid", "random"});
  if (s.kind == "grid") {
    for (const char* k : {"seed", "trials"})
      if (o.has(k)) throw core::Error(o.field(k), "applies to \"kind\": \"random\" only; a grid runs every combination");
  } else if (budget.brackets > 1) {
    if (o.has("trials"))
      throw core::Error(o.field("trials"), "is set by Hyperband (each bracket's n); allowed: absent when search.budget.brackets > 1");
  } else {
    if (!o.has("trials")) throw core::Error(o.field("trials"), "is required with \"kind\": \"random\"; allowed: 1 to " + std::to_string(kMaxTrials));
    s.trials = static_cast<int>(o.get_int("trials", 0, 1, kMaxTrials));
  }
  if (s.kind == "random") s.seed = static_cast<uint64_t>(o.get_int("seed", 0, 0, std::numeric_limits<int64_t>::max()));
  used = o.used();
  return s;
}

EqualParams read_equal_params(core::ConfigReader& r, json& used) {
  EqualParams e;
  used = nullptr;
  if (!r.has("equal_params")) {
    r.ignore("equal_params");
    return e;
  }
  core::ConfigReader o = r.object("equal_params", {"target", "preset", "tolerance"});
  if (o.has("target") == o.has("preset"))
    throw core::Error(o.path(), std::string(o.has("target") ? "has both" : "has neither") +
                              " \"target\" and \"preset\"; allowed: one of them (a parameter count, or a model preset)");
  if (o.has("target")) e.target = o.get_int("target", 0, 1, int64_t{10000000000000});
  if (o.has("preset")) e.preset = o.require_string("preset");
  if (o.has("preset") && e.preset.empty()) throw core::Error(o.field("preset"), "is empty; allowed: a model preset name");
  e.tolerance = o.get_double("tolerance", 0.03, 0.0, 0.5, true);
  e.enabled = true;
  used = o.used();
  return e;
}

PromotionRule read_promotion(core::ConfigReader& r, const SearchSpec& s, json& used) {
  core::ConfigReader o = r.object("promotion", {"rule", "alpha", "max_factor"});
  PromotionRule p;
  p.not_worse = o.get_choice("rule", "top", {"top", "not_worse"}) == "not_worse";
  for (const char* k : {"alpha", "max_factor"})
    if (!p.not_worse && o.has(k)) throw core::Error(o.field(k), "applies to \"rule\": \"not_worse\" only");
  p.alpha = o.get_double("alpha", 0.05, 0.0, 0.5, true);
  p.max_factor = o.get_double("max_factor", 2.0, 0.0, 100.0);
  if (p.max_factor > 0 && p.max_factor < 1)
    throw core::Error(o.field("max_factor"), core::format_number(p.max_factor) + " would promote fewer than the top; allowed: 0 (no cap) or 1 to 100");
  if (p.not_worse && s.replicas < 2)
    throw core::Error(o.field("rule"), "\"not_worse\" tests against the seed spread, which needs replicas; allowed: " +
                                     r.field("seeds") + " of 2 or more, or \"rule\": \"top\"");
  if (p.not_worse && s.objectives.size() != 1)
    throw core::Error(o.field("rule"), "\"not_worse\" compares one objective; allowed: \"top\" with two objectives");
  used = {{"rule", p.not_worse ? "not_worse" : "top"}};
  if (p.not_worse) used["alpha"] = p.alpha, used["max_factor"] = p.max_factor;
  return p;
}

void check_sampler_fits(const SearchSpec& s, core::ConfigReader& r) {
  if (s.space.empty() && !s.patterns.present)
    throw core::Error(r.field("space"), "is empty and there are no patterns; allowed: at least one key to vary, or search.patterns");
  if (s.budget.brackets > 1) hyperband_brackets(s.budget, 0);  // throws when a bracket is too large
  if (s.sampler.kind != "grid") return;
  if (s.budget.brackets > 1)
    throw core::Error(r.field("budget") + ".brackets", std::to_string(s.budget.brackets) +
                                                     " brackets (Hyperband) draw their own trials; allowed: 1 with a grid, or "
                                                     "\"sampler\": {\"kind\": \"random\"}");
  for (const auto& k : s.space)
    if (k.range.kind != Range::Kind::Choices)
      throw core::Error(r.field("space") + "." + k.key, "is a range; a grid needs a list of values (or \"sampler\": {\"kind\": \"random\"})");
  if (grid_size(s) > kMaxTrials)
    throw core::Error(r.field("sampler"), "a grid of more than " + std::to_string(kMaxTrials) + " trials; allowed: at most " +
                                        std::to_string(kMaxTrials) + " (use \"kind\": \"random\")");
}

}  // namespace

int max_rung(const Budget& b) {
  if (!(b.min > 0) || !(b.max >= b.min) || b.eta < 2) return 0;
  return static_cast<int>(std::floor(std::log(b.max / b.min) / std::log(static_cast<double>(b.eta)) + 1e-9));
}

SearchSpec SearchSpec::from_json(const json& section, const std::string& where) {
  try {
    core::ConfigReader r(section, where, {"space", "patterns", "budget", "objective", "seeds", "sampler", "equal_params", "promotion"});
    SearchSpec s;
    json u = json::object();
    s.space = read_space(r, u["space"]);
    s.patterns = read_patterns(r, u["patterns"]);
    s.budget = read_budget(r, u["budget"]);
    s.objectives = read_objectives(r, u["objective"]);
    read_seeds(r, s, u["seeds"]);
    s.sampler = read_sampler(r, s.budget, u["sampler"]);
    s.equal_params = read_equal_params(r, u["equal_params"]);
    s.promotion = read_promotion(r, s, u["promotion"]);
    check_sampler_fits(s, r);
    r.finish();
    s.used = std::move(u);
    return s;
  } catch (const core::Error& e) {
    if (where == "search") throw;
    core::rethrow_under(e, "search", where);  // the pattern checks of search_space.cpp name "search..."
  }
}

}  // namespace pha::search
