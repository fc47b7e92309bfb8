// Seeds as replicas: "seeds" / "repeats" expand every run (variant x grid point) into seeded
// replicas of one group; bad values fail naming the field; claims are validated against the
// runs; a training records each replica's group and seed, and the report reads them back.
#include <filesystem>

#include <gtest/gtest.h>

#include "core/error.h"
#include "error_message.h"
#include "runtime/job.h"
#include "project/project.h"
#include "project/project_report.h"
#include "engine/runtime/runtime_test_util.h"
#include "store/store.h"

using nlohmann::json;
using pha::project::load_project;

namespace {

std::string load_error(const pha::test::TempProject& p) {
  const std::string msg = pha::test::error_message([&] { load_project(p.dir().string()); });
  pha::runtime::RunObserver obs;
  pha::runtime::RunControl ctl;
  EXPECT_THROW(pha::runtime::run_job(pha::test::job_spec(p), obs, ctl), pha::core::Error);
  EXPECT_FALSE(std::filesystem::exists(p.dir() / "runs.sqlite")) << "a bad project must write nothing";
  return msg;
}

}  // namespace

TEST(ProjectSeeds, SeedsExpandEveryRunIntoReplicasOfOneGroup) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["variants"] = {"pha", "transformer"};
  j["grid"] = {{"model.d_model", {32, 64}}};
  j["seeds"] = {0, 5};
  p.write_project(j);
  const auto project = load_project(p.dir().string());
  ASSERT_EQ(project.runs.size(), 8u);
  const auto& r = project.runs;
  EXPECT_EQ(r[0].name, "pha/d_model=32,seed=0");
  EXPECT_EQ(r[1].name, "pha/d_model=32,seed=5");
  EXPECT_EQ(r[2].name, "pha/d_model=64,seed=0");
  EXPECT_EQ(r[7].name, "transformer/d_model=64,seed=5");
  EXPECT_EQ(r[1].group, "pha/d_model=32");
  EXPECT_EQ(r[1].entry, "pha");
  EXPECT_EQ(r[1].grid_point, "d_model=32");
  EXPECT_EQ(r[1].seed, 5u);
  EXPECT_EQ(r[1].training.seed, 5u);
  EXPECT_EQ(r[1].config["training"]["seed"], 5) << "the store records the replica's seed";
  EXPECT_EQ(r[1].model.d_model, 32);

  j.erase("grid");
  p.write_project(j);
  const auto plain = load_project(p.dir().string());
  ASSERT_EQ(plain.runs.size(), 4u);
  EXPECT_EQ(plain.runs[0].name, "pha/seed=0");
  EXPECT_EQ(plain.runs[0].group, "pha");
  EXPECT_EQ(plain.runs[0].grid_point, "");
}

TEST(ProjectSeeds, RepeatsCountFromEachRunsOwnSeedAndNoSeedsKeepsTheName) {
  pha::test::TempProject p;
  json j = p.text_project();  // training.seed 7
  j["variants"] = {"pha", json{{"name", "other"}, {"training", {{"seed", 100}}}}};
  j["repeats"] = 2;
  p.write_project(j);
  auto project = load_project(p.dir().string());
  ASSERT_EQ(project.runs.size(), 4u);
  EXPECT_EQ(project.runs[0].name, "pha/seed=7");
  EXPECT_EQ(project.runs[1].name, "pha/seed=8");
  EXPECT_EQ(project.runs[3].name, "other/seed=101");
  EXPECT_EQ(project.runs[3].training.seed, 101u);
  EXPECT_TRUE(project.repeats);

  j.erase("repeats");
  p.write_project(j);
  project = load_project(p.dir().string());
  ASSERT_EQ(project.runs.size(), 2u);
  EXPECT_EQ(project.runs[1].name, "other");
  EXPECT_EQ(project.runs[1].group, "other") << "a run without seeds is a group of one";
  EXPECT_EQ(project.runs[1].seed, 100u);
}

TEST(ProjectSeeds, BadSeedsNameTheField) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["seeds"] = {0, 1};
  j["repeats"] = 3;
  p.write_project(j);
  EXPECT_NE(load_error(p).find("repeats: is given with \"seeds\"; allowed: one of"), std::string::npos);
  j.erase("repeats");
  j["seeds"] = {0, 1, 0};
  p.write_project(j);
  EXPECT_NE(load_error(p).find("seeds[2]: 0 is listed twice; allowed: distinct seeds"), std::string::npos);
  j["seeds"] = json::array();
  p.write_project(j);
  EXPECT_NE(load_error(p).find("seeds: has 0 entries; allowed: 1 to 100 integers"), std::string::npos);
  j["seeds"] = {-1};
  p.write_project(j);
  EXPECT_NE(load_error(p).find("seeds[0]: -1 is out of range"), std::string::npos);
  j.erase("seeds");
  j["repeats"] = 0;
  p.write_project(j);
  EXPECT_NE(load_error(p).find("repeats: 0 is out of range; allowed: 1 to 100"), std::string::npos);
  j["repeats"] = 2;
  j["grid"] = {{"training.seed", {1, 2}}};
  p.write_project(j);
  EXPECT_NE(load_error(p).find("grid.training.seed: sets the seed that \"repeats\" sets"), std::string::npos);
  j["grid"] = {{"training.lr", json::array()}};
  for (int i = 0; i < 20; ++i) j["grid"]["training.lr"].push_back(0.001 * (i + 1));
  j["repeats"] = 60;
  p.write_project(j);
  EXPECT_NE(load_error(p).find("variants x grid points x seeds = 1200 runs is out of range"), std::string::npos);
  j.erase("grid");
  j["seed"] = 3;
  p.write_project(j);
  EXPECT_NE(load_error(p).find("seed: unknown key; did you mean \"seeds\"?"), std::string::npos);
}

TEST(ProjectSeeds, ClaimsAreValidatedAgainstTheRunsAndTheData) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["variants"] = {"pha", "sequential"};
  j["seeds"] = {0, 1};
  j["claims"] = json::parse(R"([{"claim": "lower_is_better", "metric": "val/ppl", "better": "pha", "than": "sequential",
                                 "paper": "16.42 vs 16.46"}])");
  p.write_project(j);
  const auto project = load_project(p.dir().string());
  ASSERT_EQ(project.claims.size(), 1u);
  EXPECT_EQ(project.claims[0].than, "sequential");

  j["claims"][0]["than"] = "sequentail";
  p.write_project(j);
  const std::string e = load_error(p);
  EXPECT_EQ(e.rfind("claims[0].than: \"sequentail\" is not allowed; allowed: \"pha\", \"sequential\" (in ", 0), 0u) << e;
  j["claims"][0]["than"] = "sequential";
  j["claims"][0]["paperr"] = "x";
  p.write_project(j);
  EXPECT_NE(load_error(p).find("claims[0].paperr: unknown key; did you mean \"paper\"?"), std::string::npos);
  j["claims"][0].erase("paperr");
  j["claims"][0]["metric"] = "accuracy";
  p.write_project(j);
  EXPECT_NE(load_error(p).find("is the accuracy of task runs; this project trains on text"), std::string::npos);
}

TEST(ProjectSeeds, TrainingRecordsEachReplicasGroupAndSeedAndTheReportReadsThem) {
  pha::test::TempProject p;
  json j = p.text_project({{"steps", 2}, {"eval_every", 0}, {"warmup_steps", 1}});
  j["variants"] = {"pha", "transformer"};
  j["seeds"] = {3, 4};
  j["claims"] = json::parse(R"([{"claim": "lower_is_better", "metric": "val/ppl", "better": "pha", "than": "transformer"}])");
  p.write_project(j);
  for (const auto& name : pha::runtime::runs_to_make(p.dir().string())) {
    pha::runtime::RunObserver obs;
    pha::runtime::RunControl ctl;
    pha::runtime::JobSpec spec = pha::test::job_spec(p);
    spec.run = name;
    ASSERT_EQ(pha::runtime::run_job(spec, obs, ctl).status, pha::runtime::JobStatus::Finished) << name;
  }
  auto s = pha::store::Store::open(p.store());
  pha::store::RunListQuery q;
  q.newest_first = false;
  const auto runs = s.list_runs(q);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[1].run.name, "pha/seed=4");
  EXPECT_EQ(runs[1].run.group, "pha");
  EXPECT_EQ(runs[1].run.seed, 4);
  EXPECT_EQ(runs[3].run.group, "transformer");
  const double ppl3 = s.summary(runs[0].run.id, "val/ppl")->last, ppl4 = s.summary(runs[1].run.id, "val/ppl")->last;
  EXPECT_NE(ppl3, ppl4) << "replicas with different seeds are different runs";

  const pha::analysis::Report r = pha::project::project_report(p.dir().string());
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].group, "pha");
  EXPECT_EQ(r.groups[0].family, "hybrid");
  EXPECT_EQ(r.groups[1].family, "attention");
  EXPECT_EQ(r.groups[0].replicas.size(), 2u);
  const auto& ppl = r.groups[0].metrics.at("val/ppl");
  EXPECT_EQ(ppl.n, 2u);
  EXPECT_DOUBLE_EQ(ppl.mean, (ppl3 + ppl4) / 2);
  ASSERT_EQ(r.claims.size(), 1u);
  EXPECT_DOUBLE_EQ(r.claims[0].rows[0].effect, ppl.mean - r.groups[1].metrics.at("val/ppl").mean);
  EXPECT_TRUE(r.notes.empty()) << r.notes.front();
}
