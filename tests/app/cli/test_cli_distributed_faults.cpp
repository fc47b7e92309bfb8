// `pha train --nproc N` when things go wrong, and beyond two ranks (label slow): a killed
// worker fails the run within the timeout, the store stays sound and the last checkpoint
// resumes on one process; Ctrl-C on the launcher cancels every rank at the same step with a
// checkpoint; four ranks train like one process.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "cli_runner.h"
#include "../../engine/runtime/runtime_test_util.h"
#include "nn/checkpoint.h"
#include "store/store.h"

namespace fs = std::filesystem;
using nlohmann::json;
using pha::test::TempProject;
using Clock = std::chrono::steady_clock;

namespace {

json training(int64_t steps, int64_t batch, int64_t checkpoint_every) {
  return {{"steps", steps}, {"batch_size", batch}, {"seq_len", 32}, {"lr", 0.003}, {"warmup_steps", 2},
          {"eval_every", 0}, {"final_eval_tokens", 256}, {"mixer_every", 50}, {"checkpoint_every", checkpoint_every},
          {"seed", 3}, {"threads", 1}, {"precision", "fp32"}};
}

// The launcher in the background, its output in a file.
struct Background {
  pid_t pid = -1;
  std::string log;
  Background(const std::string& args, const std::string& log_path) : log(log_path) {
    pid = fork();
    if (pid == 0) {
      const std::string cmd = std::string("exec '") + PHA_CLI_PATH + "' " + args + " > '" + log_path + "' 2>&1";
      execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  std::string output() const {
    std::ifstream in(log);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // Exit code, or -1 when it had not ended within `limit_s` (then it is killed).
  int wait(double limit_s) {
    const auto t0 = Clock::now();
    while (std::chrono::duration<double>(Clock::now() - t0).count() < limit_s) {
      int st = 0;
      if (waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    return -1;
  }
};

bool wait_for_file(const fs::path& p, double limit_s) {
  const auto t0 = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - t0).count() < limit_s) {
    if (fs::exists(p)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

pid_t rank_pid(const std::string& output, int rank) {
  std::smatch m;
  const std::regex re("rank " + std::to_string(rank) + " of \\d+ \\(local \\d+\\) is pid (\\d+)");
  return std::regex_search(output, m, re) ? static_cast<pid_t>(std::stol(m[1])) : -1;
}

std::vector<double> losses(const std::string& store, int64_t run) {
  auto s = pha::store::Store::open(store);
  std::vector<double> out;
  for (const auto& p : s.read_metric_full(run, "train/loss")) out.push_back(p.value);
  return out;
}

}  // namespace

TEST(CliDistributedFaults, AKilledWorkerFailsTheRunWithinTheTimeoutAndItsCheckpointResumesOnOneProcess) {
  TempProject p;
  p.write_project(p.text_project(training(3000, 4, 10)));
  const int timeout_s = 20;
  Background launcher("train '" + p.dir().string() + "' --no-profile --quiet --nproc 2 --dist-timeout " +
                          std::to_string(timeout_s),
                      (p.dir() / "launcher.log").string());
  ASSERT_TRUE(wait_for_file(p.dir() / "checkpoints/run-1/step-00000020.safetensors", 120)) << launcher.output();
  const pid_t victim = rank_pid(launcher.output(), 1);
  ASSERT_GT(victim, 0) << launcher.output();
  const auto killed_at = Clock::now();
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  const int code = launcher.wait(timeout_s + 60);
  const double seconds = std::chrono::duration<double>(Clock::now() - killed_at).count();
  EXPECT_NE(code, 0) << launcher.output();
  EXPECT_NE(code, -1) << "the launcher did not end: " << launcher.output();
  EXPECT_LT(seconds, timeout_s + 15.0) << launcher.output();

  std::string last;
  {
    auto s = pha::store::Store::open(p.store());
    EXPECT_EQ(s.integrity_check(), "ok");
    const auto run = s.get_run(1);
    ASSERT_TRUE(run);
    EXPECT_TRUE(run->status == pha::store::RunStatus::Failed || run->status == pha::store::RunStatus::Interrupted)
        << pha::store::to_string(run->status);
    EXPECT_LT(losses(p.store(), 1).size(), 3000u);
    const auto cks = s.checkpoints(1);
    ASSERT_FALSE(cks.empty());
    last = cks.back().path;
  }
  const auto ck = pha::nn::load_checkpoint(last);
  EXPECT_GE(ck.step, 20);
  EXPECT_FALSE(ck.model.empty());

  const int64_t target = ck.step + 5;
  const CliResult r = run_cli("train '" + p.dir().string() + "' --no-profile --quiet --nproc 1 --resume 1 --steps " +
                              std::to_string(target));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  auto s = pha::store::Store::open(p.store());
  EXPECT_EQ(s.get_run(1)->status, pha::store::RunStatus::Finished);
  EXPECT_EQ(s.summary(1, "train/loss")->last_step, target);
}

TEST(CliDistributedFaults, CtrlCOnTheLauncherCancelsEveryRankAtOneStepWithACheckpoint) {
  TempProject p;
  p.write_project(p.text_project(training(3000, 4, 0)));
  Background launcher("train '" + p.dir().string() + "' --no-profile --nproc 2 --dist-timeout 30",
                      (p.dir() / "launcher.log").string());
  const auto t0 = Clock::now();
  while (launcher.output().find("[test] step 1/") == std::string::npos &&
         std::chrono::duration<double>(Clock::now() - t0).count() < 120)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(kill(launcher.pid, SIGINT), 0);
  const int code = launcher.wait(60);
  EXPECT_EQ(code, 5) << launcher.output();  // kCancelled, as for one process
  auto s = pha::store::Store::open(p.store());
  EXPECT_EQ(s.get_run(1)->status, pha::store::RunStatus::Cancelled);
  const auto cks = s.checkpoints(1);
  ASSERT_EQ(cks.size(), 1u);
  EXPECT_EQ(pha::nn::load_checkpoint(cks[0].path).step, s.summary(1, "train/loss")->last_step);
  EXPECT_EQ(s.integrity_check(), "ok");
}

TEST(CliDistributedFaults, FourProcessesTrainLikeOneProcess) {
  TempProject one, four;
  one.write_project(one.text_project(training(6, 8, 0)));
  four.write_project(four.text_project(training(6, 8, 0)));
  ASSERT_EQ(run_cli("train '" + one.dir().string() + "' --no-profile --quiet").exit_code, 0);
  const CliResult r = run_cli("train '" + four.dir().string() + "' --no-profile --quiet --nproc 4 --dist-timeout 120");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto la = losses(one.store(), 1), lb = losses(four.store(), 1);
  ASSERT_EQ(la.size(), 6u);
  ASSERT_EQ(lb.size(), 6u);
  for (size_t i = 0; i < la.size(); ++i) EXPECT_LE(std::abs(la[i] - lb[i]) / std::abs(la[i]), 1e-4) << "step " << i + 1;
  EXPECT_EQ(pha::store::Store::open(four.store()).get_run(1)->world_size, 4);
}
