// The efficiency claim on synthetic stores: training runs with a final val/loss and inference
// runs (store/inference_store.h) whose model_config is the runs' "model" section. It holds when
// the hybrid is faster and smaller than the baseline of equal quality and does not hold when
// it is slower; matching takes the closest baseline within the tolerance (not the one of the
// same size), falls back to the baseline's fitted curve (interpolating the figures between the
// two sizes around the match), and says what to train when there is no match; a model without
// an inference point names the command to run; bad claim JSON names the field.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "analysis/report.h"
#include "core/error.h"
#include "engine/store/store_test_util.h"
#include "error_message.h"
#include "store/inference_store.h"
#include "store/run_writer.h"
#include "store/store.h"

namespace pa = pha::analysis;
namespace ps = pha::store;
using nlohmann::json;

namespace efficiency_claims_test {

constexpr double kMiB = 1024.0 * 1024.0;

// A group of the study: its model, size, family and each seed's final val/loss.
struct GroupSpec {
  std::string name;
  int64_t n_params = 0;
  std::string family = "attention";
  std::vector<double> val_loss;  // one per seed, seeds 0, 1, ...
};

json model_of(const std::string& group) { return {{"name", group}, {"preset", "test"}, {"tag", group}}; }

void write_runs(ps::Store& store, const GroupSpec& g) {
  for (size_t seed = 0; seed < g.val_loss.size(); ++seed) {
    ps::NewRun nr;
    nr.project = "study";
    nr.name = g.name + "/seed=" + std::to_string(seed);
    nr.group = g.name;
    nr.seed = static_cast<int64_t>(seed);
    nr.n_params = g.n_params;
    nr.config_json = json{{"model", model_of(g.name)}, {"training", {{"steps", 100}}}}.dump();
    const int64_t id = store.create_run(nr);
    ps::RunWriter w(store, id);
    w.metric("train/loss", 100, 25600, 0, g.val_loss[seed] + 0.1);
    w.metric("val/loss", 100, 25600, 0, g.val_loss[seed]);
    w.finish(ps::RunStatus::Finished);
  }
}

// One measured point of a group's model (memory in MiB, split as the bench splits it).
// `jitter`: the decode steps alternate between (1 -+ jitter) x the median step.
ps::InferencePointResult point(const std::string& group, int64_t seq_len, double decode_tps, double memory_mib,
                               int64_t n_params, double jitter = 0.0) {
  ps::InferencePointResult p;
  p.spec.model = group;
  p.spec.model_config = model_of(group);
  p.spec.seq_len = seq_len;
  p.spec.batch = 1;
  p.n_params = n_params;
  p.decode_tokens_per_s = decode_tps;
  p.decode_ms_per_token = 1000.0 / decode_tps;
  for (int i = 0; i < 32; ++i) p.decode_ms.push_back(p.decode_ms_per_token * (1.0 + (i % 2 ? jitter : -jitter)));
  p.prefill_tokens_per_s = 40 * decode_tps;
  p.e2e_tokens_per_s = decode_tps / 2;
  const auto bytes = [](double mib) { return static_cast<int64_t>(std::llround(mib * kMiB)); };
  p.memory.weights = bytes(memory_mib * 0.25);
  p.memory.kv_cache = bytes(memory_mib * 0.5);
  p.memory.activations = bytes(memory_mib) - p.memory.weights - p.memory.kv_cache;
  p.memory.baseline = bytes(300);
  p.memory.peak = p.memory.baseline + bytes(memory_mib);
  p.device = "cpu";
  p.method = "test";
  return p;
}

// Every point timed `timings` times, as `pha bench inference --repeats` records them (one
// point per repeat); `factor(model, repeat)` scales that timing's tokens/s (1: all alike).
std::vector<ps::InferencePointResult> timed(const std::vector<ps::InferencePointResult>& points, int timings,
                                            double (*factor)(const std::string&, int) = nullptr) {
  std::vector<ps::InferencePointResult> out;
  for (int r = 0; r < timings; ++r)
    for (auto p : points) {
      p.spec.repeat = r;
      const double f = factor ? factor(p.spec.model, r) : 1.0;
      p.decode_tokens_per_s *= f, p.prefill_tokens_per_s *= f, p.e2e_tokens_per_s *= f;
      out.push_back(p);
    }
  return out;
}

// The training runs and the study of `groups`, the claims read against their names.
pa::Study make_study(ps::Store& store, const std::vector<GroupSpec>& groups, const json& claims) {
  pa::Study s;
  s.project = "study";
  pa::ClaimContext ctx;
  for (const auto& g : groups) {
    write_runs(store, g);
    ctx.runs.push_back(g.name);
    for (size_t seed = 0; seed < g.val_loss.size(); ++seed) {
      pa::StudyRun r;
      r.name = g.name + "/seed=" + std::to_string(seed);
      r.group = r.entry = r.variant = g.name;
      r.seed = static_cast<int64_t>(seed);
      r.family = g.family;
      r.config = {{"model", model_of(g.name)}, {"training", {{"steps", 100}}}};
      s.runs.push_back(r);
    }
  }
  s.claims = pa::read_claims(claims, "claims", ctx);
  return s;
}

std::string claim_error(const json& claims) {
  pa::ClaimContext ctx;
  ctx.runs = {"pha", "tpp-d128", "tpp-d256"};
  return pha::test::error_message([&] { pa::read_claims(claims, "claims", ctx); });
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The baseline of the first tests: d192 (2M) at 1.55 and d256 (4M) at 1.50, both slower and
// larger in memory than the hybrid at L 8192.
std::vector<GroupSpec> ladder() {
  return {{"tpp-d128", 1000000, "attention", {1.70, 1.71, 1.69}},
          {"tpp-d192", 2000000, "attention", {1.55, 1.56, 1.54}},
          {"tpp-d256", 4000000, "attention", {1.50, 1.505, 1.495}}};
}

// The tests are in the namespace too: the unity build compiles this file with other test
// files whose helpers have the same names.

TEST(EfficiencyClaims, HoldsWhenFasterAndSmallerDoesNotWhenSlower) {
  ps::test::TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  ps::Store store = ps::Store::open(path);
  std::vector<GroupSpec> groups = ladder();
  // Seed 1 (1.55) matches d192, seeds 0 and 2 (1.51: closest to d256 seed 1 at 1.505) match d256: the
  // ratios differ over the replicas.
  groups.push_back({"pha", 1000000, "hybrid", {1.50, 1.55, 1.51}});
  groups.push_back({"pha-slow", 1000000, "hybrid", {1.50, 1.55, 1.51}});
  const pa::Study study = make_study(store, groups, json::parse(R"([
    {"claim": "efficiency", "run": "pha", "baseline": "tpp-d*", "seq_len": 8192, "loss_tolerance": 0.02,
     "throughput_ratio_at_least": 1.0, "memory_ratio_at_most": 1.0, "paper": "23.9% more throughput, 22.0% less memory"},
    {"claim": "efficiency", "run": "pha-slow", "baseline": ["tpp-d192", "tpp-d256"], "seq_len": 8192,
     "loss_tolerance": 0.02, "throughput_ratio_at_least": 1.0, "memory_ratio_at_most": 1.0}
  ])"));
  ps::store_inference_results(path, "study",
                              timed({point("tpp-d128", 8192, 300, 60, 1000000), point("tpp-d192", 8192, 110, 110, 2000000),
                                     point("tpp-d256", 8192, 100, 120, 4000000), point("pha", 8192, 200, 50, 1000000),
                                     point("pha-slow", 8192, 50, 50, 1000000)},
                                    3));
  const pa::Report r = pa::build_report(study, store);
  ASSERT_EQ(r.claims.size(), 2u);
  const pa::ClaimRow& holds = r.claims[0].rows.at(0);
  EXPECT_EQ(r.claims[0].verdict, pa::Verdict::Holds) << holds.reason;
  ASSERT_EQ(holds.measured.size(), 5u);
  const auto& thr = holds.measured[2].values;
  EXPECT_NEAR(thr[0], 2.0, 1e-12);
  EXPECT_NEAR(thr[1], 200.0 / 110.0, 1e-12);
  EXPECT_NEAR(thr[2], 2.0, 1e-12);
  EXPECT_NEAR(holds.measured[3].values[1], 50.0 / 110.0, 1e-6);
  EXPECT_NEAR(holds.measured[4].values[0], 350.0 / 420.0, 1e-6) << "peak RSS, reported";
  EXPECT_EQ(holds.test.direction, 1);
  EXPECT_EQ(holds.adjustment, "Holm, m = 2");
  EXPECT_LT(holds.p, 0.01);
  EXPECT_TRUE(contains(holds.reason, "seed 1: matched by measured runs: tpp-d192 seed 0, val/loss 1.5500 vs 1.5500"))
      << holds.reason;
  EXPECT_TRUE(contains(holds.reason, "seed 2: matched by measured runs: tpp-d256 seed 1, val/loss 1.5050 vs 1.5100"))
      << holds.reason;
  EXPECT_TRUE(contains(holds.reason, "peak RSS minus the process baseline")) << holds.reason;
  EXPECT_TRUE(contains(holds.reason, "throughput ratio: geometric mean ")) << holds.reason;

  const pa::ClaimRow& slower = r.claims[1].rows.at(0);
  EXPECT_EQ(r.claims[1].verdict, pa::Verdict::DoesNotHold) << slower.reason;
  EXPECT_EQ(slower.test.direction, -1);
  EXPECT_NEAR(slower.measured[2].values[0], 0.5, 1e-12);
  EXPECT_EQ(r.claims[1].statement,
            "pha-slow against tpp-d192, tpp-d256 at equal val/loss (within 0.02), L = 8192, batch 1: decode tokens/s at "
            "least 1x the baseline's, memory at most 1x");

  const std::string md = pa::render_report(r, "md");
  EXPECT_TRUE(contains(md, "throughput ratio (decode tokens/s at L 8192, batch 1, pha / matched baseline)")) << md;
  EXPECT_TRUE(contains(pa::render_report(r, "html"), "matched by measured runs"));
  const json j = json::parse(pa::render_report(r, "json"));
  EXPECT_EQ(j["claims"][0]["kind"], "efficiency");
  EXPECT_EQ(j["claims"][0]["rows"][0]["verdict"], "holds");
}

TEST(EfficiencyClaims, MatchesTheClosestBaselineWithinToleranceNotTheSameSize) {
  ps::test::TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  ps::Store store = ps::Store::open(path);
  // tpp-d128 has pha's size but a worse loss; d192 and d256 are both within 0.02, d256 closer.
  const pa::Study study = make_study(store,
                                     {{"tpp-d128", 1000000, "attention", {1.60, 1.60, 1.60}},
                                      {"tpp-d192", 2000000, "attention", {1.515, 1.515, 1.515}},
                                      {"tpp-d256", 4000000, "attention", {1.505, 1.505, 1.505}},
                                      {"pha", 1000000, "hybrid", {1.50, 1.50, 1.50}}},
                                     json::parse(R"([{"claim": "efficiency", "run": "pha", "baseline": "tpp-*",
                                                      "seq_len": 8192, "loss_tolerance": 0.02,
                                                      "memory_ratio_at_most": 0.9}])"));
  ps::store_inference_results(path, "study",
                              timed({point("tpp-d128", 8192, 300, 40, 1000000), point("tpp-d192", 8192, 150, 90, 2000000),
                                     point("tpp-d256", 8192, 100, 200, 4000000), point("pha", 8192, 200, 50, 1000000)},
                                    3));
  const pa::Report r = pa::build_report(study, store);
  const pa::ClaimRow& row = r.claims.at(0).rows.at(0);
  for (int s = 0; s < 3; ++s) {
    EXPECT_TRUE(contains(row.reason, "seed " + std::to_string(s) +
                                         ": matched by measured runs: tpp-d256 seed 0, val/loss 1.5050 vs 1.5000"))
        << row.reason;
    EXPECT_NEAR(row.measured[3].values[static_cast<size_t>(s)], 0.25, 1e-6);
    EXPECT_NEAR(row.measured[1].values[static_cast<size_t>(s)], 1.505, 1e-12);
  }
  EXPECT_FALSE(contains(row.reason, "tpp-d128 seed")) << row.reason;
  // Every replica matched the same baseline and every timing gave the same ratio: no spread.
  EXPECT_EQ(row.verdict, pa::Verdict::Holds) << row.reason;
  EXPECT_TRUE(contains(row.reason, "memory ratio: geometric mean 0.2500 [0.2500, 0.2500] over 3 timings x 3 replicas, "
                                   "claimed at most 0.9"))
      << row.reason;
  EXPECT_FALSE(contains(row.reason, "throughput ratio:")) << "memory only: throughput is not judged";
}

TEST(EfficiencyClaims, FittedCurveInterpolatesBetweenTheTwoSizesAroundTheMatch) {
  ps::test::TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  ps::Store store = ps::Store::open(path);
  // Baseline losses on L = 3 n^-0.05 at 1M, 2M, 4M; the hybrid's on the same curve at sqrt(8) M.
  const auto curve = [](double n) { return 3.0 * std::pow(n, -0.05); };
  const double h = curve(std::sqrt(8.0) * 1e6);
  std::vector<GroupSpec> groups;
  for (double n : {1e6, 2e6, 4e6}) {
    const double v = curve(n);
    groups.push_back({"tpp-" + std::to_string(static_cast<int>(n / 1e6)) + "m", static_cast<int64_t>(n), "attention", {v, v, v}});
  }
  groups.push_back({"pha", 1000000, "hybrid", {h, h, h}});
  groups.push_back({"pha-far", 1000000, "hybrid", {1.30, 1.30, 1.30}});  // beyond the largest baseline
  const pa::Study study = make_study(store, groups, json::parse(R"([
    {"claim": "efficiency", "run": "pha", "baseline": "tpp-*", "seq_len": 8192, "loss_tolerance": 0.005,
     "throughput_ratio_at_least": 1.5, "memory_ratio_at_most": 0.75},
    {"claim": "efficiency", "run": "pha-far", "baseline": "tpp-*", "seq_len": 8192, "loss_tolerance": 0.005,
     "throughput_ratio_at_least": 1.0}
  ])"));
  ps::store_inference_results(path, "study",
                              timed({point("tpp-1m", 8192, 200, 50, 1000000), point("tpp-2m", 8192, 100, 100, 2000000),
                                     point("tpp-4m", 8192, 64, 200, 4000000),
                                     point("pha", 8192, 160, 100 / std::sqrt(2.0), 1000000),
                                     point("pha-far", 8192, 160, 50, 1000000)},
                                    3));
  const pa::Report r = pa::build_report(study, store);
  const pa::ClaimRow& row = r.claims.at(0).rows.at(0);
  EXPECT_TRUE(contains(row.reason, "matched by fitted curve at 2.83e+06 params (between 2e+06 (tpp-2m) and 4e+06 (tpp-4m))"))
      << row.reason;
  // Throughput sqrt(100 x 64) = 80, memory sqrt(100 x 200) MiB: log-log midway between the two sizes.
  EXPECT_NEAR(row.measured[2].values[0], 160.0 / 80.0, 1e-6);
  EXPECT_NEAR(row.measured[3].values[0], (100 / std::sqrt(2.0)) / std::sqrt(100.0 * 200.0), 1e-6);
  EXPECT_EQ(row.verdict, pa::Verdict::Holds) << row.reason;

  const pa::ClaimRow& far = r.claims.at(1).rows.at(0);
  EXPECT_EQ(far.verdict, pa::Verdict::Inconclusive);
  EXPECT_TRUE(std::isnan(far.p));
  EXPECT_TRUE(contains(far.reason, "seed 0: no baseline run within 0.005 of val/loss 1.3000 (nearest: tpp-4m seed 0 at")) << far.reason;
  EXPECT_TRUE(contains(far.reason, "outside the sizes trained (1e+06 to 4e+06): train a larger baseline")) << far.reason;
}

TEST(EfficiencyClaims, NoMatchIsInconclusiveAndSaysWhatToTrain) {
  ps::test::TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  ps::Store store = ps::Store::open(path);
  const pa::Study study = make_study(store,
                                     {{"tpp-d128", 1000000, "attention", {1.60, 1.61, 1.62}},
                                      {"tpp-d256", 4000000, "attention", {1.50, 1.51, 1.52}},
                                      {"pha", 1000000, "hybrid", {1.30, 1.31, 1.29}}},
                                     json::parse(R"([{"claim": "efficiency", "run": "pha", "baseline": "tpp-*",
                                                      "seq_len": 8192, "loss_tolerance": 0.02,
                                                      "throughput_ratio_at_least": 1.0}])"));
  ps::store_inference_results(path, "study",
                              {point("tpp-d128", 8192, 300, 40, 1000000), point("tpp-d256", 8192, 100, 200, 4000000),
                               point("pha", 8192, 200, 50, 1000000)});
  const pa::Report r = pa::build_report(study, store);
  const pa::ClaimRow& row = r.claims.at(0).rows.at(0);
  EXPECT_EQ(row.verdict, pa::Verdict::Inconclusive);
  EXPECT_TRUE(std::isnan(row.p)) << "no match, no test";
  EXPECT_EQ(r.family_tested, 0u);
  EXPECT_TRUE(contains(row.reason, "seed 0: no baseline run within 0.02 of val/loss 1.3000 (nearest: tpp-d256 seed 0 at "
                                   "1.5000): train a larger baseline (every one trained is worse), or baselines at 3 "
                                   "or more sizes for a fitted curve (2 now)"))
      << row.reason;
}

TEST(EfficiencyClaims, AMissingInferencePointNamesTheCommand) {
  ps::test::TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  ps::Store store = ps::Store::open(path);
  const pa::Study study = make_study(store,
                                     {{"tpp-d128", 1000000, "attention", {1.50, 1.51, 1.49}},
                                      {"tpp-d256", 4000000, "attention", {1.40, 1.41, 1.39}},
                                      {"pha", 1000000, "hybrid", {1.50, 1.51, 1.49}}},
                                     json::parse(R"([{"claim": "efficiency", "run": "pha", "baseline": "tpp-*",
                                                      "seq_len": 8192, "loss_tolerance": 0.02,
                                                      "throughput_ratio_at_least": 1.0}])"));
  // pha was measured at 2048 only; tpp-d128 not at all.
  ps::store_inference_results(path, "study", {point("pha", 2048, 200, 50, 1000000), point("tpp-d256", 8192, 100, 200, 4000000)});
  const pa::Report r = pa::build_report(study, store);
  const pa::ClaimRow& row = r.claims.at(0).rows.at(0);
  EXPECT_EQ(row.verdict, pa::Verdict::Inconclusive);
  EXPECT_TRUE(std::isnan(row.p));
  EXPECT_TRUE(contains(row.reason, "pha's inference run ")) << row.reason;
  EXPECT_TRUE(contains(row.reason, " has no point at L 8192, batch 1")) << row.reason;
  EXPECT_TRUE(contains(row.reason, "tpp-d128 has no inference run (its model was not measured)")) << row.reason;
  const std::string dir_of_store = std::filesystem::path(path).parent_path().string();
  EXPECT_TRUE(contains(row.reason, "measure the models: run \"pha bench inference --project " + dir_of_store +
                                       " --seq-lens 8192 --batches 1\""))
      << row.reason;
}

TEST(EfficiencyClaims, OneReplicaCannotHold) {
  ps::test::TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  ps::Store store = ps::Store::open(path);
  const pa::Study study = make_study(store,
                                     {{"tpp-d256", 4000000, "attention", {1.50}}, {"pha", 1000000, "hybrid", {1.50}}},
                                     json::parse(R"([{"claim": "efficiency", "run": "pha", "baseline": "tpp-d256",
                                                      "seq_len": 8192, "loss_tolerance": 0.02,
                                                      "throughput_ratio_at_least": 1.0}])"));
  ps::store_inference_results(path, "study", {point("pha", 8192, 200, 50, 1000000), point("tpp-d256", 8192, 100, 200, 4000000)});
  const pa::Report r = pa::build_report(study, store);
  const pa::ClaimRow& row = r.claims.at(0).rows.at(0);
  EXPECT_EQ(row.verdict, pa::Verdict::TooFewReplicas);
  EXPECT_NEAR(row.measured[2].values.at(0), 2.0, 1e-12) << "the ratio is still shown";
  EXPECT_TRUE(contains(row.reason, "pha has 1 replica with this metric (a verdict needs 3 or more): one replica gives one "
                                   "pair of ratios and no interval over replicas"))
      << row.reason;
}

TEST(EfficiencyClaims, AMarginWithinTheDecodeTimingsNoiseIsSaid) {
  ps::test::TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  ps::Store store = ps::Store::open(path);
  const pa::Study study = make_study(store,
                                     {{"tpp-d256", 4000000, "attention", {1.50, 1.50, 1.50}},
                                      {"pha", 1000000, "hybrid", {1.50, 1.50, 1.50}}},
                                     json::parse(R"([
    {"claim": "efficiency", "run": "pha", "baseline": "tpp-d256", "seq_len": 8192, "loss_tolerance": 0.02,
     "throughput_ratio_at_least": 1.0},
    {"claim": "efficiency", "run": "pha", "baseline": "tpp-d256", "seq_len": 8192, "loss_tolerance": 0.02,
     "phase": "prefill", "throughput_ratio_at_least": 1.0}
  ])"));
  // 2% faster, each decode step 10% either side of the median: 1.96 x sqrt(2) x 1.2533 x 1.4826 x
  // 0.1 / sqrt(32) = 9.1% on the log ratio, 9.5% on the ratio.
  ps::store_inference_results(path, "study",
                              {point("pha", 8192, 102, 50, 1000000, 0.1), point("tpp-d256", 8192, 100, 200, 4000000, 0.1)});
  const pa::Report r = pa::build_report(study, store);
  const pa::ClaimRow& decode = r.claims.at(0).rows.at(0);
  EXPECT_NEAR(decode.measured[2].values[0], 1.02, 1e-12);
  EXPECT_TRUE(contains(decode.reason, "the throughput ratio is within the decode timings' own noise of its threshold "
                                      "(±9.5%, the median decode step's standard error)"))
      << decode.reason;
  const pa::ClaimRow& prefill = r.claims.at(1).rows.at(0);
  EXPECT_NEAR(prefill.measured[2].values[0], 1.02, 1e-12) << "prefill tokens/s are 40x decode's in point()";
  EXPECT_EQ(prefill.label, "pha at L 8192, batch 1, prefill");
}

// A ratio measured once is reported as such, never with a p-value; timed three times (each model
// interleaved with its baseline), the interval and the test come from the repeats, even when
// every replica matched the same baseline run.
double hybrid_varies(const std::string& model, int repeat) { return model == "pha" ? 0.95 + 0.05 * repeat : 1.0; }

TEST(EfficiencyClaims, TimedOnceHasNoPValueTimedThreeTimesAnIntervalFromTheRepeats) {
  for (int timings : {1, 3}) {
    ps::test::TempDir dir;
    const std::string path = dir.file("runs.sqlite");
    ps::Store store = ps::Store::open(path);
    const pa::Study study = make_study(store,
                                       {{"tpp-d256", 4000000, "attention", {1.50, 1.50, 1.50}},
                                        {"pha", 1000000, "hybrid", {1.50, 1.50, 1.50}}},
                                       json::parse(R"([{"claim": "efficiency", "run": "pha", "baseline": "tpp-d256",
                                                        "seq_len": 8192, "loss_tolerance": 0.02,
                                                        "throughput_ratio_at_least": 1.5}])"));
    // pha 190, 200, 210 decode tokens/s against the baseline's 100 each time.
    ps::store_inference_results(path, "study",
                                timed({point("pha", 8192, 200, 50, 1000000), point("tpp-d256", 8192, 100, 200, 4000000)},
                                      timings, hybrid_varies));
    const pa::Report r = pa::build_report(study, store);
    const pa::ClaimRow& row = r.claims.at(0).rows.at(0);
    if (timings == 1) {
      EXPECT_TRUE(std::isnan(row.p)) << "a ratio timed once has no p-value";
      EXPECT_EQ(row.verdict, pa::Verdict::Inconclusive);
      EXPECT_TRUE(contains(row.reason, "measured once per model")) << row.reason;
      EXPECT_TRUE(contains(row.reason, "--repeats 3")) << row.reason;
      EXPECT_NEAR(row.measured[2].values[0], 1.9, 1e-12) << "the ratio is still reported";
      EXPECT_FALSE(contains(pa::render_markdown(r), "Holm, m = 1 ")) << "no adjusted p is printed";
      continue;
    }
    // Per timing log(ratio / 1.5): the same for every replica; the interval over the 3 timings.
    std::vector<double> x;
    for (double t : {1.9, 2.0, 2.1}) x.push_back(std::log(t / 1.5));
    const pa::Stats st = pa::summarize(x);
    ASSERT_TRUE(std::isfinite(row.p)) << row.reason;
    EXPECT_NEAR(row.p, pa::two_sided_p(st.mean / (st.std / std::sqrt(3.0)), 2.0), 1e-9);
    EXPECT_NEAR(row.test.df, 2.0, 1e-9) << "the replicas add no spread: the timings' df";
    EXPECT_EQ(row.verdict, pa::Verdict::Holds) << row.reason;
    const std::string ci = "[" + pa::num(1.5 * std::exp(st.ci_low)) + ", " + pa::num(1.5 * std::exp(st.ci_high)) + "]";
    EXPECT_TRUE(contains(row.reason, "throughput ratio: geometric mean " + pa::num(1.5 * std::exp(st.mean)) + " " + ci +
                                         " over 3 timings x 3 replicas"))
        << row.reason << "\nexpected " << ci;
    EXPECT_TRUE(contains(row.reason, "each model timed 3 times in fresh workers, interleaved with its baseline"))
        << row.reason;
  }
}

TEST(EfficiencyClaims, ClaimJsonErrorsNameTheField) {
  const auto claim = [](const std::string& extra) {
    return json::parse(R"([{"claim": "efficiency", "run": "pha", "baseline": "tpp-*", "seq_len": 8192)" + extra + "}]");
  };
  EXPECT_EQ(claim_error(claim(R"(, "throughput_ratio_at_least": 1.0)")),
            "claims[0].loss_tolerance: is required: how far apart two runs' final val/loss may be and count as equal "
            "quality (absolute, in its units); allowed: a number > 0, e.g. 0.02 for val/loss in nats");
  EXPECT_EQ(claim_error(claim(R"(, "loss_tolerance": 0, "throughput_ratio_at_least": 1.0)")),
            "claims[0].loss_tolerance: 0 is out of range; allowed: > 0 and <= 1e+09");
  EXPECT_EQ(claim_error(claim(R"(, "loss_tolerance": 0.02)")),
            "claims[0].throughput_ratio_at_least: is missing, and so is memory_ratio_at_most; allowed: one or both of "
            "\"throughput_ratio_at_least\" (the hybrid's tokens/s over the baseline's, e.g. 1.0) and "
            "\"memory_ratio_at_most\" (its memory over the baseline's, e.g. 1.0)");
  EXPECT_EQ(claim_error(claim(R"(, "loss_tolerance": 0.02, "memory_ratio_at_most": 1, "phase": "generate")")),
            "claims[0].phase: \"generate\" is not allowed; allowed: \"decode\", \"prefill\", \"e2e\"");
  EXPECT_EQ(claim_error(claim(R"(, "loss_tolerance": 0.02, "memory_ratio_at_mst": 1)")),
            "claims[0].memory_ratio_at_mst: unknown key; did you mean \"memory_ratio_at_most\"?");
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "efficiency", "run": "pha", "baseline": "gpt*", "seq_len": 8192,
                                        "loss_tolerance": 0.02, "memory_ratio_at_most": 1}])")),
            "claims[0].baseline: \"gpt*\" is not allowed (it names no run of the project); allowed: a variant or group "
            "of the project (\"pha\", \"tpp-d128\", \"tpp-d256\"), a pattern with '*' (\"transformerpp-d*\") or a list "
            "of them");
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "efficiency", "run": "pha", "baseline": ["tpp-d128", "*"],
                                        "seq_len": 8192, "loss_tolerance": 0.02, "memory_ratio_at_most": 1}])")),
            "claims[0].baseline[1]: \"*\" covers \"pha\", the claim's run; allowed: the baseline's variants or groups only");
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "efficiency", "run": "pha", "baseline": "tpp-*",
                                        "loss_tolerance": 0.02, "memory_ratio_at_most": 1}])")),
            "claims[0].seq_len: is required; allowed: an integer from 1 to 1048576");
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "efficiency", "run": "pha", "baseline": "tpp-*", "seq_len": 8192,
                                        "metric": "accuracy", "loss_tolerance": 0.02, "memory_ratio_at_most": 1}])")),
            "claims[0].metric: \"accuracy\" is the accuracy of task runs; this project trains on text; allowed: a run "
            "metric key (\"val/ppl\", \"val/loss\", \"test/ppl\", \"val/accuracy\", \"train/loss\"), \"accuracy\" (the "
            "held-out accuracy of task runs) or \"eval/<set>/<metric>[@T]\" (an evaluation row, e.g. "
            "\"eval/length/accuracy@400\")");
}

}  // namespace efficiency_claims_test
