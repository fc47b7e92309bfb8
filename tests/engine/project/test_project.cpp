// Project files: variants and grid expansion, and bad files that must fail with an error naming
// the field or file while writing nothing (no store, no checkpoints).
#include <filesystem>
#include <fstream>

#include <set>

#include <gtest/gtest.h>

#include "core/error.h"
#include "model/flops.h"
#include "model/presets.h"
#include "runtime/job.h"
#include "runtime/profiler.h"
#include "analysis/report.h"
#include "project/project.h"
#include "project/project_report.h"
#include "engine/runtime/runtime_test_util.h"

using nlohmann::json;
using pha::project::load_project;

namespace {

// The error load_project and run_job give for `j` (written as project.json), and checks that
// nothing was written.
std::string project_error(const pha::test::TempProject& p) {
  std::string msg;
  try {
    load_project(p.dir().string());
  } catch (const pha::core::Error& e) {
    msg = e.what();
  }
  pha::runtime::RunObserver obs;
  pha::runtime::RunControl ctl;
  EXPECT_THROW(pha::runtime::run_job(pha::test::job_spec(p), obs, ctl), pha::core::Error);
  EXPECT_FALSE(std::filesystem::exists(p.dir() / "runs.sqlite")) << "a bad project must write nothing";
  EXPECT_FALSE(std::filesystem::exists(p.dir() / "checkpoints"));
  return msg;
}

TEST(Project, VariantsAndGridExpandInOrder) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["variants"] = json::array({"pha", json{{"name", "attn"}, {"model", {{"variant", "transformer"}}}, {"training", {{"lr", 0.001}}}}});
  j["grid"] = {{"model.d_model", {32, 64}}};
  p.write_project(j);
  const auto project = load_project(p.dir().string());
  ASSERT_EQ(project.runs.size(), 4u);
  EXPECT_EQ(project.runs[0].name, "pha/d_model=32");
  EXPECT_EQ(project.runs[1].name, "pha/d_model=64");
  EXPECT_EQ(project.runs[2].name, "attn/d_model=32");
  EXPECT_EQ(project.runs[1].model.d_model, 64);
  EXPECT_EQ(project.runs[2].variant, "transformer");
  EXPECT_DOUBLE_EQ(project.runs[2].training.lr, 0.001);
  EXPECT_DOUBLE_EQ(project.runs[0].training.lr, 0.003);
  EXPECT_GE(project.runs[0].model.vocab_size, 256) << "vocabulary follows the byte tokenizer";
  EXPECT_EQ(pha::runtime::runs_to_make(p.dir().string()).size(), 4u);
}

TEST(Project, PresetWithOverrides) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["model"] = {{"preset", "transformer-tiny"}, {"n_layers", 2}};
  p.write_project(j);
  const auto project = load_project(p.dir().string());
  EXPECT_EQ(project.runs[0].model.variant, "transformer");
  EXPECT_EQ(project.runs[0].model.n_layers, 2);
  EXPECT_EQ(project.runs[0].model.d_model, 128);
}

TEST(Project, SyntaxErrorNamesTheFile) {
  pha::test::TempProject p;
  p.write_raw("{\"name\": \"x\", \"data\": {\"kind\": \"file\",, }");
  const std::string msg = project_error(p);
  EXPECT_NE(msg.find("project.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("JSON syntax error"), std::string::npos) << msg;
}

TEST(Project, WrongTypeNamesTheField) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["training"]["lr"] = "fast";
  p.write_project(j);
  const std::string msg = project_error(p);
  EXPECT_NE(msg.find("training.lr"), std::string::npos) << msg;
}

TEST(Project, UnknownKeyNamesTheField) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["training"]["learning_rate"] = 0.1;
  p.write_project(j);
  EXPECT_NE(project_error(p).find("training.learning_rate"), std::string::npos);
  j = p.text_project();
  j["modle"] = json::object();
  p.write_project(j);
  EXPECT_NE(project_error(p).find("modle"), std::string::npos);
}

TEST(Project, ImpossibleDimensionsNameTheField) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["model"]["attention"]["kv_heads"] = 3;  // must divide heads = 2
  p.write_project(j);
  const std::string msg = project_error(p);
  EXPECT_NE(msg.find("model.attention"), std::string::npos) << msg;
  j = p.text_project();
  j["variants"] = json::array({json{{"name", "big"}, {"model", {{"d_model", 0}}}}});
  p.write_project(j);
  EXPECT_NE(project_error(p).find("variants[0].model.d_model"), std::string::npos);
}

TEST(Project, MissingDatasetNamesTheFile) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["data"]["path"] = (p.dir() / "no-such-corpus.txt").string();
  p.write_project(j);
  const std::string msg = project_error(p);
  EXPECT_NE(msg.find("no-such-corpus.txt"), std::string::npos) << msg;
  j.erase("data");
  p.write_project(j);
  EXPECT_NE(project_error(p).find("data"), std::string::npos);
}

TEST(Project, TaskDataSetsTheSequenceLengthAndTests) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["data"] = {{"kind", "task"},
               {"train", {{"task", "mqar"}, {"seq_len", 32}, {"num_kv_pairs", 2}, {"vocab_size", 64}}},
               {"sweeps", {"length"}}};
  p.write_project(j);
  EXPECT_NE(project_error(p).find("data.sweeps"), std::string::npos) << "MQAR needs an even T: no sweep over 75";
  j["data"].erase("sweeps");
  p.write_project(j);
  auto project = load_project(p.dir().string());
  EXPECT_EQ(project.runs[0].training.seq_len, 32);
  EXPECT_EQ(project.runs[0].model.vocab_size, 64);
  ASSERT_EQ(project.runs[0].data.test_tasks.size(), 1u);
  EXPECT_EQ(project.runs[0].data.test_tasks[0].second["seed"], 10);
  j["data"]["train"]["num_kv_pairs"] = 20;  // 4 * kv > T
  p.write_project(j);
  EXPECT_NE(project_error(p).find("data.train.num_kv_pairs"), std::string::npos);
}

TEST(Project, MixerLrDefaultsToLrAndIsValidated) {
  pha::test::TempProject p;
  json j = p.text_project({{"lr", 0.002}});
  j["grid"] = {{"training.lr", {0.001, 0.004}}};
  j["variants"] = json::array({"pha", json{{"name", "fast-mixer"}, {"training", {{"mixer_lr", 0.03}}}}});
  p.write_project(j);
  const auto project = load_project(p.dir().string());
  ASSERT_EQ(project.runs.size(), 4u);
  EXPECT_DOUBLE_EQ(project.runs[0].training.mixer_lr, 0.001) << "absent: follows the run's lr";
  EXPECT_DOUBLE_EQ(project.runs[1].training.mixer_lr, 0.004);
  EXPECT_DOUBLE_EQ(project.runs[2].training.mixer_lr, 0.03);
  EXPECT_DOUBLE_EQ(project.runs[2].training.lr, 0.001);
  EXPECT_DOUBLE_EQ(project.runs[2].config["training"]["mixer_lr"].get<double>(), 0.03) << "recorded with the run";

  j = p.text_project({{"mixer_lr", "fast"}});
  p.write_project(j);
  std::string msg = project_error(p);
  EXPECT_NE(msg.find("training.mixer_lr: expected a number, got a string (\"fast\")"), std::string::npos) << msg;
  j = p.text_project({{"mixer_lr", -0.1}});
  p.write_project(j);
  msg = project_error(p);
  EXPECT_NE(msg.find("training.mixer_lr: -0.1 is out of range; allowed: >= 0"), std::string::npos) << msg;
}

TEST(Project, ProfileSectionIsReadWithDefaultsAndValidated) {
  pha::test::TempProject p;
  json j = p.text_project();
  p.write_project(j);
  auto project = load_project(p.dir().string());
  EXPECT_FALSE(project.profile.present);
  EXPECT_EQ(project.profile.seq_lens, (std::vector<int>{128, 256, 512, 1024}));

  j["profile"] = {{"seq_lens", {64, 128}}, {"phases", {"train", "forward"}}, {"repeats", 3}, {"after_runs", false}};
  p.write_project(j);
  project = load_project(p.dir().string());
  EXPECT_TRUE(project.profile.present);
  EXPECT_FALSE(project.profile.after_runs);
  EXPECT_EQ(project.profile.seq_lens, (std::vector<int>{64, 128}));
  EXPECT_EQ(project.profile.phases, (std::vector<std::string>{"train", "forward"}));
  EXPECT_EQ(project.profile.repeats, 3);
  EXPECT_EQ(project.profile.warmup, 1);
  EXPECT_EQ(project.profile.tokens_per_batch, 2048);

  const std::vector<std::pair<json, std::string>> bad = {
      {{{"seq_lens", {64, "long"}}}, "profile.seq_lens[1]"},
      {{{"seq_lens", json::array()}}, "profile.seq_lens"},
      {{{"phases", {"backward"}}}, "profile.phases[0]"},
      {{{"repeats", 0}}, "profile.repeats"},
      {{{"device", "tpu"}}, "profile.device"},
      {{{"after_run", true}}, "profile.after_run"},
      {json("all"), "profile"}};
  for (const auto& [section, field] : bad) {
    j["profile"] = section;
    p.write_project(j);
    const std::string m = project_error(p);
    EXPECT_NE(m.find(field + ":"), std::string::npos) << section.dump() << " -> " << m;
  }
}

// Labelled by its variants entry when the entry's grid points train one model (only training
// keys vary), else by the grid point.
TEST(Project, ProfileSweepCoversEachDistinctModelOnceLabelledByItsRun) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["variants"] = json::array({"pha", "transformer"});
  j["grid"] = {{"training.lr", {0.001, 0.003}}};  // same models, different training
  j["profile"] = {{"seq_lens", {32, 64}}, {"phases", {"forward", "train"}}, {"tokens_per_batch", 256}};
  p.write_project(j);
  const auto sweep = pha::runtime::project_profile_sweep(load_project(p.dir().string()));
  EXPECT_EQ(sweep.models, (std::vector<std::string>{"pha", "transformer"}));
  ASSERT_EQ(sweep.model_configs.size(), 2u);
  EXPECT_EQ(sweep.model_configs[1]["variant"], "transformer");
  EXPECT_EQ(sweep.seq_lens, (std::vector<int>{32, 64}));
  EXPECT_EQ(sweep.tokens_per_batch, 256);
  // A grid over a model key: one model per point, named by the point.
  j["grid"] = {{"model.d_model", {32, 48}}};
  p.write_project(j);
  EXPECT_EQ(pha::runtime::project_profile_sweep(load_project(p.dir().string())).models,
            (std::vector<std::string>{"pha/d_model=32", "pha/d_model=48", "transformer/d_model=32",
                                      "transformer/d_model=48"}));
  EXPECT_EQ(pha::runtime::sweep_point_count(sweep), 8u);
}

TEST(Project, QuickstartTemplateTrainsTheMixerFasterAndProfilesAfterItsRuns) {
  pha::test::TempProject p;
  std::ifstream in(std::string(PHA_SOURCE_DIR) + "/projects/quickstart/project.json");
  json j = json::parse(in);
  j["data"] = p.text_project()["data"];  // the Gutenberg books may not be installed here
  const auto project = pha::project::parse_project(j, p.dir().string(), "quickstart/project.json");
  ASSERT_EQ(project.runs.size(), 18u);  // three variants, each at lr 3e-3 and 1e-2 (tune), on 3 selection seeds
  EXPECT_TRUE(project.tune.enabled);
  EXPECT_EQ(project.tune.select.key, "val/bpb");
  EXPECT_EQ(project.tune.confirm_seeds, (std::vector<int64_t>{10, 11, 12, 13}));
  EXPECT_EQ(project.runs[3].name, "pha-tiny/lr=0.01,seed=0");
  EXPECT_EQ(project.runs[3].tune_point, "lr=0.01");
  EXPECT_EQ(project.runs[3].grid_point, "");
  EXPECT_EQ(project.runs[6].entry, "transformerpp-tiny");
  // It answers its question: two primary claims, each able to pass the correction at 3 seeds.
  ASSERT_EQ(project.claims.size(), 2u);
  const pha::analysis::Study study = pha::project::study_of(project);
  for (const auto& c : project.claims) {
    EXPECT_TRUE(c.primary);
    EXPECT_EQ(pha::analysis::design_power(study, c, 2).underpowered, "") << c.better << " vs " << c.than;
  }
  EXPECT_TRUE(pha::analysis::baseline_checks(study).empty());
  for (const auto& run : project.runs) EXPECT_GT(run.training.mixer_lr, run.training.lr) << run.name;
  EXPECT_TRUE(project.profile.present);
  EXPECT_TRUE(project.profile.after_runs);
  EXPECT_EQ(project.profile.phases, (std::vector<std::string>{"train"}));
}

// Every folder under projects/ is a template a user opens: each loads (a corpus that is not on
// this machine listed, not refused: the paper templates validate without their data), has runs,
// and every study template declares seeds and the claims it tests.
TEST(Project, EveryTemplateInTheRepositoryLoads) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(PHA_SOURCE_DIR) / "projects";
  const std::set<std::string> examples = {"mqar", "seed2"};  // single-seed examples, no claims
  std::set<std::string> seen;
  pha::project::LoadOptions browse;
  browse.require_data = false;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    ASSERT_TRUE(fs::exists(entry.path() / "project.json"));
    pha::project::Project project;
    ASSERT_NO_THROW(project = load_project(entry.path().string(), browse));
    EXPECT_EQ(project.name, name);
    if (name.rfind("search-", 0) == 0) {  // search templates: a base variant or two and a "search" section
      EXPECT_TRUE(project.search.is_object());
      seen.insert(name);
      continue;
    }
    EXPECT_GE(project.runs.size(), 3u);
    if (!examples.count(name)) {
      // Three seeds (a tuned study chooses on them); a study with confirmation seeds reads its
      // claims on at least three fresh ones (the quickstart three, the studies five or more).
      EXPECT_GE(project.seeds.size(), 3u) << name;
      if (!project.tune.confirm_seeds.empty()) {
        EXPECT_GE(project.tune.confirm_seeds.size(), name == "quickstart" ? 4u : 5u) << name;
      }
      EXPECT_FALSE(project.claims.empty());
      // No claim is underpowered by design, except where the template keeps a design to show the
      // mark (none today), and no baseline has a shape nobody would train.
      const pha::analysis::Study study = pha::project::study_of(project);
      std::size_t m = 0;
      for (const auto& c : project.claims) m += c.primary ? pha::analysis::planned_tests(study, c) : 0;
      for (const auto& c : project.claims)
        if (c.primary) {
          EXPECT_EQ(pha::analysis::design_power(study, c, m).underpowered, "") << name << ": " << pha::analysis::statement(c);
        }
    }
    seen.insert(name);
  }
  for (const char* name : {"quickstart", "mqar", "seed2", "ablations", "sandwich", "seed2-efficiency", "seed2-length",
                           "seed2-ood", "paper-wikitext103-125m", "paper-openwebtext-125m", "scaling", "ranking"})
    EXPECT_TRUE(seen.count(name)) << name;
}

// The paper templates are GPU plans: 125M models, the GPT-2 tokenizer, bf16 on CUDA, and their
// data named (missing here unless someone put it there; then it loads with nothing missing).
TEST(Project, PaperTemplatesNameTheirDataAndAGpuSchedule) {
  pha::project::LoadOptions browse;
  browse.require_data = false;
  for (const char* name : {"paper-wikitext103-125m", "paper-openwebtext-125m"}) {
    SCOPED_TRACE(name);
    const auto project = load_project(std::string(PHA_SOURCE_DIR) + "/projects/" + name, browse);
    for (const auto& run : project.runs) {
      EXPECT_EQ(run.model.vocab_size, pha::model::kGpt2VocabSize);
      EXPECT_NEAR(pha::model::count_parameters(run.model).total / 125e6, 1.0, 0.03) << run.name;
      EXPECT_EQ(run.training.device, "cuda");
      EXPECT_EQ(run.training.precision, "bf16");
      EXPECT_EQ(run.training.seq_len, 1024);
    }
    for (const auto& m : project.missing_data)
      if (m.field == "data.path") { EXPECT_EQ(m.path.rfind("data/", 0), 0u) << m.path; }  // as the template names it
  }
}

}  // namespace

#include "runtime/profile_store.h"
#include "store/store.h"

TEST(ProfileStore, RecordsOneFinishedRunPerModelWithItsPerfRows) {
  pha::test::TempProject p;
  auto point = [](const std::string& model, int T, const std::string& phase, double tps, const std::string& error) {
    pha::runtime::ProfilePointResult r;
    r.spec.model = model;
    r.spec.seq_len = T;
    r.spec.batch = 4096 / T;
    r.spec.phase = phase;
    r.tokens_per_s = tps;
    r.peak_bytes = 1000 * T;
    r.n_params = 1286172;
    r.device = "cpu";
    r.method = "peak RSS of a fresh worker process";
    r.error = error;
    return r;
  };
  const std::vector<pha::runtime::ProfilePointResult> results = {
      point("pha-tiny", 512, "train", 2500, ""), point("pha-tiny", 1024, "train", 1800, ""),
      point("transformer-tiny", 512, "forward", 9000, ""), point("transformer-tiny", 8192, "train", 0, "timed out")};
  const auto ids = pha::runtime::store_profile_results(p.store(), "proj", results);
  ASSERT_EQ(ids.size(), 2u);
  auto s = pha::store::Store::open(p.store());
  const auto pha_run = s.get_run(ids[0]);
  ASSERT_TRUE(pha_run);
  EXPECT_EQ(pha_run->kind, pha::store::RunKind::Profile);
  EXPECT_EQ(pha_run->name, pha::runtime::profile_run_name("pha-tiny"));
  EXPECT_EQ(pha_run->status, pha::store::RunStatus::Finished);
  const auto rows = s.perf(ids[0]);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].tokens_per_s + rows[1].tokens_per_s, 4300.0);
  const auto t_rows = s.perf(ids[1]);
  ASSERT_EQ(t_rows.size(), 1u);  // the failed point is not a measurement
  EXPECT_EQ(t_rows[0].phase, "forward");
  EXPECT_NE(s.get_run(ids[1])->notes.find("timed out"), std::string::npos);
}

// A profile run's time is when its points were measured (each in its worker), not the moment it
// was recorded: the run table showed "0.0 s" for every profile.
TEST(ProfileStore, AProfileRunTakesTheTimeItsPointsWereMeasured) {
  pha::test::TempProject p;
  std::vector<pha::runtime::ProfilePointResult> results(2);
  for (int i = 0; i < 2; ++i) {
    results[i].spec.model = "pha-tiny";
    results[i].spec.seq_len = 128 << i;
    results[i].spec.phase = "train";
    results[i].tokens_per_s = 1000;
    results[i].started_ms = 1'700'000'000'000 + 20'000 * i;
    results[i].ended_ms = results[i].started_ms + 15'000;
  }
  const auto ids = pha::runtime::store_profile_results(p.store(), "proj", results);
  ASSERT_EQ(ids.size(), 1u);
  auto s = pha::store::Store::open(p.store());
  const auto run = s.get_run(ids[0]);
  EXPECT_EQ(run->started_at, 1'700'000'000'000);
  EXPECT_EQ(run->ended_at, 1'700'000'035'000);
}
