// project.json's "seeds" / "repeats" (each run becomes seeded replicas of one group), "claims"
// (analysis/claims.h) and "report" (analysis/report.h, ReportSettings), the top-level keys of
// studies (docs/project-format.md).
#include "project/project_replicas.h"

#include <algorithm>

#include "analysis/claims.h"
#include "analysis/report.h"
#include "core/error.h"
#include "core/limits.h"

namespace pha::runtime::detail {

// "seeds": [0, 1, 2] (the training seeds of every run's replicas) or "repeats": N (seeds
// training.seed + 0 .. N-1 of each run): each run becomes seeded replicas of one group.
void read_seeds(ConfigReader& r, Project& p) {
  if (r.has("seeds") && r.has("repeats"))
    throw Error("repeats", "is given with \"seeds\"; allowed: one of \"seeds\" (a list of training seeds) and "
                           "\"repeats\" (N seeds counted from training.seed)");
  if (r.has("seeds")) {
    const auto list = r.get_int_list("seeds", {}, 0, int64_t{1} << 53, 1, limits::kMaxReplicas, limits::kNote);
    for (size_t i = 0; i < list.size(); ++i) {
      const auto earlier = list.begin() + static_cast<std::ptrdiff_t>(i);
      if (std::find(list.begin(), earlier, list[i]) != earlier)
        throw Error("seeds[" + std::to_string(i) + "]",
                    std::to_string(list[i]) + " is listed twice; allowed: distinct seeds");
      p.seeds.push_back(static_cast<uint64_t>(list[i]));
    }
  } else if (r.has("repeats")) {
    const int64_t n = r.get_int("repeats", 1, 1, limits::kMaxReplicas, limits::kNote);
    for (int64_t i = 0; i < n; ++i) p.seeds.push_back(static_cast<uint64_t>(i));
    p.repeats = true;
  } else {
    r.ignore("seeds");
    r.ignore("repeats");
  }
}

namespace {

// Variant and group names, in project order: what a claim or the report's control may name.
std::vector<std::string> run_names_of(const Project& p) {
  std::vector<std::string> names;
  for (const RunPlan& plan : p.runs)
    for (const std::string* n : {&plan.entry, &plan.group})
      if (std::find(names.begin(), names.end(), *n) == names.end()) names.push_back(*n);
  return names;
}

}  // namespace

// "claims": checked against the runs the project has (variant and group names) and its data.
void read_project_claims(ConfigReader& r, Project& p, const DataSpec& dataspec) {
  if (!r.has("claims")) {
    r.ignore("claims");
    return;
  }
  analysis::ClaimContext ctx;
  ctx.is_task = dataspec.is_task;
  if (dataspec.is_task && !dataspec.test_tasks.empty()) ctx.first_test_set = dataspec.test_tasks.front().first;
  ctx.runs = run_names_of(p);
  p.claims = analysis::read_claims(r.at("claims"), "claims", ctx);
}

// "report": {"correction": "holm" | "dunnett" | "none", "alpha": 0.05, "power": 0.8,
//            "early_training_tokens_per_param": 20, "control": "<variant or group>"}.
void read_report_settings(ConfigReader& r, Project& p) {
  if (!r.has("report")) {
    r.ignore("report");
    return;
  }
  ConfigReader s = r.object("report", {"correction", "alpha", "power", "early_training_tokens_per_param", "control"});
  const std::string correction = s.get_choice("correction", "holm", analysis::correction_names());
  for (auto c : {analysis::Correction::Holm, analysis::Correction::Dunnett, analysis::Correction::None})
    if (correction == analysis::to_string(c)) p.report.correction = c;
  p.report.alpha = s.get_double("alpha", 0.05, 0.0, 0.5, /*lo_open=*/true);
  p.report.power = s.get_double("power", 0.8, 0.5, 0.999);
  p.report.early_tokens_per_param = s.get_double("early_training_tokens_per_param", 20.0, 0.0, 1e9);
  if (s.has("control")) {
    if (p.report.correction != analysis::Correction::Dunnett)
      throw Error("report.control", "names the control of Dunnett's comparisons; allowed only with \"correction\": "
                                    "\"dunnett\" (the correction here is \"" + correction + "\")");
    const std::vector<std::string> names = run_names_of(p);
    const std::string control = s.get_string("control", "");
    if (std::find(names.begin(), names.end(), control) == names.end())
      throw Error("report.control", "\"" + control + "\" is not allowed; allowed: " + quoted_list(names));
    p.report.control = control;
  }
  s.finish();
}

}  // namespace pha::runtime::detail
