// The report's scaling section on synthetic stores: each fit's identifiability checks and its
// leave-one-out row in every view (Markdown, HTML, JSON), crossovers never quoted beyond 3x the
// largest size both series measured, a tuned study fitted at each size's chosen setting (never
// pooled over settings), and the IsoFLOP view over a grid of sizes x training lengths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/report.h"
#include "engine/store/store_test_util.h"
#include "store/run_writer.h"
#include "store/store.h"

namespace pa = pha::analysis;
namespace ps = pha::store;
using nlohmann::json;

namespace report_scaling_test {

// One planned group: a variants entry at a grid point (and a tune setting), its replicas'
// parameters, FLOPs per token, tokens trained and final val/loss per seed.
struct Planned {
  std::string entry, grid_point, tune_point;
  int64_t params = 0;
  int64_t tokens = 1000;
  std::vector<double> losses;  // one per seed
};

std::string group_of(const Planned& p) {
  std::string point = p.grid_point + (p.grid_point.empty() || p.tune_point.empty() ? "" : ",") + p.tune_point;
  return point.empty() ? p.entry : p.entry + "/" + point;
}

// Writes every replica and returns the study that plans them (tuned when a group has a setting).
pa::Study plan_and_write(ps::Store& store, const std::vector<Planned>& plan) {
  pa::Study s;
  s.project = "study";
  bool tuned = false;
  for (const auto& p : plan) {
    const std::string group = group_of(p);
    tuned = tuned || !p.tune_point.empty();
    for (size_t seed = 0; seed < p.losses.size(); ++seed) {
      pa::StudyRun r;
      r.name = group + ",seed=" + std::to_string(seed);
      r.group = group;
      r.entry = p.entry;
      r.grid_point = p.grid_point;
      r.tune_point = p.tune_point;
      r.seed = static_cast<int64_t>(seed);
      r.family = "hybrid";
      r.variant = p.entry;
      r.train_flops_per_token = 6.0 * static_cast<double>(p.params);
      r.config = {{"training", {{"steps", 100}}}};
      s.runs.push_back(r);
      ps::NewRun nr;
      nr.project = "study";
      nr.name = r.name;
      nr.group = group;
      nr.seed = r.seed;
      nr.n_params = p.params;
      nr.config_json = R"({"training": {"steps": 100}})";
      const int64_t id = store.create_run(nr);
      ps::RunWriter w(store, id);
      w.metric("train/loss", 100, p.tokens, 0, p.losses[seed] - 0.1);
      w.metric("val/loss", 100, p.tokens, 0, p.losses[seed]);
      w.finish(ps::RunStatus::Finished);
    }
  }
  if (tuned) {
    s.tune.enabled = true;
    s.tune.select.text = s.tune.select.key = "val/loss";
    s.tune.axes = "training.lr";
  }
  s.scaling.enabled = true;
  s.scaling.metric.text = s.scaling.metric.key = "val/loss";
  s.scaling.n_boot = 200;
  return s;
}

double law(double E, double A, double alpha, double n) { return E + A * std::pow(n, -alpha); }

// `k` sizes log-spaced over `decades` from 1e4.
std::vector<int64_t> ladder(int k, double decades) {
  std::vector<int64_t> n;
  for (int i = 0; i < k; ++i) n.push_back(std::llround(1e4 * std::pow(10.0, decades * i / (k - 1))));
  return n;
}

const pa::ScalingSeries& series(const pa::Report& r, const std::string& entry, size_t axis = 0) {
  for (const auto& s : r.scaling.axes.at(axis).series)
    if (s.entry == entry) return s;
  throw std::runtime_error("no series " + entry);
}


TEST(ReportScaling, ChecksAndLeaveOneOutAreShownUnderEachFitInEveryView) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  // good: 6 sizes over 1.5 decades, small seed noise; narrow: 4 sizes over half a decade of
  // another law (1.6 + 37.8 N^-0.3) that crosses good's at N = 22^(1/0.3) = 3.0e4.
  std::vector<Planned> plan;
  for (int64_t n : ladder(6, 1.5)) {
    const double l = law(1.5, 40.0, 0.3, static_cast<double>(n));
    plan.push_back({"good", "d=" + std::to_string(n), "", n, 1000, {l - 0.002, l + 0.002}});
  }
  for (int64_t n : ladder(4, 0.5)) {
    const double l = law(1.6, 37.8, 0.3, static_cast<double>(n));
    plan.push_back({"narrow", "d=" + std::to_string(n), "", n, 1000, {l - 0.01, l + 0.01}});
  }
  // Two sizes beyond good's largest, held out of its fit and predicted by it (scaling.predict).
  std::vector<std::string> held;
  for (int64_t n : {int64_t{632456}, int64_t{1264911}}) {
    const double l = law(1.5, 40.0, 0.3, static_cast<double>(n));
    plan.push_back({"good", "d=" + std::to_string(n), "", n, 1000, {l - 0.002, l + 0.002}});
    held.push_back("good/d=" + std::to_string(n));
  }
  pa::Study s = plan_and_write(store, plan);
  s.scaling.predict = held;
  const pa::Report r = pa::build_report(s, store);
  const pa::ScalingSeries& good = series(r, "good");
  const pa::ScalingSeries& narrow = series(r, "narrow");
  ASSERT_TRUE(good.check.checked);
  EXPECT_EQ(good.size_x.size(), 6u) << "the sizes held out are not fitted";
  ASSERT_EQ(good.predictions.size(), 2u);
  EXPECT_TRUE(good.predictions[0].within) << good.predictions[0].rel_error;
  EXPECT_TRUE(good.check.identified()) << (good.check.flags.empty() ? "" : good.check.flags[0]);
  EXPECT_TRUE(good.check.largest.within) << good.check.largest.rel_error;
  EXPECT_FALSE(narrow.check.identified());
  EXPECT_TRUE(narrow.check.few_sizes);
  EXPECT_TRUE(narrow.check.narrow_span);
  // The crossing is quoted with a warning: one of the two fits is not identified.
  const pa::ScalingCross& c = r.scaling.axes[0].crossovers.at(0);
  ASSERT_TRUE(c.found) << c.message;
  EXPECT_NEAR(std::log10(c.x), std::log10(std::pow(22.0, 1 / 0.3)), 0.3);
  EXPECT_EQ(c.caution, "narrow's fit is not identified (see the checks): the crossing is not established");
  // Every size trained on the same tokens: the FLOPs axis says it is the parameter axis rescaled.
  EXPECT_NE(r.scaling.axes[1].note.find("every size trained on the same tokens"), std::string::npos);

  const std::string md = pa::render_report(r, "md");
  EXPECT_NE(md.find("| variant | sizes | largest size held out: predicted vs measured | worst size held out | beyond the "
                    "fit (frozen): predicted vs measured | identified |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("(within 2%)"), std::string::npos) << md;
  EXPECT_NE(md.find("not tested by prediction"), std::string::npos) << "narrow has no size beyond its fit";
  EXPECT_NE(md.find("6 over 1.5 decades"), std::string::npos) << md;
  EXPECT_NE(md.find("4 sizes (fewer than 5)"), std::string::npos);
  EXPECT_NE(md.find("the sizes span 0.5 decades (less than 1.5)"), std::string::npos);
  EXPECT_NE(md.find("(within 1%)"), std::string::npos);
  EXPECT_NE(md.find("(narrow's fit is not identified"), std::string::npos);
  const std::string html = pa::render_report(r, "html");
  EXPECT_NE(html.find("largest size held out"), std::string::npos);
  EXPECT_NE(html.find("4 sizes (fewer than 5)"), std::string::npos);
  const json j = json::parse(pa::render_report(r, "json"));
  const json& checks = j["scaling"]["axes"][0]["series"][0]["checks"];
  EXPECT_EQ(checks["identified"], true);
  EXPECT_EQ(checks["n_sizes"], 6);
  EXPECT_EQ(checks["each_held_out"].size(), 6u);
  EXPECT_TRUE(checks["largest_held_out"]["within"].get<bool>());
  EXPECT_FALSE(j["scaling"]["axes"][0]["series"][1]["checks"]["flags"].empty());
}

TEST(ReportScaling, TheFlopsAxisSaysWhenItIsTheParameterAxisTransformed) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  // About 20 tokens per parameter at every size (rounded up to 1024-token steps).
  std::vector<Planned> plan;
  for (int64_t n : ladder(6, 1.5)) {
    const double l = law(1.5, 40.0, 0.3, static_cast<double>(n));
    const int64_t tokens = (20 * n + 1023) / 1024 * 1024;
    plan.push_back({"a", "d=" + std::to_string(n), "", n, tokens, {l - 0.002, l + 0.002}});
  }
  const pa::Report r = pa::build_report(plan_and_write(store, plan), store);
  EXPECT_TRUE(r.scaling.axes[0].note.empty());
  const std::string& note = r.scaling.axes[1].note;
  EXPECT_EQ(note.rfind("a: every size trained on about the same tokens per parameter, so training FLOPs grow as N^2", 0),
            0u)
      << note;
  // And the fit on FLOPs indeed has alpha about halved.
  EXPECT_NEAR(series(r, "a", 1).fit.alpha, 0.15, 0.01);
}

TEST(ReportScaling, NoCrossoverIsQuotedBeyondThreeTimesTheLargestSize) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  // a: 1.5 + 40 N^-0.3, b: 1.9 + 10 N^-0.3, cross at N = 75^(1/0.3) = 1.75e6. Measured up to
  // 1e5 the crossing lies 17.5x beyond: the old default (100x) quoted it, the cap (3x) does not.
  std::vector<Planned> plan;
  for (int64_t n : ladder(6, 1.0)) {
    const double x = static_cast<double>(n);
    plan.push_back({"a", "d=" + std::to_string(n), "", n, 1000, {law(1.5, 40, 0.3, x) - 0.001, law(1.5, 40, 0.3, x) + 0.001}});
    plan.push_back({"b", "d=" + std::to_string(n), "", n, 1000, {law(1.9, 10, 0.3, x) - 0.001, law(1.9, 10, 0.3, x) + 0.001}});
  }
  pa::Study s = plan_and_write(store, plan);
  s.scaling.extrapolate = 100.0;  // more than the cap asks for: the cap wins
  const pa::Report r = pa::build_report(s, store);
  const pa::ScalingCross& c = r.scaling.axes[0].crossovers.at(0);
  EXPECT_FALSE(c.found) << c.message;
  EXPECT_DOUBLE_EQ(c.x_hi, 3.0 * 1e5);
  EXPECT_DOUBLE_EQ(c.x_lo, 1e4);
  EXPECT_NE(c.message.find("no crossover in range"), std::string::npos) << c.message;
  // The fits themselves do cross there: only the quoting is capped.
  const pa::Crossover far = pa::crossover(series(r, "a").fit, series(r, "b").fit, 1e4, 1e7);
  ASSERT_TRUE(far.found);
  EXPECT_NEAR(std::log(far.x), std::log(std::pow(75.0, 1 / 0.3)), 0.3);

  // Measured beyond the crossing, it is found between the measured sizes.
  ps::test::TempDir dir2;
  ps::Store store2 = ps::Store::open(dir2.file("runs.sqlite"));
  std::vector<Planned> plan2;
  for (int64_t n : ladder(6, 2.5)) {
    const double x = static_cast<double>(n) * 10.0;
    const int64_t p = static_cast<int64_t>(x);
    plan2.push_back({"a", "d=" + std::to_string(p), "", p, 1000, {law(1.5, 40, 0.3, x) - 0.001, law(1.5, 40, 0.3, x) + 0.001}});
    plan2.push_back({"b", "d=" + std::to_string(p), "", p, 1000, {law(1.9, 10, 0.3, x) - 0.001, law(1.9, 10, 0.3, x) + 0.001}});
  }
  const pa::Report r2 = pa::build_report(plan_and_write(store2, plan2), store2);
  const pa::ScalingCross& c2 = r2.scaling.axes[0].crossovers.at(0);
  ASSERT_TRUE(c2.found) << c2.message;
  EXPECT_NEAR(std::log(c2.x), std::log(std::pow(75.0, 1 / 0.3)), 0.2);
  // Neither fit was tested by a prediction beyond its sizes: the crossing is quoted with a caution.
  EXPECT_EQ(c2.caution, "a and b's fits are not identified (see the checks): the crossing is not established");
}

TEST(ReportScaling, ATunedStudyIsFittedAtEachSizesChosenSetting) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  // Two learning rates per size; the better one alternates with size (lr=1 below 1e5, lr=2 from
  // there), the worse one is 0.3 higher. Pooled, every size's mean would be 0.15 off the law.
  std::vector<Planned> plan;
  for (int64_t n : ladder(6, 1.5)) {
    const double l = law(1.5, 40.0, 0.3, static_cast<double>(n));
    const bool small = n < 100000;
    const std::string point = "d=" + std::to_string(n);
    plan.push_back({"a", point, "lr=1", n, 1000, {l + (small ? 0.0 : 0.3) - 0.002, l + (small ? 0.0 : 0.3) + 0.002}});
    plan.push_back({"a", point, "lr=2", n, 1000, {l + (small ? 0.3 : 0.0) - 0.002, l + (small ? 0.3 : 0.0) + 0.002}});
  }
  const pa::Study s = plan_and_write(store, plan);
  const pa::Report r = pa::build_report(s, store);
  const pa::ScalingSeries& a = series(r, "a");
  ASSERT_EQ(a.size_x.size(), 6u);
  ASSERT_EQ(a.size_setting.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(a.size_setting[i], a.size_x[i] < 1e5 ? "lr=1" : "lr=2") << a.size_x[i];
    EXPECT_EQ(a.size_y[i].n, 2u);  // only the chosen setting's two replicas
    EXPECT_NEAR(a.size_y[i].mean, law(1.5, 40.0, 0.3, a.size_x[i]), 1e-9);
  }
  ASSERT_TRUE(a.fit.ok);
  EXPECT_NEAR(a.fit.alpha, 0.3, 0.03);
  // Every rule met but the prediction: no size beyond the fit was trained.
  ASSERT_EQ(a.check.flags.size(), 1u);
  EXPECT_EQ(a.check.flags[0].rfind("not tested by prediction", 0), 0u) << a.check.flags[0];
  EXPECT_EQ(a.x.size(), 12u);
  const std::string md = pa::render_report(r, "md");
  EXPECT_NE(md.find(" (lr=2) -> "), std::string::npos);
}

// The frozen fit against sizes beyond it (scaling.predict): predicted within 2% of what they
// measure, the fit is identified; a law that bends beyond the fitted sizes (its largest held-out
// size 5% above the fit's prediction) is not, and says by how much.
TEST(ReportScaling, SizesBeyondTheFitArePredictedAndDecideIdentification) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::vector<Planned> plan;
  for (int64_t n : ladder(6, 1.5)) {
    const double x = static_cast<double>(n);
    plan.push_back({"holds", "d=" + std::to_string(n), "", n, 1000, {law(1.5, 40, 0.3, x) - 0.002, law(1.5, 40, 0.3, x) + 0.002,
                                                                      law(1.5, 40, 0.3, x)}});
    plan.push_back({"bends", "d=" + std::to_string(n), "", n, 1000, {law(1.5, 40, 0.3, x) - 0.002, law(1.5, 40, 0.3, x) + 0.002,
                                                                      law(1.5, 40, 0.3, x)}});
  }
  std::vector<std::string> held;
  for (int64_t n : {int64_t{632456}, int64_t{1264911}}) {
    const double x = static_cast<double>(n), l = law(1.5, 40, 0.3, x);
    plan.push_back({"holds", "d=" + std::to_string(n), "", n, 1000, {l - 0.002, l + 0.002, l}});
    plan.push_back({"bends", "d=" + std::to_string(n), "", n, 1000, {1.05 * l - 0.002, 1.05 * l + 0.002, 1.05 * l}});
    held.push_back("holds/d=" + std::to_string(n));
    held.push_back("bends/d=" + std::to_string(n));
  }
  pa::Study s = plan_and_write(store, plan);
  s.scaling.predict = held;
  const pa::Report r = pa::build_report(s, store);
  const pa::ScalingSeries& holds = series(r, "holds");
  const pa::ScalingSeries& bends = series(r, "bends");
  ASSERT_EQ(holds.predictions.size(), 2u);
  ASSERT_EQ(bends.predictions.size(), 2u);
  for (const auto& h : holds.predictions) {
    EXPECT_TRUE(h.ok);
    EXPECT_EQ(h.n_points, 3u);
    EXPECT_NEAR(h.measured, law(1.5, 40, 0.3, h.x), 1e-9);
    EXPECT_LT(std::fabs(h.rel_error), 0.02) << h.rel_error;
    EXPECT_TRUE(h.predicted_ci.valid());
    EXPECT_LE(h.predicted_ci.low, h.predicted);
    EXPECT_GE(h.predicted_ci.high, h.predicted);
  }
  EXPECT_TRUE(holds.check.identified()) << (holds.check.flags.empty() ? "" : holds.check.flags[0]);
  EXPECT_NEAR(bends.predictions[1].rel_error, 1.0 / 1.05 - 1.0, 0.005);
  EXPECT_FALSE(bends.predictions[1].within);
  EXPECT_FALSE(bends.check.identified());
  ASSERT_FALSE(bends.check.flags.empty());
  EXPECT_NE(bends.check.flags.back().find("sizes beyond the fit predicted off by more than 2%"), std::string::npos)
      << bends.check.flags.back();
  // The same fit without the held-out sizes: they never enter it.
  EXPECT_EQ(holds.size_x.size(), 6u);
  EXPECT_EQ(holds.x.size(), 18u);
  const std::string md = pa::render_report(r, "md");
  EXPECT_NE(md.find("(not within 2%)"), std::string::npos) << md;
}

TEST(ReportScaling, IsoFlopViewOverAGridOfSizesAndTrainingLengths) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  // L(N, D) = 1.7 + 400 N^-0.34 + 400 D^-0.28; sizes and token counts both log-spaced by 2, so
  // the grid's anti-diagonals share a compute C = 6 N D.
  auto surface = [](double n, double d) { return 1.7 + 400 * std::pow(n, -0.34) + 400 * std::pow(d, -0.28); };
  std::vector<Planned> plan;
  const int k = 7;
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j) {
      const int64_t n = 10000LL << i;
      const int64_t d = 100000LL << j;
      const double l = surface(static_cast<double>(n), static_cast<double>(d));
      plan.push_back({"a", "d=" + std::to_string(n) + ",steps=" + std::to_string(d), "", n, d, {l}});
    }
  pa::Study s = plan_and_write(store, plan);
  s.scaling.isoflop = true;
  s.scaling.n_boot = 0;
  const pa::Report r = pa::build_report(s, store);
  ASSERT_EQ(r.scaling.isoflop.size(), 1u);
  const pa::IsoFlopFit& f = r.scaling.isoflop[0].fit;
  ASSERT_EQ(f.budgets.size(), static_cast<size_t>(2 * k - 1));  // one per anti-diagonal
  EXPECT_EQ(f.budgets[k - 1].sizes.size(), static_cast<size_t>(k));
  ASSERT_TRUE(f.ok) << f.message;
  EXPECT_GE(f.n_used, 3u);
  EXPECT_NEAR(f.exponent, 0.28 / (0.34 + 0.28), 0.1);
  // The fit against size reads each size at its longest run, and says the others were left out.
  const pa::ScalingSeries& a = series(r, "a");
  EXPECT_EQ(a.size_x.size(), static_cast<size_t>(k));
  EXPECT_EQ(a.x.size(), static_cast<size_t>(k));
  bool noted = false;
  for (const auto& n : r.scaling.notes) noted = noted || n.find("shorter runs of a size left out") != std::string::npos;
  EXPECT_TRUE(noted);
  const std::string md = pa::render_report(r, "md");
  EXPECT_NE(md.find("### IsoFLOP view"), std::string::npos);
  EXPECT_NE(md.find("| budget (FLOPs) |"), std::string::npos);
  EXPECT_NE(md.find("a: N* = "), std::string::npos) << md;
  const json j = json::parse(pa::render_report(r, "json"));
  EXPECT_EQ(j["scaling"]["isoflop"][0]["fit"]["ok"], true);

  // Two budgets only: said, not fitted.
  ps::test::TempDir dir2;
  ps::Store store2 = ps::Store::open(dir2.file("runs.sqlite"));
  std::vector<Planned> plan2;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (i + j == 2 || i + j == 3) {
        const int64_t n = 10000LL << i, d = 100000LL << j;
        plan2.push_back({"a", "d=" + std::to_string(n) + ",steps=" + std::to_string(d), "", n, d,
                         {surface(static_cast<double>(n), static_cast<double>(d))}});
      }
  pa::Study s2 = plan_and_write(store2, plan2);
  s2.scaling.isoflop = true;
  s2.scaling.n_boot = 0;
  const pa::Report r2 = pa::build_report(s2, store2);
  ASSERT_EQ(r2.scaling.isoflop.size(), 1u);
  EXPECT_FALSE(r2.scaling.isoflop[0].fit.ok);
  EXPECT_NE(pa::render_report(r2, "md").find("not enough budgets"), std::string::npos);
}

}  // namespace report_scaling_test
