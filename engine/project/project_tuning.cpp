// Follow-up runs of the "tune" section: grid extension at the edge and confirmation seeds.
#include "project/project_tuning.h"

#include <cmath>
#include <filesystem>
#include <set>

#include "analysis/report.h"
#include "core/config_reader.h"
#include "core/error.h"
#include "core/limits.h"
#include "project/project_report.h"
#include "store/store.h"

namespace pha::project {

using nlohmann::json;

namespace {

// {"training": {"lr": v}} for "training.lr"; nested for "model.gss.state".
json patch_at(const std::string& key, const json& value) {
  json patch = value;
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) patch = json{{*it, patch}};
  return patch;
}

// The value at a dotted key of a run's config ({"model", "training", ...}); null when absent.
json value_at(const json& config, const std::string& key) {
  const json* at = &config;
  size_t start = 0;
  while (true) {
    const size_t dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object() || !at->contains(part)) return json();
    at = &(*at)[part];
    if (dot == std::string::npos) return *at;
    start = dot + 1;
  }
}

// "lr=0.003,weight_decay=0.1" with `key`'s label set to `label`.
std::string replace_in_point(const std::string& point, const std::string& key, const std::string& label) {
  const std::string name = key.substr(key.find('.') + 1) + "=";
  std::string out;
  size_t at = 0;
  while (at <= point.size()) {
    size_t end = point.find(',', at);
    if (end == std::string::npos) end = point.size();
    std::string part = point.substr(at, end - at);
    if (part.compare(0, name.size(), name) == 0) part = name + label;
    out += (out.empty() ? "" : ",") + part;
    at = end + 1;
  }
  return out;
}

std::string group_name(const RunPlan& like, const std::string& tune_point) {
  const std::string point = like.grid_point + (like.grid_point.empty() || tune_point.empty() ? "" : ",") + tune_point;
  return point.empty() ? like.entry : like.entry + "/" + point;
}

class Planner {
 public:
  Planner(const Project& project, TuningPlan& out) : p_(out.project), out_(out) {
    p_ = project;
    for (const auto& r : p_.runs) names_.insert(r.name);
  }

  // One pass over the tables; true when a run was added.
  bool pass(store::Store& store) {
    bool added = false;
    for (const analysis::TuningTable& t : analysis::tuning_tables(study_of(p_), store)) {
      if (!t.complete || t.chosen < 0) continue;
      const analysis::TuningSetting& chosen = t.settings[static_cast<size_t>(t.chosen)];
      bool extending = false;
      for (const analysis::TuneEdge& e : analysis::tuning_edges(p_.tune, t)) {
        if (e.direction == 0 || e.bounded) continue;
        extending = true;
        added = extend(t, e) || added;
      }
      if (!extending && !p_.tune.confirm_seeds.empty()) added = confirm(chosen.group) || added;
    }
    return added;
  }

 private:
  // The runs of `group` the file (or an extension) planned: the selection replicas. Copies:
  // adding runs moves the plan's vector.
  std::vector<RunPlan> selection_runs(const std::string& group) const {
    std::vector<RunPlan> out;
    for (const auto& r : p_.runs)
      if (r.group == group && r.origin != "confirmation") out.push_back(r);
    return out;
  }

  bool add(RunPlan plan) {
    if (names_.count(plan.name)) return false;
    if (p_.runs.size() + 1 > static_cast<size_t>(core::limits::kMaxRuns)) {
      if (!limited_) out_.notes.push_back("tune: not every follow-up run was planned: the project reached the limit of " +
                                          std::to_string(core::limits::kMaxRuns) + " runs");
      limited_ = true;
      return false;
    }
    names_.insert(plan.name);
    out_.added.push_back(plan.name);
    p_.runs.push_back(std::move(plan));
    return true;
  }

  // Every tried setting whose `e.key` is the chosen value, again at the next value.
  bool extend(const analysis::TuningTable& t, const analysis::TuneEdge& e) {
    bool added = false;
    for (const analysis::TuningSetting& s : t.settings) {
      const auto sources = selection_runs(s.group);
      if (sources.empty()) continue;
      const json value = value_at(sources.front().config, e.key);
      if (!value.is_number() || value.get<double>() != e.value) continue;
      const json next = value.is_number_integer() ? json(std::llround(e.next)) : json(e.next);
      const std::string label = next.dump();
      const std::string point = replace_in_point(s.tune_point, e.key, label);
      const std::string group = group_name(sources.front(), point);
      for (const RunPlan& src : sources) {
        const std::string name = group + src.name.substr(src.group.size());
        if (names_.count(name)) continue;
        RunPlan plan = patched_run(p_, src, patch_at(e.key, next), name, "tune.extend." + e.key);
        plan.group = group;
        plan.grid_point = src.grid_point;
        plan.tune_point = point;
        plan.origin = "extension";
        added = add(std::move(plan)) || added;
      }
    }
    return added;
  }

  // The chosen setting on every confirmation seed.
  bool confirm(const std::string& chosen_group) {
    const auto sources = selection_runs(chosen_group);
    if (sources.empty()) return false;
    const RunPlan src = sources.front();
    const std::string group = analysis::confirmation_group_of(chosen_group);
    bool added = false;
    for (int64_t seed : p_.tune.confirm_seeds) {
      const std::string name = group + ",seed=" + std::to_string(seed);
      if (names_.count(name)) continue;
      RunPlan plan = patched_run(p_, src, json{{"training", {{"seed", seed}}}}, name, "tune.confirm_seeds");
      plan.group = group;
      plan.grid_point = src.grid_point;
      plan.tune_point = src.tune_point;
      plan.origin = "confirmation";
      added = add(std::move(plan)) || added;
    }
    return added;
  }

  Project& p_;
  TuningPlan& out_;
  std::set<std::string> names_;
  bool limited_ = false;
};

std::string label_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

namespace detail {

// "extend": {"training.lr": [1e-4, 0.1]}: the tuned axes whose tried values grow past the edge
// the choice sits on, within the bounds (project/project_tuning.h).
void read_tune_extend(const json& section, const std::vector<std::pair<std::string, const TuneAxes*>>& lists_by_where,
                      analysis::TuneProtocol& protocol) {
  const json& ex = section["extend"];
  if (!ex.is_object() || ex.empty())
    throw core::Error("tune.extend", "expected {\"training.lr\": [lowest, highest], ...}: the bounds a tuned setting's values may "
                               "grow to while the choice is at their edge, got " + core::describe_json(ex));
  for (auto it = ex.begin(); it != ex.end(); ++it) {
    const std::string w = "tune.extend." + it.key();
    std::vector<std::pair<std::string, const json*>> lists;  // where, values
    std::set<std::string> tuned;
    for (const auto& [where, axes] : lists_by_where)
      for (const auto& [key, values] : *axes) {
        tuned.insert(key);
        if (key == it.key()) lists.emplace_back(where + "." + key, &values);
      }
    if (lists.empty())
      throw core::Error(w, "is not a tuned setting; allowed: " + core::quoted_list(std::vector<std::string>(tuned.begin(), tuned.end())));
    const json& b = it.value();
    if (!b.is_array() || b.size() != 2 || !b[0].is_number() || !b[1].is_number() || !(b[0].get<double>() < b[1].get<double>()))
      throw core::Error(w, "expected [lowest, highest] with lowest < highest: the bounds the values may grow to, got " + core::describe_json(b));
    const double lo = b[0].get<double>(), hi = b[1].get<double>();
    for (const auto& [where, values] : lists) {
      std::set<double> distinct;
      for (const json& v : *values) {
        if (!v.is_number())
          throw core::Error(where, "holds " + core::describe_json(v) + ", but " + w + " extends numbers only; allowed: numbers, or no extend");
        const double x = v.get<double>();
        if (x < lo || x > hi)
          throw core::Error(where, core::describe_json(v) + " lies outside " + w + " [" + label_of(b[0]) + ", " + label_of(b[1]) +
                                 "]; allowed: values within the bounds");
        distinct.insert(x);
      }
      if (distinct.size() < 2)
        throw core::Error(where, "has one value; " + w + " repeats the step between the last two values tried, so it needs at "
                           "least two distinct values");
      // The bounds leave room for at least one whole step beyond each end of the values tried:
      // a bound closer than that would stop the grid where it has not looked past its edge.
      const std::vector<double> v(distinct.begin(), distinct.end());
      for (int direction : {-1, 1}) {
        const double next = analysis::next_tune_value(v, direction, -1e300, 1e300);
        const bool inside = direction > 0 ? next <= hi * (1.0 + 1e-9) : next >= lo * (1.0 - 1e-9);
        if (std::isfinite(next) && !inside)
          throw core::Error(w, "[" + label_of(b[0]) + ", " + label_of(b[1]) + "] leaves no whole step beyond the " +
                             (direction > 0 ? "highest" : "lowest") + " value of " + where + " (the next one is " +
                             core::format_number(next) + "); allowed: bounds at least one grid step beyond the values tried, "
                             "e.g. " + (direction > 0 ? "a highest bound of " : "a lowest bound of ") + core::format_number(next) +
                             " or beyond");
      }
    }
    protocol.extend.push_back({it.key(), lo, hi});
  }
}

// "confirm_seeds": [10, 11, 12]: the fresh seeds the chosen setting is trained on again.
void read_confirm_seeds(const json& section, analysis::TuneProtocol& protocol) {
  const json& c = section["confirm_seeds"];
  if (!c.is_array() || c.empty())
    throw core::Error("tune.confirm_seeds", "expected a non-empty list of seeds [10, 11, 12], got " + core::describe_json(c));
  std::set<int64_t> seen;
  for (size_t i = 0; i < c.size(); ++i) {
    const std::string w = "tune.confirm_seeds[" + std::to_string(i) + "]";
    if (!c[i].is_number_integer() || c[i].get<int64_t>() < 0 || c[i].get<int64_t>() > (int64_t{1} << 53))
      throw core::Error(w, core::describe_json(c[i]) + " is not a seed; allowed: integers from 0 to 2^53");
    if (!seen.insert(c[i].get<int64_t>()).second) throw core::Error(w, "repeats seed " + c[i].dump() + "; allowed: distinct seeds");
    protocol.confirm_seeds.push_back(c[i].get<int64_t>());
  }
}

}  // namespace detail

bool has_tuning_followups(const Project& project) {
  return project.tune.enabled && (!project.tune.extend.empty() || !project.tune.confirm_seeds.empty());
}

TuningPlan plan_tuning_followups(const Project& project, store::Store& store) {
  TuningPlan out;
  if (!has_tuning_followups(project)) {
    out.project = project;
    return out;
  }
  Planner planner(project, out);
  // Each pass adds runs that are not trained yet, which makes their tables incomplete: two or
  // three passes reach the fixed point; the bound guards against a loop.
  for (int pass = 0; pass < 64 && planner.pass(store); ++pass) {
  }
  return out;
}

TuningPlan plan_tuning_followups(const Project& project) {
  if (!has_tuning_followups(project) || !std::filesystem::exists(project.store_path())) {
    TuningPlan out;
    out.project = project;
    return out;
  }
  store::Store store = store::Store::open(project.store_path());
  return plan_tuning_followups(project, store);
}

}  // namespace pha::project
