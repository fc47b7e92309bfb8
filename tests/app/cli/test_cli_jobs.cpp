// Runs side by side (`pha train --jobs N`, queue/side_by_side.h): a run's numbers do not depend
// on how many run at once (its threads come from its plan), bad input fails the command as in one
// process, and pause and cancel reach every live run and leave the store consistent.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <atomic>
#include <cstring>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "engine/runtime/runtime_test_util.h"
#include "project/project.h"
#include "project/project_queue.h"
#include "queue/side_by_side.h"
#include "queue/work_queue.h"
#include "store/store.h"

extern char** environ;

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A project of `seeds` runs of the tiny test model with no thread setting of its own: each run's
// threads come from the rule (one core for a model this small).
json jobs_project(const pha::test::TempProject& p, int seeds, const json& training = json::object()) {
  json j = p.text_project({{"steps", 12}, {"eval_every", 6}, {"mixer_every", 3}});
  j["training"].erase("threads");
  j["training"].merge_patch(training);
  j["seeds"] = json::array();
  for (int s = 0; s < seeds; ++s) j["seeds"].push_back(s);
  return j;
}

struct RunNumbers {
  std::vector<double> loss, evals;
  std::vector<float> mixer;
  std::string threads;
};

std::map<std::string, RunNumbers> numbers_of(const std::string& store_path) {
  auto s = pha::store::Store::open(store_path);
  std::map<std::string, RunNumbers> out;
  for (const auto& e : s.list_runs()) {
    RunNumbers& n = out[e.run.name];
    for (const auto& pt : s.read_metric_full(e.run.id, "train/loss")) n.loss.push_back(pt.value);
    for (const auto& row : s.evals(e.run.id)) n.evals.push_back(row.value);
    for (const auto& m : s.read_mixer_all(e.run.id)) n.mixer.insert(n.mixer.end(), m.weights.begin(), m.weights.end());
    const json env = json::parse(e.run.env_json, nullptr, false);
    n.threads = env.is_object() ? env.value("threads.policy", std::string()) : std::string();
  }
  return out;
}

TEST(CliJobs, JobsOneAndJobsTwoTrainBitIdenticalRuns) {
  pha::test::TempProject one, two;
  one.write_project(jobs_project(one, 3));
  two.write_project(jobs_project(two, 3));
  const CliResult a = run_cli("train --jobs 1 --quiet " + shell_word(one.dir()));
  ASSERT_EQ(a.exit_code, 0) << a.output;
  const CliResult b = run_cli("train --jobs 2 --quiet " + shell_word(two.dir()));
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_NE(b.output.find("jobs: 2 training runs side by side"), std::string::npos) << b.output;
  const auto x = numbers_of(one.store()), y = numbers_of(two.store());
  ASSERT_EQ(x.size(), 3u);
  ASSERT_EQ(y.size(), 3u);
  for (const auto& [name, n] : x) {
    ASSERT_TRUE(y.count(name)) << name;
    const RunNumbers& m = y.at(name);
    ASSERT_EQ(n.loss.size(), 12u) << name;
    EXPECT_EQ(n.loss, m.loss) << name;  // bit for bit, every step
    EXPECT_EQ(n.evals, m.evals) << name;
    ASSERT_FALSE(n.mixer.empty()) << name;
    EXPECT_EQ(0, std::memcmp(n.mixer.data(), m.mixer.data(), n.mixer.size() * sizeof(float))) << name;
    // The thread rule, recorded: the same whether the run trained alone or beside another.
    EXPECT_NE(n.threads.find("intra-op 1, BLAS 1: the run's rule"), std::string::npos) << n.threads;
    EXPECT_EQ(n.threads, m.threads);
  }
}

TEST(CliJobs, PlanEstimatesTheWallTimeOfTheRunsSideBySide) {
  pha::test::TempProject p;
  p.write_project(jobs_project(p, 4));
  const CliResult two = run_cli("plan --jobs 2 --format json " + shell_word(p.dir()));
  ASSERT_EQ(two.exit_code, 0) << two.output;
  const json a = json::parse(two.output.substr(two.output.find('{')), nullptr, false);
  ASSERT_TRUE(a.is_object()) << two.output;
  EXPECT_EQ(a.value("jobs", 0), 2);
  const double seconds = a.value("seconds", 0.0), wall = a.value("wall_seconds", 0.0);
  ASSERT_GT(seconds, 0.0) << two.output;
  // Four runs of one speed, two at a time: half the time one after another.
  EXPECT_NEAR(wall, seconds / 2, seconds * 1e-9);
  const CliResult one = run_cli("plan --jobs 1 --format json " + shell_word(p.dir()));
  ASSERT_EQ(one.exit_code, 0) << one.output;
  const json b = json::parse(one.output.substr(one.output.find('{')), nullptr, false);
  EXPECT_EQ(b.value("jobs", 0), 1);
  EXPECT_NEAR(b.value("wall_seconds", 0.0), b.value("seconds", -1.0), 1e-9);
  // Without --jobs: what `pha train` would use for these runs (one core each on this machine).
  const CliResult dflt = run_cli("plan " + shell_word(p.dir()));
  ASSERT_EQ(dflt.exit_code, 0) << dflt.output;
  if (std::thread::hardware_concurrency() >= 2) {
    EXPECT_NE(dflt.output.find("Side by side: "), std::string::npos) << dflt.output;
  }
}

TEST(CliJobs, BadDataFailsTheCommandAsInOneProcess) {
  pha::test::TempProject p;
  json j = jobs_project(p, 2);
  j["data"]["split"] = {{"train", 1.0}, {"valid", 0.0}, {"test", 0.0}};
  p.write_project(j);
  const CliResult r = run_cli("train --jobs 2 --quiet " + shell_word(p.dir()));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("data.split"), std::string::npos) << r.output;
}

// The queue's Train items of a project (as `pha train` queues them) and its settings.
struct Batch {
  pha::queue::WorkQueue queue;
  std::vector<pha::project::QueueItem> items;
};

void queue_project(Batch& b, const pha::test::TempProject& p) {
  b.queue.settings().program = PHA_CLI_PATH;
  const pha::project::Project project = pha::project::load_project(p.dir().string());
  b.queue.add_project(project, {});
  auto first = b.queue.next();
  ASSERT_TRUE(first);
  b.items = b.queue.with_trains_after(*first, SIZE_MAX);
}

// Records each run's last step (the observer is called on the thread that runs the batch).
struct StepsSeen : pha::runtime::RunObserver {
  std::atomic<std::int64_t> step{0};
  void on_step(const pha::runtime::StepMetrics& m) override { step.store(m.step); }
};

TEST(SideBySide, PauseHoldsEveryLiveRunAndResumeFinishesThem) {
  pha::test::TempProject p;
  p.write_project(jobs_project(p, 2, {{"steps", 400}, {"eval_every", 0}, {"seq_len", 64}, {"batch_size", 4}}));
  Batch b;
  ASSERT_NO_FATAL_FAILURE(queue_project(b, p));
  ASSERT_EQ(b.items.size(), 2u);
  StepsSeen seen[2];
  std::vector<pha::queue::QueueItemResult> results(2);
  pha::runtime::RunControl control;
  pha::queue::SideBySideHooks hooks;
  hooks.observer = [&](std::size_t i) -> pha::runtime::RunObserver& { return seen[i]; };
  hooks.ended = [&](std::size_t i, const pha::queue::QueueItemResult& r) { results[i] = r; };
  std::thread t([&] { pha::queue::run_side_by_side(b.items, b.queue.settings(), 2, control, hooks); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while ((seen[0].step < 5 || seen[1].step < 5) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (seen[0].step < 5 || seen[1].step < 5 || seen[0].step >= 400 || seen[1].step >= 400) {
    control.request_cancel();
    t.join();
    FAIL() << "the two runs were not live together (steps " << seen[0].step << ", " << seen[1].step << ")";
  }
  control.set_paused(true);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the step in flight ends
  const std::int64_t held[2] = {seen[0].step, seen[1].step};
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_EQ(seen[0].step, held[0]) << "run 0 trained while paused";
  EXPECT_EQ(seen[1].step, held[1]) << "run 1 trained while paused";
  control.set_paused(false);
  t.join();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(results[i].status, "finished") << results[i].reason;
    EXPECT_EQ(results[i].steps_done, 400);
  }
  auto s = pha::store::Store::open(p.store());
  EXPECT_EQ(s.integrity_check(), "ok");
  for (const auto& e : s.list_runs()) {
    EXPECT_EQ(e.run.status, pha::store::RunStatus::Finished) << e.run.name;
    EXPECT_EQ(s.read_metric_full(e.run.id, "train/loss").size(), 400u) << e.run.name;
  }
}

TEST(SideBySide, CancelWithTwoLiveRunsCheckpointsBothAndStartsNoOther) {
  pha::test::TempProject p;
  p.write_project(jobs_project(p, 3, {{"steps", 100000}, {"eval_every", 0}, {"checkpoint_every", 1000}}));
  Batch b;
  ASSERT_NO_FATAL_FAILURE(queue_project(b, p));
  ASSERT_EQ(b.items.size(), 3u);
  StepsSeen seen[3];
  std::vector<pha::queue::QueueItemResult> results(3);
  std::vector<bool> ended(3, false);
  pha::runtime::RunControl control;
  pha::queue::SideBySideHooks hooks;
  hooks.observer = [&](std::size_t i) -> pha::runtime::RunObserver& { return seen[i]; };
  hooks.ended = [&](std::size_t i, const pha::queue::QueueItemResult& r) {
    results[i] = r;
    ended[i] = true;
  };
  std::vector<std::size_t> never;
  std::thread t([&] { never = pha::queue::run_side_by_side(b.items, b.queue.settings(), 2, control, hooks); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while ((seen[0].step < 3 || seen[1].step < 3) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const bool both_live = seen[0].step >= 3 && seen[1].step >= 3 && seen[2].step == 0;
  control.request_cancel();
  t.join();
  ASSERT_TRUE(both_live) << "two runs never trained side by side";
  ASSERT_EQ(never, std::vector<std::size_t>{2});  // the third never started
  EXPECT_FALSE(ended[2]);
  auto s = pha::store::Store::open(p.store());
  EXPECT_EQ(s.integrity_check(), "ok");
  const auto runs = s.list_runs();
  ASSERT_EQ(runs.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(results[i].status, "cancelled") << results[i].reason;
    EXPECT_GT(results[i].run_id, 0);
    auto info = s.get_run(results[i].run_id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->status, pha::store::RunStatus::Cancelled);
    const auto cps = s.checkpoints(results[i].run_id);
    ASSERT_FALSE(cps.empty()) << "a cancelled run keeps its checkpoint";
    EXPECT_TRUE(fs::exists(cps.back().path));
    EXPECT_EQ(cps.back().step, results[i].steps_done);
  }
  // The queue: the started runs ended, the one that never started is pending again.
  for (int i = 0; i < 2; ++i) b.queue.ended(b.items[i], results[i]);
  std::vector<pha::project::QueueItem> back = {b.items[2]};
  b.queue.put_back(back);
  EXPECT_FALSE(b.queue.busy());
  EXPECT_EQ(b.queue.pending(), 1u);
}

TEST(CliJobs, SigintCancelsEveryLiveRunWithItsCheckpoint) {
  pha::test::TempProject p;
  p.write_project(jobs_project(p, 3, {{"steps", 100000}, {"eval_every", 0}, {"checkpoint_every", 1000}}));
  std::vector<std::string> args = {PHA_CLI_PATH, "train", "--jobs", "2", "--quiet", p.dir().string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, PHA_CLI_PATH, nullptr, nullptr, argv.data(), environ), 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  bool both = false;
  while (!both && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (!fs::exists(p.store())) continue;
    pha::store::OpenOptions o;
    o.recover_interrupted = false;
    auto s = pha::store::Store::open(p.store(), o);
    int stepping = 0;
    for (const auto& e : s.list_runs())
      if (s.last_point(e.run.id, "train/loss")) ++stepping;
    both = stepping == 2;
  }
  ASSERT_TRUE(both) << "two runs never trained side by side";
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 5);  // cancelled
  auto s = pha::store::Store::open(p.store());
  EXPECT_EQ(s.integrity_check(), "ok");
  const auto runs = s.list_runs();
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& e : runs) {
    EXPECT_EQ(e.run.status, pha::store::RunStatus::Cancelled) << e.run.name;
    const auto cps = s.checkpoints(e.run.id);
    ASSERT_FALSE(cps.empty()) << e.run.name;
    EXPECT_TRUE(fs::exists(cps.back().path));
  }
}

}  // namespace
