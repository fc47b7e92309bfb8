// Tuned comparisons, verdicts at budgets and scaling fits in the report, on synthetic stores whose
// runs have known values: the tuning protocol chooses each family's best complete setting (a tie
// goes to the first listed, a failed setting is never chosen, an incomplete one holds the
// verdict back), a claim read at budgets gives one verdict per budget and the learning curves'
// crossing on tokens and on FLOPs where it was put, and the scaling section recovers a power law
// and its crossover.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "analysis/report.h"
#include "core/error.h"
#include "engine/store/store_test_util.h"
#include "store/run_writer.h"
#include "store/store.h"

namespace pa = pha::analysis;
namespace ps = pha::store;
using nlohmann::json;

namespace {

// One text replica: a val/loss (and test/loss) series at the given (step, tokens, value) points;
// the last point is the final value.
struct TextRun {
  std::string group;
  int64_t seed;
  std::vector<std::tuple<int64_t, int64_t, double>> val;  // step, tokens, val/loss
  ps::RunStatus status = ps::RunStatus::Finished;
  int64_t params = 1000;
  double test_offset = 0.05;
};

void write_text_run(ps::Store& store, const TextRun& t) {
  ps::NewRun nr;
  nr.project = "study";
  nr.name = t.group + ",seed=" + std::to_string(t.seed);
  nr.group = t.group;
  nr.seed = t.seed;
  nr.n_params = t.params;
  nr.config_json = R"({"training": {"steps": 100}})";
  const int64_t id = store.create_run(nr);
  ps::RunWriter w(store, id);
  for (const auto& [step, tokens, v] : t.val) {
    w.metric("val/loss", step, tokens, 0, v);
    w.metric("train/loss", step, tokens, 0, v - 0.1);
  }
  if (!t.val.empty()) {
    const auto& [step, tokens, v] = t.val.back();
    w.metric("test/loss", step, tokens, 0, v + t.test_offset);
  }
  w.finish(t.status);
}

// A finished replica whose only point is its final val/loss.
TextRun final_only(const std::string& group, int64_t seed, double v) { return {group, seed, {{100, 1000, v}}}; }

struct TunedPlanned {
  std::string entry, grid_point, tune_point, family;
  double flops_per_token = 0;
};

pa::Study study(const std::vector<TunedPlanned>& groups, const json& claims, bool tuned, int seeds = 2) {
  pa::Study s;
  s.project = "study";
  std::vector<std::string> names;
  for (const auto& g : groups) {
    std::string point = g.grid_point + (g.grid_point.empty() || g.tune_point.empty() ? "" : ",") + g.tune_point;
    const std::string group = point.empty() ? g.entry : g.entry + "/" + point;
    names.push_back(group);
    if (std::find(names.begin(), names.end(), g.entry) == names.end()) names.push_back(g.entry);
    for (int64_t seed = 0; seed < seeds; ++seed) {
      pa::StudyRun r;
      r.name = group + ",seed=" + std::to_string(seed);
      r.group = group;
      r.entry = g.entry;
      r.grid_point = g.grid_point;
      r.tune_point = g.tune_point;
      r.seed = seed;
      r.family = g.family;
      r.variant = g.entry;
      r.train_flops_per_token = g.flops_per_token;
      r.config = {{"training", {{"steps", 100}}}};
      s.runs.push_back(r);
    }
  }
  if (tuned) {
    s.tune.enabled = true;
    s.tune.select.text = s.tune.select.key = "val/loss";
    s.tune.axes = "training.lr";
  }
  pa::ClaimContext ctx;
  ctx.runs = names;
  s.claims = pa::read_claims(claims, "claims", ctx);
  return s;
}

const pa::TuningTable& table(const pa::Report& r, const std::string& entry) {
  for (const auto& t : r.tuning)
    if (t.entry == entry) return t;
  throw std::runtime_error("no tuning table for " + entry);
}

}  // namespace

TEST(TunedReport, EachFamilyIsComparedAtItsBestCompleteSetting) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  // a: lr=1 best (2.00, 2.02); lr=2 worse; lr=3 better still but one replica diverged: never chosen.
  for (int s = 0; s < 3; ++s) {  // three seeds: a side needs 3 for a verdict
    write_text_run(store, final_only("a/lr=1", s, 2.00 + 0.02 * s));
    write_text_run(store, final_only("a/lr=2", s, 2.30 + 0.02 * s));
    write_text_run(store, final_only("b/lr=1", s, 2.50 + 0.02 * s));  // b: lr=1 and lr=2 tie exactly
    write_text_run(store, final_only("b/lr=2", s, 2.50 + 0.02 * s));
  }
  write_text_run(store, final_only("a/lr=3", 0, 1.50));
  write_text_run(store, {"a/lr=3", 1, {{50, 500, 9.0}}, ps::RunStatus::Diverged});
  write_text_run(store, final_only("a/lr=3", 2, 1.52));
  const json claims = json::parse(R"([
    {"claim": "lower_is_better", "metric": "val/loss", "better": "a", "than": "b"},
    {"claim": "lower_is_better", "metric": "val/loss", "better": "a/lr=2", "than": "b/lr=2"}
  ])");
  const pa::Study s = study({{"a", "", "lr=1", "hybrid"}, {"a", "", "lr=2", "hybrid"}, {"a", "", "lr=3", "hybrid"},
                             {"b", "", "lr=1", "attention"}, {"b", "", "lr=2", "attention"}},
                            claims, true, 3);
  const pa::Report r = pa::build_report(s, store);
  ASSERT_EQ(r.tuning.size(), 2u);
  const pa::TuningTable& ta = table(r, "a");
  ASSERT_EQ(ta.settings.size(), 3u);
  EXPECT_EQ(ta.chosen, 0) << "lr=1 has the lowest mean among complete settings";
  EXPECT_TRUE(ta.complete);
  EXPECT_NEAR(ta.settings[0].select.mean, 2.02, 1e-12);
  EXPECT_NEAR(ta.settings[0].test.mean, 2.07, 1e-12) << "the test split is reported";
  EXPECT_EQ(ta.settings[2].status.rfind("failed", 0), 0u) << ta.settings[2].status;
  EXPECT_FALSE(ta.settings[2].chosen) << "a setting with a diverged replica is never chosen, whatever its mean";
  EXPECT_NE(ta.note.find("at the edge"), std::string::npos) << "lr=1 is the lowest value tried: " << ta.note;
  const pa::TuningTable& tb = table(r, "b");
  EXPECT_EQ(tb.chosen, 0) << "a tie goes to the setting listed first";
  EXPECT_NE(tb.note.find("at the edge of the values tried"), std::string::npos) << tb.note;

  // The claim compares a/lr=1 with b/lr=1 and says it is tuned; test figures are shown, not judged.
  const pa::ClaimReport& c = r.claims.at(0);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].measured.at(0).label, "a/lr=1");
  EXPECT_EQ(c.rows[0].measured.at(1).label, "b/lr=1");
  EXPECT_NEAR(c.rows[0].effect, 2.02 - 2.52, 1e-12);
  EXPECT_EQ(c.verdict, pa::Verdict::Holds) << c.rows[0].reason;
  EXPECT_EQ(c.rows[0].test.text, "paired by seed, n=3");
  EXPECT_EQ(c.tuning.rfind("tuned:", 0), 0u) << c.tuning;
  ASSERT_EQ(c.rows[0].measured.size(), 4u);
  EXPECT_NE(c.rows[0].measured[2].label.find("test/loss"), std::string::npos);
  // A claim naming settings in full compares them as they are.
  EXPECT_EQ(r.claims.at(1).rows.at(0).measured.at(0).label, "a/lr=2");

  const std::string md = pa::render_markdown(r);
  EXPECT_NE(md.find("## Tuning"), std::string::npos);
  EXPECT_NE(md.find("**chosen**"), std::string::npos);
  EXPECT_NO_THROW(json::parse(pa::render_report(r, "json")));
}

TEST(TunedReport, AnIncompleteSettingHoldsTheVerdictBackAndUntunedClaimsSaySo) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  for (int s = 0; s < 2; ++s) {
    write_text_run(store, final_only("a/lr=1", s, 2.00 + 0.02 * s));
    write_text_run(store, final_only("b/lr=1", s, 2.50 + 0.02 * s));
  }
  write_text_run(store, final_only("b/lr=2", 0, 2.10));  // seed 1 not trained yet
  const json claims = json::parse(R"([{"claim": "lower_is_better", "metric": "val/loss", "better": "a", "than": "b"}])");
  const pa::Report r = pa::build_report(
      study({{"a", "", "lr=1", "hybrid"}, {"b", "", "lr=1", "attention"}, {"b", "", "lr=2", "attention"}}, claims, true),
      store);
  const pa::TuningTable& tb = table(r, "b");
  EXPECT_FALSE(tb.complete);
  EXPECT_EQ(tb.settings[1].status, "incomplete: 1 of 2 replicas finished");
  EXPECT_NE(tb.note.find("lr=2 (1 of 2)"), std::string::npos) << tb.note;
  const pa::ClaimReport& c = r.claims.at(0);
  EXPECT_EQ(c.verdict, pa::Verdict::Inconclusive) << "b's best setting may be the one still training";
  EXPECT_NE(c.rows.at(0).reason.find("tuning incomplete"), std::string::npos) << c.rows.at(0).reason;

  // No setting of b complete at all: none can be chosen.
  ps::test::TempDir dir2;
  ps::Store store2 = ps::Store::open(dir2.file("runs.sqlite"));
  for (int s = 0; s < 2; ++s) write_text_run(store2, final_only("a/lr=1", s, 2.0 + 0.01 * s));
  write_text_run(store2, {"b/lr=1", 0, {{50, 500, 9.0}}, ps::RunStatus::Failed});
  write_text_run(store2, final_only("b/lr=1", 1, 2.0));
  const pa::Report r2 =
      pa::build_report(study({{"a", "", "lr=1", "hybrid"}, {"b", "", "lr=1", "attention"}}, claims, true), store2);
  EXPECT_EQ(table(r2, "b").chosen, -1);
  EXPECT_NE(table(r2, "b").note.find("no setting"), std::string::npos) << table(r2, "b").note;
  EXPECT_EQ(r2.claims.at(0).verdict, pa::Verdict::Inconclusive);

  // The same comparison without a "tune" section says it is untuned in its verdict line.
  ps::test::TempDir dir3;
  ps::Store store3 = ps::Store::open(dir3.file("runs.sqlite"));
  for (int s = 0; s < 3; ++s) {
    write_text_run(store3, final_only("a", s, 2.0 + 0.01 * s));
    write_text_run(store3, final_only("b", s, 2.5 + 0.01 * s));
  }
  const pa::Report r3 =
      pa::build_report(study({{"a", "", "", "hybrid"}, {"b", "", "", "attention"}}, claims, false, 3), store3);
  EXPECT_TRUE(r3.tuning.empty());
  EXPECT_EQ(r3.claims.at(0).verdict, pa::Verdict::Holds);
  EXPECT_EQ(r3.claims.at(0).tuning.rfind("untuned:", 0), 0u) << r3.claims.at(0).tuning;
  EXPECT_NE(pa::render_markdown(r3).find("(untuned:"), std::string::npos);
}

TEST(BudgetVerdicts, OneVerdictPerBudgetAndTheCurvesCrossWhereTheyDo) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  // a starts worse and ends better: a - b = 0.3 at 100 tokens, -0.3 at 300; linear in between,
  // so the curves cross at 200 tokens. b spends twice a's FLOPs per token.
  for (int s = 0; s < 3; ++s) {
    const double e = 0.01 * s;
    write_text_run(store, {"a", s, {{1, 100, 3.3 + e}, {2, 200, 3.0 + e}, {3, 300, 2.7 + e}}});
    write_text_run(store, {"b", s, {{1, 100, 3.0 + e}, {2, 200, 3.0 + e}, {3, 300, 3.0 + e}}});
  }
  const json claims = json::parse(R"([
    {"claim": "lower_is_better", "metric": "val/loss", "better": "a", "than": "b", "at": {"tokens": [100, 150, 250, 400]}},
    {"claim": "lower_is_better", "metric": "val/loss", "better": "a", "than": "b", "at": {"steps": [3]}}
  ])");
  const pa::Report r =
      pa::build_report(study({{"a", "", "", "hybrid", 10.0}, {"b", "", "", "attention", 20.0}}, claims, false, 3), store);
  const pa::ClaimReport& c = r.claims.at(0);
  ASSERT_EQ(c.rows.size(), 4u);
  EXPECT_EQ(c.rows[0].verdict, pa::Verdict::DoesNotHold);
  EXPECT_NEAR(c.rows[0].effect, 0.3, 1e-12);
  EXPECT_NEAR(c.rows[1].effect, 0.15, 1e-12) << "150 tokens: halfway between the evaluations at 100 and 200";
  EXPECT_EQ(c.rows[2].verdict, pa::Verdict::Holds);
  EXPECT_NEAR(c.rows[2].effect, -0.15, 1e-12);
  EXPECT_EQ(c.rows[3].verdict, pa::Verdict::TooFewReplicas) << "400 tokens: beyond every run's last evaluation";
  EXPECT_TRUE(std::isnan(c.rows[3].p)) << "no value, no test";
  EXPECT_EQ(r.family_size, 5u) << "the design's 5 rows: the one without a value counts as not rejected";
  EXPECT_EQ(r.family_tested, 4u);
  EXPECT_EQ(c.rows[0].budget.tokens, 100) << "at a tokens budget, the budget itself";
  EXPECT_EQ(c.rows[3].budget.tokens, 300) << "never more than the runs trained";
  EXPECT_NE(c.rows[3].reason.find("at this budget"), std::string::npos) << c.rows[3].reason;
  EXPECT_EQ(c.verdict, pa::Verdict::Mixed);
  EXPECT_NE(c.summary.find("of 4 budgets"), std::string::npos) << c.summary;
  ASSERT_EQ(c.crossings.size(), 2u);
  EXPECT_EQ(c.crossings[0].axis, "tokens");
  ASSERT_EQ(c.crossings[0].at.size(), 1u);
  EXPECT_NEAR(c.crossings[0].at[0], 200.0, 1e-9);
  EXPECT_EQ(c.crossings[0].better_at_end, "a");
  // On FLOPs a's curve runs over 1000..3000 and b's over 2000..6000; on the common range
  // 2000..3000 a starts level with b (3.0 at 2000 FLOPs) and falls below it: a start at
  // d = 0 is not a crossing, so there is none, and a is better at the end.
  EXPECT_EQ(c.crossings[1].axis, "flops");
  EXPECT_NEAR(c.crossings[1].lo, 2000.0, 1e-9);
  EXPECT_NEAR(c.crossings[1].hi, 3000.0, 1e-9);
  EXPECT_TRUE(c.crossings[1].at.empty());
  EXPECT_EQ(c.crossings[1].better_at_end, "a");
  EXPECT_EQ(r.claims.at(1).rows.at(0).verdict, pa::Verdict::Holds);
  EXPECT_NEAR(r.claims.at(1).rows.at(0).effect, -0.3, 1e-12);
  const std::string md = pa::render_markdown(r);
  EXPECT_NE(md.find("on tokens: cross at 200 tokens"), std::string::npos) << md;
}

TEST(BudgetVerdicts, AClaimEarlyAtSomeBudgetsOnlySaysWhichShare) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  for (int s = 0; s < 3; ++s) {
    const double e = 0.01 * s;
    for (const char* g : {"a", "b"}) {
      TextRun t{g, s, {{1, 100, 3.0 + e}, {2, 300, (g[0] == 'a' ? 2.5 : 2.8) + e}}};
      t.params = 10;  // 100 tokens: 10 tokens per parameter (early); 250: 25 (not)
      write_text_run(store, t);
    }
  }
  const json claims = json::parse(R"([
    {"claim": "lower_is_better", "metric": "val/loss", "better": "a", "than": "b", "at": {"tokens": [100, 250]}},
    {"claim": "lower_is_better", "metric": "val/loss", "better": "a", "than": "b", "at": {"tokens": [100]}}
  ])");
  const pa::Report r =
      pa::build_report(study({{"a", "", "", "hybrid", 10.0}, {"b", "", "", "attention", 10.0}}, claims, false, 3), store);
  EXPECT_TRUE(r.claims.at(0).rows.at(0).budget.early);
  EXPECT_FALSE(r.claims.at(0).rows.at(1).budget.early);
  EXPECT_EQ(r.claims.at(0).early, "early training (10 tokens/parameter < 20) at 1 of 2 budgets");
  EXPECT_EQ(r.claims.at(1).early, "early training (10 tokens/parameter < 20)") << "every budget early: no share";
}

TEST(BudgetVerdicts, BadBudgetsAreErrorsNamingTheField) {
  pa::ClaimContext ctx;
  ctx.runs = {"a", "b"};
  auto read = [&](const char* at) {
    return pa::read_claims(json::parse(std::string(R"([{"claim": "lower_is_better", "metric": "val/loss", "better": "a", "than": "b", "at": )") +
                                       at + "}]"),
                           "claims", ctx);
  };
  EXPECT_EQ(read(R"({"tokens": [1e5, 4e5]})").at(0).budgets, (std::vector<double>{1e5, 4e5}));
  for (const char* bad : {R"({"token": [1]})", R"({"tokens": []})", R"({"tokens": [2, 1]})", R"({"tokens": [0]})",
                          R"({"tokens": [1], "steps": [1]})"}) {
    try {
      read(bad);
      ADD_FAILURE() << "no error for " << bad;
    } catch (const pha::core::Error& e) {
      EXPECT_EQ(e.where().rfind("claims[0].at", 0), 0u) << e.where() << ": " << e.what();
    }
  }
  EXPECT_THROW(pa::read_claims(json::parse(R"([{"claim": "lower_is_better", "metric": "eval/valid/loss", "better": "a",
                                               "than": "b", "at": {"steps": [1]}}])"),
                               "claims", ctx),
               pha::core::Error);
}

TEST(ScalingReport, FitsEachVariantsLadderAndFindsTheCrossover) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  // a: L = 1.5 + 40 N^-0.3, b: L = 1.9 + 10 N^-0.3 (+/- 0.002 per seed): b is lower at small N,
  // a at large N; they cross where 30 N^-0.3 = 0.4, N = 75^(1/0.3) = 1.75e6.
  const std::vector<int64_t> widths = {10000, 30000, 100000, 300000, 1000000};
  std::vector<TunedPlanned> plan;
  for (int64_t n : widths) {
    const std::string point = "d_model=" + std::to_string(n);
    plan.push_back({"a", point, "", "hybrid", 6.0 * static_cast<double>(n)});
    plan.push_back({"b", point, "", "attention", 6.0 * static_cast<double>(n)});
    for (int s = 0; s < 3; ++s) {
      const double noise = 0.002 * (s - 1);
      const double la = 1.5 + 40 * std::pow(static_cast<double>(n), -0.3) + noise;
      const double lb = 1.9 + 10 * std::pow(static_cast<double>(n), -0.3) - noise;
      TextRun ra{"a/" + point, s, {{100, 1000, la}}, ps::RunStatus::Finished, n};
      TextRun rb{"b/" + point, s, {{100, 1000, lb}}, ps::RunStatus::Finished, n};
      write_text_run(store, ra);
      write_text_run(store, rb);
    }
  }
  pa::Study s = study(plan, json::array(), false, 3);
  s.scaling.enabled = true;
  s.scaling.metric.text = s.scaling.metric.key = "val/loss";
  s.scaling.n_boot = 200;
  const pa::Report r = pa::build_report(s, store);
  ASSERT_EQ(r.scaling.axes.size(), 2u);
  const pa::ScalingAxis& params = r.scaling.axes[0];
  ASSERT_EQ(params.series.size(), 2u);
  const pa::PowerLawFit& fa = params.series[0].fit;
  ASSERT_TRUE(fa.ok) << fa.message;
  EXPECT_EQ(params.series[0].size_x.size(), 5u);
  EXPECT_LE(fa.alpha_ci.low, 0.3);
  EXPECT_GE(fa.alpha_ci.high, 0.3);
  EXPECT_LE(fa.E_ci.low, 1.5);
  EXPECT_GE(fa.E_ci.high, 1.5);
  ASSERT_EQ(params.crossovers.size(), 1u);
  const pa::ScalingCross& x = params.crossovers[0];
  ASSERT_TRUE(x.found) << x.message;
  EXPECT_NEAR(std::log(x.x), std::log(std::pow(75.0, 1 / 0.3)), 0.2);
  EXPECT_LE(x.low, x.x);
  EXPECT_GE(x.high, x.x);
  // On compute: train/loss's last point has 1000 tokens, so x = 1000 x 6N, the same ladder shifted.
  const pa::ScalingAxis& flops = r.scaling.axes[1];
  ASSERT_EQ(flops.series.size(), 2u);
  EXPECT_NEAR(flops.series[0].size_x.front(), 6e7, 1e-3);
  const std::string html = pa::render_report(r, "html");
  EXPECT_NE(html.find("<h2>Scaling fits</h2>"), std::string::npos);
  EXPECT_NE(html.find("<polygon"), std::string::npos) << "the fitted band is drawn";
  EXPECT_NO_THROW(json::parse(pa::render_report(r, "json")));

  // Curves that never cross in range say so; an entry with fewer than 3 sizes is a note.
  ps::test::TempDir dir2;
  ps::Store store2 = ps::Store::open(dir2.file("runs.sqlite"));
  std::vector<TunedPlanned> plan2;
  for (int64_t n : widths) {
    const std::string point = "d_model=" + std::to_string(n);
    plan2.push_back({"a", point, "", "hybrid"});
    plan2.push_back({"c", point, "", "ssm"});
    for (int s = 0; s < 3; ++s) {
      const double noise = 0.002 * (s - 1);
      write_text_run(store2, {"a/" + point, s, {{100, 1000, 1.5 + 40 * std::pow(double(n), -0.3) + noise}}, ps::RunStatus::Finished, n});
      write_text_run(store2, {"c/" + point, s, {{100, 1000, 1.8 + 40 * std::pow(double(n), -0.3) - noise}}, ps::RunStatus::Finished, n});
    }
  }
  plan2.push_back({"d", "d_model=1", "", "ssm"});
  pa::Study s2 = study(plan2, json::array(), false, 3);
  s2.scaling = s.scaling;
  const pa::Report r2 = pa::build_report(s2, store2);
  ASSERT_EQ(r2.scaling.axes.at(0).crossovers.size(), 1u);
  EXPECT_FALSE(r2.scaling.axes[0].crossovers[0].found);
  EXPECT_NE(r2.scaling.axes[0].crossovers[0].message.find("no crossover in range"), std::string::npos)
      << r2.scaling.axes[0].crossovers[0].message;
  ASSERT_EQ(r2.scaling.notes.size(), 1u);
  EXPECT_EQ(r2.scaling.notes[0].rfind("d: 0 sizes", 0), 0u) << r2.scaling.notes[0];
}
