// The headless CLI on the runtime: exit codes, kill -9 of a training process (store intact,
// run interrupted, metrics up to the last flush, the last checkpoint loads), runs / export /
// generate / bench, and the quickstart end to end at reduced size.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "core/error.h"
#include "core/paths.h"
#include "runtime/profile_job.h"
#include "runtime/trainer.h"
#include "engine/runtime/runtime_test_util.h"
#include "store/store.h"

extern char** environ;

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

TEST(CliRuntime, BadProjectExitsWithBadInputNamingTheField) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["training"]["steps"] = "many";
  p.write_project(j);
  const CliResult r = run_cli("train '" + p.dir().string() + "'");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("training.steps"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(p.store()));
}

TEST(CliRuntime, AbsurdLearningRateExitsDivergedAndSkipsTheProfile) {
  pha::test::TempProject p;
  json j = p.text_project({{"steps", 30}, {"lr", 1e6}, {"warmup_steps", 0}, {"eval_every", 0}});
  j["profile"] = {{"seq_lens", {16}}, {"tokens_per_batch", 32}, {"warmup", 0}, {"repeats", 1}};
  p.write_project(j);
  const CliResult r = run_cli("train --quiet '" + p.dir().string() + "'");
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_NE(r.output.find("diverged"), std::string::npos) << r.output;
  // The project queue's policy: the profile follows a complete pass only.
  EXPECT_NE(r.output.find("efficiency profile skipped: 1 run of the queue did not finish"), std::string::npos)
      << r.output;
  pha::store::RunListQuery q;
  q.kind = pha::store::RunKind::Profile;
  EXPECT_TRUE(pha::store::Store::open(p.store()).list_runs(q).empty());
}

TEST(CliRuntime, KillMinus9LeavesAConsistentStoreAndALoadableCheckpoint) {
  pha::test::TempProject p;
  p.write_project(p.text_project({{"steps", 100000}, {"checkpoint_every", 2}, {"eval_every", 0}, {"mixer_every", 1}}));
  std::vector<std::string> args = {PHA_CLI_PATH, "--threads", "1", "train", "--quiet", p.dir().string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, PHA_CLI_PATH, nullptr, nullptr, argv.data(), environ), 0);

  // Wait until the run has written a couple of checkpoints.
  int64_t run_id = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(4);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (!fs::exists(p.store())) continue;
    pha::store::OpenOptions o;
    o.recover_interrupted = false;
    auto s = pha::store::Store::open(p.store(), o);
    auto runs = s.list_runs();
    if (runs.empty()) continue;
    run_id = runs[0].run.id;
    if (s.checkpoints(run_id).size() >= 2) break;
  }
  ASSERT_GT(run_id, 0);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));

  auto s = pha::store::Store::open(p.store());
  EXPECT_EQ(s.integrity_check(), "ok");
  const auto info = s.get_run(run_id);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->status, pha::store::RunStatus::Interrupted);
  const auto ckpts = s.checkpoints(run_id);
  ASSERT_GE(ckpts.size(), 2u);
  const auto& last = ckpts.back();
  // Metrics are flushed before each checkpoint row: every step up to it is there.
  const auto losses = s.read_metric_full(run_id, "train/loss");
  ASSERT_GE(static_cast<int64_t>(losses.size()), last.step);
  for (int64_t i = 0; i < last.step; ++i) EXPECT_EQ(losses[static_cast<size_t>(i)].step, i + 1);
  // The last checkpoint loads into a model built from its own config.
  const json cfg = pha::runtime::checkpoint_config(last.path);
  pha::project::TrainingConfig tc;
  pha::runtime::Trainer t(pha::model::model_config_from_json(cfg.at("model")), tc, "cpu");
  EXPECT_EQ(t.load_checkpoint(last.path), last.step);
}

TEST(CliRuntime, RunsExportGenerateAndBench) {
  pha::test::TempProject p;
  p.write_project(p.text_project());
  const std::string dir = "'" + p.dir().string() + "'";
  CliResult r = run_cli("--threads 1 train --quiet " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_cli("runs list --project " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("finished"), std::string::npos) << r.output;
  r = run_cli("runs show 1 --project " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("mixer weights"), std::string::npos) << r.output;
  EXPECT_EQ(run_cli("runs show 99 --project " + dir).exit_code, 3);

  const std::string csv = (p.dir() / "m.csv").string(), weights = (p.dir() / "w.safetensors").string();
  r = run_cli("export --project " + dir + " --run 1 --key train/loss --out '" + csv + "' --weights '" + weights + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(csv);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 1 + 6) << "header + one row per step";
  EXPECT_GT(fs::file_size(weights), 1000u);
  r = run_cli("export --project " + dir + " --run 1 --format json");
  ASSERT_EQ(r.exit_code, 0);
  const json j = json::parse(r.output);
  EXPECT_EQ(j["metrics"]["train/loss"]["points"].size(), 6u);
  EXPECT_FALSE(j["mixer"].empty());

  r = run_cli("generate --project " + dir + " --run 1 --prompt 'the model' --tokens 20 --seed 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("the model", 0), 0u) << r.output;
  EXPECT_GT(r.output.size(), std::string("the model").size() + 5);

  r = run_cli("--threads 1 bench --models pha-tiny --seq-lens 32 --phases forward,train --tokens-per-batch 64 "
              "--repeats 1 --warmup 0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("pha-tiny"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("peak RSS (VmHWM) of a fresh worker process"), std::string::npos) << r.output;
}

// `pha runs show` of a task run of a model without a mixer: the held-out set says what it is
// (its T range and size), and the mixer section says there is none instead of printing NaN.
TEST(CliRuntime, RunsShowLabelsHeldOutSetsAndModelsWithoutAMixer) {
  pha::test::TempProject p;
  json j = p.text_project({{"steps", 2}, {"eval_every", 0}, {"batch_size", 2}, {"mixer_every", 1}});
  j["model"]["variant"] = "transformer";
  j["data"] = {{"kind", "task"},
               {"train", {{"task", "selective_copy"}, {"seq_len", 30}, {"seq_len_min", 20}, {"vocab_size", 8},
                          {"num_tokens_to_copy", 4}, {"num_examples", 100}}}};
  p.write_project(j);
  const std::string dir = "'" + p.dir().string() + "'";
  ASSERT_EQ(run_cli("--threads 1 train --quiet " + dir).exit_code, 0);
  const CliResult r = run_cli("runs show 1 --project " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("test                   (held-out T 20-30, 1000 seq.)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("mixer: none (every sub-layer of this model has a single branch"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("nan"), std::string::npos) << r.output;
}

TEST(CliRuntime, QuickstartEndToEndReduced) {
  if (!fs::exists(pha::core::gutenberg_dir())) GTEST_SKIP() << "Gutenberg corpus not installed at " << pha::core::gutenberg_dir();
  const char* src = PHA_SOURCE_DIR;
  pha::test::TempProject p;
  std::ifstream tmpl(std::string(src) + "/projects/quickstart/project.json");
  json j = json::parse(tmpl);
  j["training"].merge_patch({{"steps", 4}, {"warmup_steps", 1}, {"batch_size", 2}, {"seq_len", 64}, {"eval_every", 2},
                             {"eval_tokens", 256}, {"final_eval_tokens", 512}, {"mixer_every", 2}});
  ASSERT_TRUE(j.contains("profile")) << "the quickstart template profiles its models after the runs";
  j["profile"].merge_patch({{"seq_lens", {32, 64}}, {"tokens_per_batch", 64}, {"warmup", 0}, {"repeats", 1}});
  p.write_project(j);
  const CliResult r = run_cli("quickstart --dir '" + p.dir().string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* name : {"pha-tiny/lr=0.003,seed=0", "transformerpp-tiny/lr=0.01,seed=2", "sequential-tiny/lr=0.003,seed=1",
                           ",confirm,seed=13", "mixer weights of pha-tiny/",
                           "(no mixer in transformerpp, sequential: every sub-layer has a single branch",
                           "each variant at its better setting (chosen on val/bpb", "efficiency profile",
                           "recorded 3 profile run(s)",
                           "the claims, tested (Holm over the m = 2 tests of the primary claims, alpha 0.05",
                           "1. PHA beats the attention-only Transformer++ at equal size: ",
                           "2. PHA beats the sequential hybrid at equal size: ", "(paired by seed, n=4; p "})
    EXPECT_NE(r.output.find(name), std::string::npos) << name << "\n" << r.output;
  auto s = pha::store::Store::open(p.store());
  const auto runs = s.list_runs();
  // Three variants at two learning rates on 3 seeds, each choice on 4 confirmation seeds, then
  // one profile run per model.
  ASSERT_EQ(runs.size(), 18u + 12u + 3u);
  int profiles = 0;
  std::vector<std::string> profile_names;
  for (const auto& e : runs) {
    EXPECT_EQ(e.run.status, pha::store::RunStatus::Finished) << e.run.name;
    EXPECT_EQ(e.run.project, "quickstart") << e.run.name << ": every run under project.json's name";
    if (e.run.kind != pha::store::RunKind::Profile) continue;
    ++profiles;
    profile_names.push_back(e.run.name);
    const auto rows = s.perf(e.run.id);
    ASSERT_EQ(rows.size(), 2u) << e.run.name;  // T = 32 and 64, training step
    for (const auto& row : rows) EXPECT_GT(row.tokens_per_s, 0.0) << e.run.name;
  }
  EXPECT_EQ(profiles, 3);
  // One profile per model, named after its variants entry: the tuned learning rates train the
  // same model, so no "/lr=" point in the name.
  std::sort(profile_names.begin(), profile_names.end());
  EXPECT_EQ(profile_names, (std::vector<std::string>{"profile: pha-tiny", "profile: sequential-tiny",
                                                     "profile: transformerpp-tiny"}));

  // --no-profile trains without measuring (a second project folder)
  pha::test::TempProject q;
  q.write_project(j);
  const CliResult r2 = run_cli("quickstart --no-profile --dir '" + q.dir().string() + "'");
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  EXPECT_EQ(r2.output.find("efficiency profile"), std::string::npos) << r2.output;
  EXPECT_EQ(pha::store::Store::open(q.store()).list_runs().size(), 30u);  // the trained runs, no profile runs
}

TEST(CliRuntime, BenchProjectProfilesTheProjectsOwnModels) {
  pha::test::TempProject p;
  std::ifstream tmpl(std::string(PHA_SOURCE_DIR) + "/projects/quickstart/project.json");
  json j = json::parse(tmpl);
  j["variants"] = {"transformer-tiny"};
  j.erase("claims");  // they compare the template's variants
  p.write_project(j);
  const CliResult r = run_cli("--threads 1 bench --project '" + p.dir().string() +
                              "' --seq-lens 32 --phases train --tokens-per-batch 64 --repeats 1 --warmup 0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("transformer-tiny"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("pha-tiny"), std::string::npos) << "presets are not the project's models\n" << r.output;
  const auto runs = pha::store::Store::open(p.store()).list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run.name, "profile: transformer-tiny");
  EXPECT_EQ(runs[0].run.kind, pha::store::RunKind::Profile);
  // Recorded as the window and `pha train` record it: under project.json's name (not the
  // folder's) in the project's store.
  EXPECT_EQ(runs[0].run.project, "quickstart");
  EXPECT_NE(p.dir().filename().string(), "quickstart");

  // `pha runs list --kind` filters on the stored kind.
  CliResult list = run_cli("runs list --kind profile --project '" + p.dir().string() + "'");
  ASSERT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find("profile: transformer-tiny"), std::string::npos) << list.output;
  list = run_cli("runs list --kind train --project '" + p.dir().string() + "'");
  ASSERT_EQ(list.exit_code, 0) << list.output;
  EXPECT_EQ(list.output.find("transformer-tiny"), std::string::npos) << list.output;
}

// The engine job the window, `pha train` and `pha bench --project` share: it announces the
// sweep, measures each point in a worker (here the built `pha`), and records kind-profile runs
// under project.json's name in the project's store; a bad project fails before any store.
TEST(ProfileJob, RecordsProfileRunsUnderTheProjectsNameInItsStore) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["name"] = "named-in-json";
  j["variants"] = {"pha", "transformer"};
  j["profile"] = {{"seq_lens", {16}}, {"tokens_per_batch", 32}, {"warmup", 0}, {"repeats", 1}};
  p.write_project(j);
  pha::runtime::ProfileJobSpec spec;
  spec.project = p.dir().string();
  spec.threads = 1;
  spec.program = PHA_CLI_PATH;
  size_t announced = 0;
  spec.on_start = [&](const pha::runtime::ProfileSweep& s) { announced = pha::runtime::sweep_point_count(s); };
  pha::runtime::RunObserver obs;
  pha::runtime::RunControl ctl;
  const auto r = pha::runtime::run_profile_job(spec, obs, ctl);
  EXPECT_EQ(announced, 2u) << "2 models x 1 length x the train phase";
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.failed_points(), 0) << r.points[0].error;
  EXPECT_EQ(r.project, "named-in-json");
  EXPECT_EQ(r.store_path, p.store());
  EXPECT_FALSE(r.cancelled);
  ASSERT_EQ(r.run_ids.size(), 2u);
  auto s = pha::store::Store::open(p.store());
  for (int64_t id : r.run_ids) {
    const auto run = s.get_run(id);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->kind, pha::store::RunKind::Profile);
    EXPECT_EQ(run->project, "named-in-json");
    EXPECT_EQ(s.perf(id).size(), 1u);
  }

  pha::test::TempProject bad;
  json b = bad.text_project();
  b["profile"] = {{"seq_lens", "long"}};
  bad.write_project(b);
  spec.project = bad.dir().string();
  EXPECT_THROW(pha::runtime::run_profile_job(spec, obs, ctl), pha::core::Error);
  EXPECT_FALSE(fs::exists(bad.store())) << "a bad project writes nothing";
}

}  // namespace
