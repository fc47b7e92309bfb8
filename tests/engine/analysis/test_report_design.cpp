// What the design says before and around the data (report_design.cpp, report_stats.cpp), on
// synthetic stores with known values: equivalence and bounds by two one-sided tests (TOST) inside
// the correction; primary and secondary (exploratory) families; the family's m fixed by the
// design; "underpowered by design" for 5 seeds at m = 9; the baseline checks (head dimension,
// parameters apart, a bump in the learning-rate curve); the registration of the claims and design
// with its hash, and what changed after the data.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analysis/internal/multiplicity.h"
#include "analysis/report.h"
#include "data/sha256.h"
#include "engine/store/store_test_util.h"
#include "store/registration_store.h"
#include "store/run_writer.h"
#include "store/store.h"

namespace pa = pha::analysis;
namespace ps = pha::store;
using nlohmann::json;

namespace report_design_test {

// A finished replica of `group` with its final val/loss.
void write_value(ps::Store& store, const std::string& group, int64_t seed, double value, int64_t params = 1000) {
  ps::NewRun nr;
  nr.project = "study";
  nr.name = group + "/seed=" + std::to_string(seed);
  nr.group = group;
  nr.seed = seed;
  nr.n_params = params;
  const int64_t id = store.create_run(nr);
  ps::RunWriter w(store, id);
  w.metric("train/loss", 100, 100000, 0, value + 0.1);
  w.metric("val/loss", 100, 100000, 0, value);
  w.finish(ps::RunStatus::Finished);
}

void write_values(ps::Store& store, const std::string& group, const std::vector<double>& values) {
  for (size_t i = 0; i < values.size(); ++i) write_value(store, group, static_cast<int64_t>(i), values[i]);
}

struct Group {
  std::string name;
  int seeds = 5;
  int64_t params = 1000;
  int head_dim = 0, heads = 0, d_model = 0;
  std::string family = "hybrid";
};

pa::Study make_study(const std::vector<Group>& groups, const json& claims, bool task = false) {
  pa::Study s;
  s.project = "study";
  s.is_task = task;
  if (task) s.test_sets = {"test"};
  pa::ClaimContext ctx;
  ctx.is_task = task;
  for (const auto& g : groups) {
    ctx.runs.push_back(g.name);
    for (int seed = 0; seed < g.seeds; ++seed) {
      pa::StudyRun r;
      r.name = g.name + "/seed=" + std::to_string(seed);
      r.group = r.entry = r.variant = g.name;
      r.seed = seed;
      r.family = g.family;
      r.n_params = g.params;
      r.head_dim = g.head_dim;
      r.attention_heads = g.heads;
      r.d_model = g.d_model;
      s.runs.push_back(r);
    }
  }
  s.claims = pa::read_claims(claims, "claims", ctx);
  return s;
}

json lower(const std::string& better, const std::string& than, const json& extra = json::object()) {
  json c = {{"claim", "lower_is_better"}, {"metric", "val/loss"}, {"better", better}, {"than", than}};
  c.update(extra);
  return c;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// a - b per seed: {-0.01, 0.00, 0.01, -0.005, 0.005} (mean 0, sd 0.0079): far inside ±0.1, so
// both one-sided tests reject and the row is equivalent; the difference test does not.
TEST(Equivalence, TwoOneSidedTestsInsideTheCorrection) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  const std::vector<double> b = {2.00, 2.10, 2.05, 1.95, 2.02};
  std::vector<double> a = b;
  const std::vector<double> d = {-0.01, 0.00, 0.01, -0.005, 0.005};
  for (size_t i = 0; i < a.size(); ++i) a[i] += d[i];
  write_values(store, "a", a);
  write_values(store, "b", b);
  // c - b: about -0.11, clearly lower (better) and clearly more than the margin 0.02.
  std::vector<double> c = b;
  const std::vector<double> dc = {-0.10, -0.12, -0.11, -0.09, -0.13};
  for (size_t i = 0; i < c.size(); ++i) c[i] += dc[i];
  write_values(store, "c", c);
  const pa::Study s = make_study({{"a"}, {"b"}, {"c"}},
                                 json::array({lower("a", "b", {{"smallest_effect", 0.1}}),
                                              lower("c", "b", {{"smallest_effect", {{"value", 0.02}, {"from", "paper"}}}})}));
  const pa::Report r = pa::build_report(s, store);
  // The design: each margin claim is 3 tests (its difference and two one-sided margin tests).
  EXPECT_EQ(r.claims[0].planned_tests, 3u);
  EXPECT_EQ(r.family_size, 6u);
  EXPECT_EQ(r.family_tested, 6u);
  const pa::ClaimRow& eq = r.claims[0].rows.at(0);
  // By hand: mean 0, se = sd / sqrt(5); claimed side for lower_is_better is -effect.
  const pa::Stats sd = pa::summarize(d);
  const double se = sd.std / std::sqrt(5.0);
  EXPECT_NEAR(eq.p_margin_hi, pa::student_t_cdf((0.0 - 0.1) / se, 4), 1e-12);
  EXPECT_NEAR(eq.p_margin_lo, 1.0 - pa::student_t_cdf((0.0 + 0.1) / se, 4), 1e-12);
  EXPECT_NEAR(eq.tost_high, pa::student_t_quantile(0.95, 4) * se, 1e-12);
  // Holm over the six p-values of the family, in the report's order.
  const pa::ClaimRow& sm = r.claims[1].rows.at(0);
  const std::vector<double> raw = {eq.p, sm.p, eq.p_margin_hi, eq.p_margin_lo, sm.p_margin_hi, sm.p_margin_lo};
  const std::vector<double> adj = pa::holm_adjust(raw);
  EXPECT_NEAR(eq.p_margin_hi_adjusted, adj[2], 1e-12);
  EXPECT_NEAR(eq.p_margin_lo_adjusted, adj[3], 1e-12);
  EXPECT_NEAR(sm.p_margin_lo_adjusted, adj[5], 1e-12);
  EXPECT_EQ(eq.verdict, pa::Verdict::Equivalent) << eq.reason;
  EXPECT_EQ(r.claims[0].summary, "equivalent within ± 0.1");
  EXPECT_TRUE(contains(eq.reason, "lies inside ± 0.1: equivalent within ± 0.1")) << eq.reason;
  // c: the effect on the claimed side is +0.11, far beyond the paper's 0.02: it holds, and is not
  // "smaller than the paper's effect".
  EXPECT_EQ(sm.verdict, pa::Verdict::Holds) << sm.reason;
  EXPECT_FALSE(sm.p_margin_hi_adjusted < 0.05) << "an effect of 0.11 is not smaller than 0.02";
  const std::string md = pa::render_markdown(r);
  EXPECT_TRUE(contains(md, "equivalent within ± 0.1")) << md;
  EXPECT_TRUE(contains(md, "smallest effect of interest: the paper's effect, 0.02 on the claimed side")) << md;
  EXPECT_TRUE(contains(sm.reason, "lies beyond -0.02: the effect is larger than the paper's effect (0.02)")) << sm.reason;
  const json j = pa::report_json(r);
  EXPECT_EQ(j["claims"][0]["verdict_text"], "equivalent within ± 0.1");
  EXPECT_NEAR(j["claims"][0]["rows"][0]["margin"]["p_hi_adjusted"].get<double>(), adj[2], 1e-12);
}

// An effect that excludes the paper's effect but not 0 and not its opposite: "smaller than the
// paper's effect", with the interval that shows it; the same data without the correction's
// room (m larger) stays inconclusive.
TEST(Equivalence, SmallerThanThePapersEffect) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  // higher_is_better, hybrid - pure = {0.03, -0.06, 0.00, -0.09, 0.05}: mean -0.014, sd 0.0586,
  // se 0.0262: t_hi = (-0.014 - 0.1) / se = -4.35 (p 0.006), t_lo = (-0.014 + 0.1) / se = 3.28
  // (p 0.015), difference p 0.62.
  const std::vector<double> pure = {0.12, 0.11, 0.13, 0.14, 0.10};
  const std::vector<double> d = {0.03, -0.06, 0.00, -0.09, 0.05};
  std::vector<double> hybrid = pure;
  for (size_t i = 0; i < hybrid.size(); ++i) hybrid[i] += d[i];
  write_values(store, "hybrid", hybrid);
  write_values(store, "pure", pure);
  const json claim = {{"claim", "higher_is_better"}, {"metric", "val/loss"}, {"better", "hybrid"}, {"than", "pure"},
                      {"smallest_effect", {{"value", 0.1}, {"from", "paper"}}}};
  const pa::Report r = pa::build_report(make_study({{"hybrid"}, {"pure"}}, json::array({claim})), store);
  const pa::ClaimRow& row = r.claims[0].rows.at(0);
  const pa::Stats st = pa::summarize(d);
  const double se = st.std / std::sqrt(5.0);
  EXPECT_NEAR(row.p_margin_hi, pa::student_t_cdf((st.mean - 0.1) / se, 4), 1e-12);
  EXPECT_NEAR(row.p_margin_lo, 1.0 - pa::student_t_cdf((st.mean + 0.1) / se, 4), 1e-12);
  // Holm over {difference, hi, lo}: hi (0.006) x 3 < 0.05; lo (0.015) x 2 = 0.03 < 0.05 as well.
  ASSERT_LT(row.p_margin_hi_adjusted, 0.05);
  if (row.p_margin_lo_adjusted < 0.05) {
    EXPECT_EQ(row.verdict, pa::Verdict::Equivalent);
  } else {
    EXPECT_EQ(row.verdict, pa::Verdict::SmallerThanEffect);
  }
  // With the lower bound out of reach (an effect of -0.06 on the claimed side), only "smaller".
  ps::test::TempDir dir2;
  ps::Store store2 = ps::Store::open(dir2.file("runs.sqlite"));
  std::vector<double> worse = pure;
  for (size_t i = 0; i < worse.size(); ++i) worse[i] += d[i] - 0.05;
  write_values(store2, "hybrid", worse);
  write_values(store2, "pure", pure);
  const pa::Report r2 = pa::build_report(make_study({{"hybrid"}, {"pure"}}, json::array({claim})), store2);
  const pa::ClaimRow& row2 = r2.claims[0].rows.at(0);
  EXPECT_EQ(row2.verdict, pa::Verdict::SmallerThanEffect) << row2.reason;
  EXPECT_EQ(r2.claims[0].summary, "smaller than the paper's effect (0.1)");
  EXPECT_TRUE(contains(row2.reason, "does not reach 0.1: the effect is smaller than the paper's effect (0.1)")) << row2.reason;
  EXPECT_TRUE(contains(row2.reason, "90% interval")) << row2.reason;
}

// Secondary claims: corrected among themselves, printed after the primary ones, never "holds"
// without "exploratory"; the primary family's m counts the primary claims only.
TEST(ClaimRoles, SecondaryClaimsAreExploratoryAndOutsideThePrimaryFamily) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  write_values(store, "a", {1.0, 1.1, 1.2, 1.0, 1.1});
  write_values(store, "b", {2.0, 2.1, 2.2, 2.0, 2.1});
  write_values(store, "c", {3.0, 3.1, 3.2, 3.0, 3.1});
  const pa::Report r = pa::build_report(
      make_study({{"a"}, {"b"}, {"c"}}, json::array({lower("b", "c", {{"role", "secondary"}}), lower("a", "b"), lower("a", "c")})),
      store);
  EXPECT_EQ(r.family_size, 2u);
  EXPECT_EQ(r.secondary_size, 1u);
  EXPECT_EQ(r.claims[1].rows[0].adjustment, "Holm, m = 2");
  EXPECT_EQ(r.claims[0].rows[0].adjustment, "Holm among the exploratory tests, m = 1");
  EXPECT_EQ(r.claims[0].verdict, pa::Verdict::Holds);
  EXPECT_EQ(r.claims[0].summary, "holds (exploratory)");
  EXPECT_EQ(r.claims[1].summary, "holds");
  const std::string md = pa::render_markdown(r);
  const size_t primary = md.find("### 2. "), secondary_heading = md.find("## Secondary claims (exploratory)"),
               secondary = md.find("### 1. ");
  ASSERT_NE(secondary_heading, std::string::npos) << md;
  EXPECT_LT(primary, secondary_heading);
  EXPECT_LT(secondary_heading, secondary) << "the secondary claim is printed after the primary ones";
  EXPECT_TRUE(contains(md, "holds (exploratory)"));
  EXPECT_TRUE(contains(r.statistics, "the m = 2 tests of the primary claims")) << r.statistics;
  EXPECT_TRUE(contains(r.statistics, "Secondary (exploratory) claims: their 1 test is corrected among themselves (Holm, m = 1)"))
      << r.statistics;
  // The role is read and checked.
  pa::ClaimContext ctx;
  ctx.runs = {"a", "b"};
  try {
    pa::read_claims(json::array({lower("a", "b", {{"role", "main"}})}), "claims", ctx);
    ADD_FAILURE() << "accepted role main";
  } catch (const std::exception& e) {
    EXPECT_TRUE(contains(e.what(), "claims[0].role: \"main\" is not allowed; allowed: \"primary\", \"secondary\"")) << e.what();
  }
}

// A success-count claim with 5 seeds in a family of 9 cannot pass Holm's first step: even 5 of 5
// give score p 0.0253 > 0.05 / 9 = 0.0056; 8 seeds would (p 0.0047). Marked before a run and
// repeated in the report.
TEST(DesignPower, FiveSeedsAtMNineAreUnderpoweredByDesign) {
  std::vector<Group> groups = {{"small", 5, 2000, 0, 0, 0, "hybrid"}};
  json claims = json::array({{{"claim", "accuracy_at_params"}, {"family", "hybrid"}, {"max_params", 5000}, {"min_accuracy", 0.9}}});
  for (int i = 0; i < 8; ++i) {  // 8 comparisons: m = 9
    groups.push_back({"g" + std::to_string(i), 5, 2000, 0, 0, 0, "attention"});
    claims.push_back({{"claim", "higher_is_better"}, {"metric", "accuracy"}, {"better", "small"}, {"than", "g" + std::to_string(i)}});
  }
  const pa::Study s = make_study(groups, claims, /*task=*/true);
  std::size_t m = 0;
  for (const auto& c : s.claims) m += pa::planned_tests(s, c);
  EXPECT_EQ(m, 9u);
  const pa::DesignPower p = pa::design_power(s, s.claims[0], m);
  EXPECT_EQ(p.seeds, 5u);
  EXPECT_EQ(p.seeds_needed, 8u);
  EXPECT_TRUE(contains(p.underpowered, "underpowered by design: even 5 of 5 seeds on one side give score p 0.0253, not below "
                                       "alpha / m = 0.0056 (Holm's first step, m = 9)"))
      << p.underpowered;
  EXPECT_TRUE(contains(p.underpowered, "8 seeds per model would pass at Holm's first step")) << p.underpowered;
  // With 8 seeds it can.
  groups[0].seeds = 8;
  const pa::Study s8 = make_study(groups, claims, true);
  EXPECT_EQ(pa::design_power(s8, s8.claims[0], 9).underpowered, "");
  // A comparison with 2 seeds per side can never give a verdict.
  const pa::Study two = make_study({{"a", 2}, {"b", 2}}, json::array({lower("a", "b")}));
  EXPECT_TRUE(contains(pa::design_power(two, two.claims[0], 1).underpowered, "2 seeds per side; a verdict needs 3"));
  // The report repeats the mark on the claim.
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  const pa::Report r = pa::build_report(s, store);
  EXPECT_EQ(r.claims[0].underpowered, p.underpowered);
  EXPECT_TRUE(contains(pa::render_markdown(r), "underpowered by design: even 5 of 5 seeds"));
}

// Shapes a reviewer would not accept, each said with what to change; good shapes say nothing.
TEST(BaselineChecks, HeadDimensionParametersApartAndABumpInTheLearningRateCurve) {
  const pa::Study narrow = make_study({{"pha", 3, 56892, 6, 4, 24}, {"tpp", 3, 56664, 6, 4, 24}, {"gss", 3, 40000}},
                                      json::array({lower("pha", "tpp"), lower("pha", "gss")}));
  const auto w = pa::baseline_checks(narrow);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_TRUE(contains(w[0].text, "pha: attention head dimension 6 (d_model 24, 4 heads) is below 16")) << w[0].text;
  EXPECT_TRUE(contains(w[0].text, "Use fewer heads (1 head of 24)")) << w[0].text;
  EXPECT_TRUE(contains(w[2].text, "pha (56892 parameters) and gss (40000) are 29.7% apart, more than 3%")) << w[2].text;
  const pa::Study good = make_study({{"pha", 3, 56832, 24, 1, 24}, {"tpp", 3, 56664, 24, 1, 24}, {"small", 3, 2000, 4, 1, 4}},
                                    json::array({lower("pha", "tpp")}));
  EXPECT_TRUE(pa::baseline_checks(good).empty()) << "one head as wide as a d 4 model is not flagged";

  // The learning-rate curve 3.72, 3.76, 3.64, 3.68 (the ranking's Transformer++ at head dimension
  // 6, two seeds each): lr 0.006 is worse than both neighbours, by more than one standard error
  // of the difference from 0.012's.
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  pa::Study s;
  s.project = "study";
  const std::vector<std::pair<std::string, std::vector<double>>> curve = {
      {"lr=0.003", {3.7189, 3.7211}}, {"lr=0.006", {3.6849, 3.8407}}, {"lr=0.012", {3.5967, 3.6781}}, {"lr=0.024", {3.6508, 3.7112}}};
  for (const auto& [point, values] : curve)
    for (size_t seed = 0; seed < values.size(); ++seed) {
      pa::StudyRun r;
      r.group = "tpp/" + point;
      r.name = r.group + ",seed=" + std::to_string(seed);
      r.entry = r.variant = "tpp";
      r.tune_point = point;
      r.seed = static_cast<int64_t>(seed);
      s.runs.push_back(r);
      ps::NewRun nr;
      nr.project = "study";
      nr.name = r.name;
      nr.group = r.group;
      nr.seed = r.seed;
      const int64_t id = store.create_run(nr);
      ps::RunWriter wr(store, id);
      wr.metric("val/loss", 10, 1000, 0, values[seed]);
      wr.finish(ps::RunStatus::Finished);
    }
  s.tune.enabled = true;
  s.tune.select.text = s.tune.select.key = "val/loss";
  s.tune.axes = "training.lr";
  const pa::Report r = pa::build_report(s, store);
  ASSERT_EQ(r.shape_warnings.size(), 1u);
  EXPECT_TRUE(contains(r.shape_warnings[0].text, "tpp: its training.lr curve (3.7200, 3.7628, 3.6374, 3.6810) has a bump at "
                                                 "lr=0.006"))
      << r.shape_warnings[0].text;
  EXPECT_TRUE(contains(pa::render_markdown(r), "## Baseline checks"));
}

// The registration: recorded once with its hash (never replaced), read back by the report, which
// says whether it predates the runs and which claim or design field changed after the data.
TEST(Registration, HashTimeAndWhatChangedAfterTheData) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  const json claims = json::array({lower("a", "b"), lower("a", "c")});
  const json design = {{"claims", claims}, {"seeds", {0, 1, 2}}, {"training", {{"steps", 280}, {"lr", 0.003}}}};
  ps::Registration reg;
  reg.project = "study";
  reg.design_json = design.dump();
  reg.hash = pha::data::sha256_hex(reg.design_json);
  reg.registered_at = 1765000000000;
  ASSERT_TRUE(ps::register_design(store, reg));
  ps::Registration again = reg;
  again.design_json = "{}";
  EXPECT_FALSE(ps::register_design(store, again)) << "a registration is never replaced";
  const auto stored = ps::registration(store, "study");
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->hash, reg.hash);
  EXPECT_EQ(stored->hash.size(), 64u);
  EXPECT_EQ(stored->runs_before, 0);
  for (const char* g : {"a", "b", "c"}) write_values(store, g, {1.0, 1.1, 1.2});

  // Unchanged: registered before the first run, nothing changed.
  pa::Study s = make_study({{"a", 3}, {"b", 3}, {"c", 3}}, claims);
  s.design = design;
  pa::Report r = pa::build_report(s, store);
  EXPECT_TRUE(r.registration.present);
  EXPECT_EQ(r.registration.hash, reg.hash);
  EXPECT_TRUE(contains(r.registration.text, "(design sha256 " + reg.hash.substr(0, 12) + "), before the project's first run"))
      << r.registration.text;
  EXPECT_TRUE(r.registration.changes.empty());
  EXPECT_TRUE(r.claims[0].changed_after_data.empty());

  // Edited after the runs: a claim's "than", a training budget, a claim added and one removed.
  json now = design;
  now["claims"] = json::array({lower("a", "c"), lower("b", "c")});
  now["training"]["steps"] = 300;
  s = make_study({{"a", 3}, {"b", 3}, {"c", 3}}, now["claims"]);
  s.design = now;
  r = pa::build_report(s, store);
  ASSERT_EQ(r.registration.changes.size(), 1u);
  EXPECT_EQ(r.registration.changes[0], "training.steps: 280 -> 300");
  ASSERT_EQ(r.claims[0].changed_after_data.size(), 1u);
  EXPECT_EQ(r.claims[0].changed_after_data[0], "than: \"b\" -> \"c\"");
  EXPECT_EQ(r.claims[1].changed_after_data, (std::vector<std::string>{"better: \"a\" -> \"b\""}));
  const std::string md = pa::render_markdown(r);
  EXPECT_TRUE(contains(md, "changed after data: training.steps: 280 -> 300")) << md;
  EXPECT_TRUE(contains(md, "changed after data: than: \"b\" -> \"c\"")) << md;
  // A third claim added after the data, and a store whose runs predate its registration.
  now["claims"].push_back(lower("b", "a"));
  s = make_study({{"a", 3}, {"b", 3}, {"c", 3}}, now["claims"]);
  s.design = now;
  r = pa::build_report(s, store);
  EXPECT_EQ(r.claims[2].changed_after_data, (std::vector<std::string>{"added after data (not in the registration)"}));

  ps::test::TempDir late_dir;
  ps::Store late = ps::Store::open(late_dir.file("runs.sqlite"));
  write_values(late, "a", {1.0, 1.1, 1.2});
  ASSERT_TRUE(ps::register_design(late, reg));
  EXPECT_EQ(ps::registration(late, "study")->runs_before, 3);
  s.design = design;
  s.claims = make_study({{"a", 3}, {"b", 3}, {"c", 3}}, claims).claims;
  EXPECT_TRUE(contains(pa::build_report(s, late).registration.text, "after 3 runs of the project already existed"));
  // A store without a registration says so.
  ps::test::TempDir none_dir;
  ps::Store none = ps::Store::open(none_dir.file("runs.sqlite"));
  EXPECT_TRUE(contains(pa::build_report(s, none).registration.text, "Not registered"));
}

}  // namespace report_design_test
