// The report's statistics on synthetic stores with known values (report_stats.cpp and the rows
// of report_claims.cpp / report_claim_kinds.cpp): a comparison is paired by seed when both sides
// have the same seeds and Welch otherwise; Holm's correction takes back a claim that holds alone,
// "none" keeps the raw p, Dunnett's lies between the raw p and Bonferroni and is deterministic;
// the minimum detectable effect and the seeds needed; too few replicas; early training; the
// evaluation's own noise; bimodal accuracies judged by the seeds reaching the threshold (Wilson).
// The reference p-values are the df = 2 closed form 1 - t / sqrt(2 + t^2) and mpmath.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analysis/report.h"
#include "engine/store/store_test_util.h"
#include "store/run_writer.h"
#include "store/store.h"

namespace pa = pha::analysis;
namespace ps = pha::store;
using nlohmann::json;

namespace {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// One finished replica: its final val/loss (and test/test/accuracy) = value after `tokens`
// training tokens, with the valid set's loss SE when `se` is finite.
struct Rep {
  std::string group;
  int64_t seed;
  double value;
  double se = kNoValue;
  int64_t tokens = 100000;
  int64_t params = 1000;
};

void write_rep(ps::Store& store, const Rep& r) {
  ps::NewRun nr;
  nr.project = "study";
  nr.name = r.group + "/seed=" + std::to_string(r.seed);
  nr.group = r.group;
  nr.seed = r.seed;
  nr.n_params = r.params;
  const int64_t id = store.create_run(nr);
  ps::RunWriter w(store, id);
  w.metric("train/loss", 100, r.tokens, 0, r.value + 0.1);
  w.metric("val/loss", 100, r.tokens, 0, r.value);
  w.metric("test/test/accuracy", 100, r.tokens, 0, r.value);
  w.eval({100, "valid", 64, "loss", r.value});
  if (std::isfinite(r.se)) w.eval({100, "valid", 64, "loss_se", r.se});
  w.finish(ps::RunStatus::Finished);
}

void write_group(ps::Store& store, const std::string& group, const std::vector<double>& values,
                 int64_t first_seed = 0) {
  for (size_t i = 0; i < values.size(); ++i) write_rep(store, {group, first_seed + static_cast<int64_t>(i), values[i]});
}

struct Planned {
  std::string group;
  std::vector<int64_t> seeds = {0, 1, 2};
  std::string family = "hybrid";
};

pa::Study study(const std::vector<Planned>& groups, const json& claims, pa::Correction correction,
                bool task = false) {
  pa::Study s;
  s.project = "study";
  s.is_task = task;
  if (task) s.test_sets = {"test"};
  pa::ClaimContext ctx;
  ctx.is_task = task;
  for (const auto& g : groups) {
    ctx.runs.push_back(g.group);
    for (int64_t seed : g.seeds) {
      pa::StudyRun r;
      r.name = g.group + "/seed=" + std::to_string(seed);
      r.group = r.entry = r.variant = g.group;
      r.seed = seed;
      r.family = g.family;
      s.runs.push_back(r);
    }
  }
  s.claims = pa::read_claims(claims, "claims", ctx);
  s.settings.correction = correction;
  return s;
}

json lower(const std::string& better, const std::string& than) {
  return {{"claim", "lower_is_better"}, {"metric", "val/loss"}, {"better", better}, {"than", than}};
}

const pa::ClaimRow& row(const pa::Report& r, size_t claim) { return r.claims.at(claim).rows.at(0); }

// base and three treatments, paired by seed: base - treatment = {1, 1.2, 1.4} (t = 6 sqrt(3),
// p 0.00913), {2.2, 3.2, 4.2} (t = 3.2 sqrt(3), p 0.03104), {-1, 0.5, 2} (t = sqrt(3) / 3, p 0.62204).
void write_three_treatments(ps::Store& store) {
  write_group(store, "base", {3.0, 3.5, 2.8});
  write_group(store, "t1", {2.0, 2.3, 1.4});
  write_group(store, "t2", {0.8, 0.3, -1.4});
  write_group(store, "t3", {4.0, 3.0, 0.8});
}

pa::Study three_treatments(pa::Correction correction, const json& extra = json::array()) {
  json claims = {lower("t1", "base"), lower("t2", "base"), lower("t3", "base")};
  for (const auto& c : extra) claims.push_back(c);
  return study({{"base"}, {"t1"}, {"t2"}, {"t3"}}, claims, correction);
}

}  // namespace

TEST(ReportStats, PairedWhenTheSeedsMatchWelchWhenTheyDoNot) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  write_group(store, "a", {2.5, 2.5, 1.3});
  write_group(store, "b", {3.0, 3.5, 2.8});
  write_group(store, "c", {3.0, 3.5, 2.8}, 3);  // the values of b under seeds 3, 4, 5
  const pa::Report r = pa::build_report(
      study({{"a"}, {"b"}, {"c", {3, 4, 5}}}, {lower("a", "b"), lower("a", "c")}, pa::Correction::None), store);

  // a - b per seed: -0.5, -1.0, -1.5: mean -1, sd 0.5, t = -2 sqrt(3), df 2.
  const pa::ClaimRow& paired = row(r, 0);
  EXPECT_EQ(paired.test.text, "paired by seed, n=3");
  EXPECT_EQ(paired.test.spread.test, pa::TTest::Paired);
  EXPECT_NEAR(paired.effect, -1.0, 1e-12);
  EXPECT_EQ(paired.test.df, 2.0);
  EXPECT_NEAR(paired.p, 1 - 2 * std::sqrt(3.0) / std::sqrt(14.0), 1e-12);
  EXPECT_NEAR(paired.effect_high, -1 + 4.30265272974946 * 0.5 / std::sqrt(3.0), 1e-9);
  EXPECT_EQ(paired.p_adjusted, paired.p) << "correction none";
  EXPECT_EQ(paired.verdict, pa::Verdict::Inconclusive) << paired.reason;

  // The same values under other seeds: Welch, df 3.0093, t -2.2177 (mpmath), a wider interval.
  const pa::ClaimRow& welch = row(r, 1);
  EXPECT_EQ(welch.test.text, "Welch, unpaired: seeds differ");
  EXPECT_EQ(welch.test.spread.test, pa::TTest::Welch);
  EXPECT_NEAR(welch.test.df, 3.00930044480388, 1e-9);
  EXPECT_NEAR(welch.p, 0.113013616145533, 1e-9);
  EXPECT_NEAR(welch.effect_high - welch.effect, 1.43253875076837, 1e-8);

  const std::string md = pa::render_report(r, "md");
  EXPECT_NE(md.find("| paired by seed, n=3 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| Welch, unpaired: seeds differ |"), std::string::npos) << md;
}

TEST(ReportStats, HolmTakesBackAClaimThatHoldsOnlyAloneAndNoneKeepsTheRawP) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  write_three_treatments(store);
  const double pa1 = 0.00913261138627545, pa2 = 0.0310442189534799, pa3 = 0.622035526990773;

  const pa::Report holm = pa::build_report(three_treatments(pa::Correction::Holm), store);
  EXPECT_EQ(holm.family_size, 3u);
  EXPECT_NEAR(row(holm, 0).p, pa1, 1e-9);
  EXPECT_NEAR(row(holm, 1).p, pa2, 1e-9);
  EXPECT_NEAR(row(holm, 2).p, pa3, 1e-9);
  EXPECT_NEAR(row(holm, 0).p_adjusted, 3 * pa1, 1e-9);
  EXPECT_NEAR(row(holm, 1).p_adjusted, 2 * pa2, 1e-9);
  EXPECT_NEAR(row(holm, 2).p_adjusted, pa3, 1e-9);
  EXPECT_EQ(holm.claims[0].verdict, pa::Verdict::Holds);
  EXPECT_EQ(holm.claims[1].verdict, pa::Verdict::Inconclusive) << "p 0.031 alone, 0.062 after Holm";
  EXPECT_NE(row(holm, 1).reason.find("would pass alone"), std::string::npos) << row(holm, 1).reason;
  EXPECT_EQ(holm.claims[2].verdict, pa::Verdict::Inconclusive);
  EXPECT_EQ(row(holm, 0).adjustment, "Holm, m = 3");
  EXPECT_NE(holm.statistics.find("Holm (1979)"), std::string::npos) << holm.statistics;
  EXPECT_NE(holm.statistics.find("m = 3"), std::string::npos) << holm.statistics;
  EXPECT_NE(holm.statistics.find("alpha = 0.05"), std::string::npos) << holm.statistics;

  const pa::Report none = pa::build_report(three_treatments(pa::Correction::None), store);
  EXPECT_EQ(none.claims[0].verdict, pa::Verdict::Holds);
  EXPECT_EQ(none.claims[1].verdict, pa::Verdict::Holds) << "raw p 0.031 < 0.05";
  EXPECT_EQ(none.claims[2].verdict, pa::Verdict::Inconclusive);
  EXPECT_EQ(row(none, 1).p_adjusted, row(none, 1).p);
  EXPECT_NE(none.statistics.find("No correction"), std::string::npos) << none.statistics;

  // Every format shows the raw and adjusted p and the header's correction.
  const std::string md = pa::render_report(holm, "md");
  EXPECT_NE(md.find("| p (raw / adjusted) |"), std::string::npos);
  EXPECT_NE(md.find(pa::p_text(pa2) + " / " + pa::p_text(2 * pa2)), std::string::npos) << md;
  EXPECT_NE(md.find("**Statistics:** Holm (1979)"), std::string::npos);
  const json j = pa::report_json(holm);
  EXPECT_EQ(j["statistics"]["correction"], "holm");
  EXPECT_EQ(j["statistics"]["m"], 3);
  EXPECT_NEAR(j["claims"][1]["rows"][0]["p_adjusted"].get<double>(), 2 * pa2, 1e-9);
  EXPECT_EQ(j["claims"][1]["rows"][0]["test"]["kind"], "paired");
  const std::string html = pa::render_report(holm, "html");
  EXPECT_NE(html.find("<th>p (raw / adjusted)</th>"), std::string::npos);
  EXPECT_NE(html.find("Holm (1979)"), std::string::npos);
}

TEST(ReportStats, DunnettAgainstTheControlLiesBetweenRawAndBonferroniAndIsDeterministic) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  write_three_treatments(store);
  const pa::Study s = three_treatments(pa::Correction::Dunnett, json::array({lower("t1", "t2")}));
  const pa::Report a = pa::build_report(s, store);
  const pa::Report b = pa::build_report(s, store);
  EXPECT_EQ(a.control, "base") << "the group in most comparison rows";
  EXPECT_EQ(a.family_size, 4u);
  for (size_t c = 0; c < 3; ++c) {
    const pa::ClaimRow& r = row(a, c);
    EXPECT_EQ(r.test.text.rfind("Dunnett against base, pooled variance over 4 groups, df 8", 0), 0u) << r.test.text;
    EXPECT_EQ(r.test.spread.test, pa::TTest::Pooled);
    EXPECT_GE(r.p_adjusted, r.p) << c;
    EXPECT_LE(r.p_adjusted, std::min(1.0, 3 * r.p)) << c << ": at most Bonferroni over the 3 rows against base";
    EXPECT_EQ(r.p_adjusted, row(b, c).p_adjusted) << "seeded: the same p every time";
  }
  // The pooled t of t2 against base: the spread of all four groups, df 12 - 4.
  double ss = 0;
  for (const auto& v : {std::vector<double>{3.0, 3.5, 2.8}, {2.0, 2.3, 1.4}, {0.8, 0.3, -1.4}, {4.0, 3.0, 0.8}}) {
    const pa::Stats st = pa::summarize(v);
    ss += st.std * st.std * 2;
  }
  const double se = std::sqrt(ss / 8) * std::sqrt(2.0 / 3.0);
  EXPECT_NEAR(row(a, 1).effect, -0.1 - 3.1, 1e-12);
  EXPECT_NEAR(row(a, 1).p, pa::two_sided_p((-0.1 - 3.1) / se, 8), 1e-12);
  // t1 against t2 is not against the control: Holm among the rows left (one).
  EXPECT_EQ(row(a, 3).adjustment, "Holm among the 1 test not against the control");
  EXPECT_EQ(row(a, 3).p_adjusted, row(a, 3).p);
  EXPECT_NE(a.statistics.find("Dunnett (1955)"), std::string::npos) << a.statistics;
  EXPECT_NE(a.statistics.find("200000 draws, seed 19550101"), std::string::npos) << a.statistics;
  EXPECT_NE(a.statistics.find("Holm (1979) among the other 1 test"), std::string::npos) << a.statistics;
}

TEST(ReportStats, PowerGivesTheMinimumDetectableEffectAtAlphaOverMAndTheSeedsNeeded) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  write_three_treatments(store);
  const pa::Report r = pa::build_report(three_treatments(pa::Correction::Holm), store);
  // Level 0.05 / 3, 80% power, paired with df 2 (mpmath): (t(1 - level/2, 2) + t(0.8, 2)) sd / sqrt(3).
  EXPECT_NEAR(row(r, 1).mde, 5.02841144823000, 1e-6) << "sd of the differences 1";
  EXPECT_NEAR(row(r, 2).mde, 7.54261717234500, 1e-6) << "sd 1.5";
  EXPECT_TRUE(row(r, 0).seeds_text.empty()) << "a row with a verdict is not asked how many seeds";
  EXPECT_EQ(row(r, 1).seeds_needed, 4u) << "effect 3.2 with sd 1: four seeds";
  EXPECT_EQ(row(r, 1).seeds_text, "4 seeds per side");
  EXPECT_EQ(row(r, 2).seeds_needed, 97u) << "effect 0.5 with sd 1.5";
  EXPECT_EQ(pa::power_text(row(r, 2)), "MDE " + pa::num(row(r, 2).mde) + "; 97 seeds per side");
  EXPECT_NE(r.statistics.find("level alpha / m = 0.0167"), std::string::npos) << r.statistics;
}

// A row without a p-value (too few replicas) gives no verdict but still counts in m: the family
// is fixed by the design, not by which runs happened to finish (it counts as not rejected).
TEST(ReportStats, TooFewReplicasGiveNoVerdictButCountInTheDesignedFamily) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  write_group(store, "a", {1.0, 1.1, 1.2});
  write_group(store, "b", {2.0, 2.1});  // seed 2 not trained
  write_group(store, "c", {2.0, 2.2, 2.1});
  const pa::Report r =
      pa::build_report(study({{"a"}, {"b"}, {"c"}}, {lower("a", "b"), lower("a", "c")}, pa::Correction::Holm), store);
  EXPECT_EQ(r.claims[0].verdict, pa::Verdict::TooFewReplicas);
  EXPECT_EQ(std::string(pa::to_string(pa::Verdict::TooFewReplicas)), "too few replicas");
  EXPECT_NE(row(r, 0).reason.find("b has 2 replicas"), std::string::npos) << row(r, 0).reason;
  EXPECT_TRUE(std::isnan(row(r, 0).p));
  EXPECT_EQ(r.family_size, 2u) << "both planned rows count in m";
  EXPECT_EQ(r.family_tested, 1u) << "one has a p-value";
  EXPECT_EQ(row(r, 1).adjustment, "Holm, m = 2");
  EXPECT_NEAR(row(r, 1).p_adjusted, std::min(1.0, 2 * row(r, 1).p), 1e-12);
  EXPECT_EQ(pa::report_json(r)["claims"][0]["verdict"], "too few replicas");
  EXPECT_NE(pa::render_report(r, "md").find("| too few replicas: b has 2 replicas"), std::string::npos);
}

TEST(ReportStats, EarlyTrainingIsMarkedOnTheRowAndTheClaim) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  for (int64_t s = 0; s < 3; ++s) {
    write_rep(store, {"small", s, 1.0 + 0.1 * static_cast<double>(s), kNoValue, 30000, 1000});  // 30 tokens/parameter
    write_rep(store, {"big", s, 1.5 + 0.1 * static_cast<double>(s), kNoValue, 30000, 5000});    // 6 tokens/parameter
    write_rep(store, {"other", s, 1.6 + 0.1 * static_cast<double>(s), kNoValue, 30000, 1000});
  }
  const pa::Report r = pa::build_report(
      study({{"small"}, {"big"}, {"other"}}, {lower("small", "big"), lower("small", "other")}, pa::Correction::Holm),
      store);
  EXPECT_EQ(row(r, 0).budget.tokens, 30000);
  EXPECT_NEAR(row(r, 0).budget.tokens_per_param, 6.0, 1e-12) << "the smallest over the row's groups";
  EXPECT_TRUE(row(r, 0).budget.early);
  EXPECT_EQ(r.claims[0].early, "early training (6 tokens/parameter < 20)");
  EXPECT_NEAR(row(r, 1).budget.tokens_per_param, 30.0, 1e-12);
  EXPECT_FALSE(row(r, 1).budget.early);
  EXPECT_TRUE(r.claims[1].early.empty());
  EXPECT_EQ(pa::budget_text(row(r, 0).budget, 20),
            "3e+04 tokens per replica, 6 tokens/parameter; early training (6 tokens/parameter < 20)");
  const std::string md = pa::render_report(r, "md");
  EXPECT_NE(md.find("- **early training (6 tokens/parameter < 20)**"), std::string::npos) << md;
  EXPECT_EQ(pa::report_json(r)["claims"][0]["rows"][0]["budget"]["early"], true);
  EXPECT_NE(pa::render_report(r, "html").find("class=\"early\""), std::string::npos);
}

TEST(ReportStats, AnEffectWithinTheEvaluationsOwnNoiseIsSaidBesideTheVerdict) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  for (int64_t s = 0; s < 3; ++s) {
    const double d = 0.001 * static_cast<double>(s);
    write_rep(store, {"a", s, 2.00 + d, 0.05});  // eval SE 0.05: noise 1.96 sqrt(2) 0.05 = 0.1386
    write_rep(store, {"b", s, 2.10 + 2 * d, 0.05});
    write_rep(store, {"old", s, 2.10 + 2 * d});  // an older store's runs: no SE rows
  }
  const pa::Report r =
      pa::build_report(study({{"a"}, {"b"}, {"old"}}, {lower("a", "b"), lower("a", "old")}, pa::Correction::Holm), store);
  const pa::ClaimRow& noisy = row(r, 0);
  ASSERT_TRUE(noisy.eval.recorded);
  EXPECT_NEAR(noisy.eval.se_a, 0.05, 1e-15);
  EXPECT_NEAR(noisy.eval.noise, 1.96 * std::sqrt(2.0) * 0.05, 1e-12);
  EXPECT_TRUE(noisy.eval.within) << "|effect| 0.101 < 0.1386";
  EXPECT_EQ(noisy.verdict, pa::Verdict::Holds) << "the verdict stays on the seeds: " << noisy.reason;
  EXPECT_NE(noisy.reason.find("within the evaluation's own noise (±0.1386)"), std::string::npos) << noisy.reason;
  EXPECT_EQ(pa::eval_se_text(noisy), "eval SE: a 0.0500, b 0.0500");
  const pa::ClaimRow& old = row(r, 1);
  EXPECT_TRUE(old.eval.applies);
  EXPECT_FALSE(old.eval.recorded);
  EXPECT_EQ(old.reason.find("noise"), std::string::npos) << old.reason;
  EXPECT_EQ(pa::eval_se_text(old), "eval SE not recorded");
  EXPECT_NE(pa::render_report(r, "md").find("eval SE not recorded"), std::string::npos);
}

TEST(ReportStats, BimodalAccuraciesAreJudgedByTheSeedsThatReachTheThreshold) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  write_group(store, "h", {1.0, 0.99, 1.0, 1.0, 0.995});  // 5 of 5 reach 0.99
  write_group(store, "s", {0.99, 0.1, 0.995, 0.1, 1.0, 0.12});  // bimodal: 3 of 6
  write_group(store, "t", {0.1, 0.3, 0.2, 0.2, 0.1});       // none
  const json claims = json::parse(R"([
    {"claim": "accuracy_at_params", "family": "hybrid", "max_params": 5000, "min_accuracy": 0.99},
    {"claim": "accuracy_at_params", "family": "ssm", "max_params": 5000, "min_accuracy": 0.99},
    {"claim": "accuracy_at_params", "family": "attention", "max_params": 5000, "max_accuracy": 0.99},
    {"claim": "accuracy_at_params", "family": "attention", "max_params": 5000, "min_accuracy": 0.99}
  ])");
  const pa::Study s = study({{"h", {0, 1, 2, 3, 4}, "hybrid"}, {"s", {0, 1, 2, 3, 4, 5}, "ssm"},
                             {"t", {0, 1, 2, 3, 4}, "attention"}},
                            claims, pa::Correction::None, /*task=*/true);
  const pa::Report r = pa::build_report(s, store);
  const pa::Measured& h = row(r, 0).measured.at(0);
  EXPECT_EQ(h.successes, 5);
  EXPECT_NEAR(h.wilson_low, 0.565517535216825, 1e-9);
  EXPECT_NEAR(row(r, 0).p, 0.0253473186774683, 1e-12) << "score test of 5 of 5 against 1/2";
  EXPECT_EQ(r.claims[0].verdict, pa::Verdict::Holds);
  EXPECT_EQ(pa::measured_text(h), "h (1000 parameters): 5/5 reach the threshold, Wilson 95% [0.5655, 1.0000]; "
                                  "mean accuracy 0.9970");
  const pa::Measured& bimodal = row(r, 1).measured.at(0);
  EXPECT_EQ(bimodal.successes, 3);
  EXPECT_NEAR(bimodal.wilson_low, 0.187616306482650, 1e-9);
  EXPECT_NEAR(bimodal.stats.mean, (0.99 + 0.1 + 0.995 + 0.1 + 1.0 + 0.12) / 6, 1e-12);
  EXPECT_EQ(r.claims[1].verdict, pa::Verdict::Inconclusive) << "half the seeds: neither bound excludes 1/2";
  EXPECT_EQ(r.claims[2].verdict, pa::Verdict::Holds) << "0 of 5 reach 0.99: upper bound 0.4345 < 1/2";
  EXPECT_EQ(r.claims[3].verdict, pa::Verdict::DoesNotHold) << "the same seeds against a min_accuracy claim";
  EXPECT_EQ(r.family_size, 4u) << "accuracy rows are tests of the family";

  // Three seeds, all at the threshold: the Wilson interval [0.4385, 1] still contains 1/2.
  ps::test::TempDir dir3;
  ps::Store store3 = ps::Store::open(dir3.file("runs.sqlite"));
  write_group(store3, "u", {1.0, 1.0, 1.0});
  const pa::Report r3 = pa::build_report(
      study({{"u"}}, json::array({claims[0]}), pa::Correction::None, /*task=*/true), store3);
  EXPECT_NEAR(row(r3, 0).measured.at(0).wilson_low, 0.438502968244954, 1e-9);
  EXPECT_EQ(r3.claims[0].verdict, pa::Verdict::Inconclusive) << row(r3, 0).reason;
}
