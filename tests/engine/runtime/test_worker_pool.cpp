// The engine's scheduler of worker processes (runtime/worker_pool.h), on small shell programs:
// at most `jobs` live at once and every one waited for; a cancel sends each live worker one
// SIGINT (a second one makes `pha` exit at once, without its checkpoint) and starts no other;
// a program that cannot be started is an error naming it.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/error.h"
#include "runtime/worker_pool.h"

namespace fs = std::filesystem;
using pha::runtime::RunControl;
using pha::runtime::run_worker_pool;

namespace {

std::vector<std::string> shell(const std::string& script) { return {"/bin/sh", "-c", script}; }

int lines_of(const fs::path& file) {
  std::ifstream in(file);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

}  // namespace

TEST(WorkerPool, RunsAtMostJobsAtOnceAndWaitsForEveryOne) {
  std::vector<std::vector<std::string>> argvs(5, shell("sleep 0.2"));
  argvs[3] = shell("exit 7");
  RunControl control;
  int live = 0, most = 0, ended = 0;
  std::vector<int> status(5, -1);
  std::vector<size_t> order;
  run_worker_pool(
      argvs, 2, control,
      [&](size_t i) {
        order.push_back(i);
        most = std::max(most, ++live);
      },
      [&](size_t i, int st) {
        --live;
        ++ended;
        status[i] = st;
      });
  EXPECT_EQ(most, 2);
  EXPECT_EQ(ended, 5);
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));  // started in order
  for (size_t i = 0; i < 5; ++i) {
    ASSERT_TRUE(WIFEXITED(status[i])) << i;
    EXPECT_EQ(WEXITSTATUS(status[i]), i == 3 ? 7 : 0) << i;
  }
}

TEST(WorkerPool, ACancelSendsEachLiveWorkerOneSigintAndStartsNoOther) {
  const fs::path dir = fs::temp_directory_path() / ("pha-worker-pool-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // Each worker writes a line per SIGINT it gets and keeps running for about a second, so that
  // a scheduler that repeated the signal would be seen.
  std::vector<std::vector<std::string>> argvs;
  for (int i = 0; i < 4; ++i) {
    const std::string f = (dir / ("w" + std::to_string(i))).string();
    argvs.push_back(shell("trap 'echo int >> " + f + "' INT; touch " + f +
                          ".up; i=0; while [ $i -lt 10 ]; do sleep 0.1; i=$((i+1)); done"));
  }
  RunControl control;
  int started = 0, ended = 0;
  std::thread canceller([&] {
    // Cancel once both first workers have their trap set.
    for (int k = 0; k < 100 && !(fs::exists(dir / "w0.up") && fs::exists(dir / "w1.up")); ++k)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    control.request_cancel();
  });
  run_worker_pool(argvs, 2, control, [&](size_t) { ++started; }, [&](size_t, int) { ++ended; });
  canceller.join();
  EXPECT_EQ(started, 2);
  EXPECT_EQ(ended, 2);
  EXPECT_EQ(lines_of(dir / "w0"), 1);
  EXPECT_EQ(lines_of(dir / "w1"), 1);
  EXPECT_FALSE(fs::exists(dir / "w2.up"));
  fs::remove_all(dir);
}

TEST(WorkerPool, AProgramThatCannotStartIsAnErrorNamingIt) {
  RunControl control;
  int ended = 0;
  try {
    run_worker_pool({{"/nonexistent/pha-worker"}}, 2, control, nullptr, [&](size_t, int) { ++ended; });
    FAIL() << "no error";
  } catch (const pha::core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/pha-worker"), std::string::npos) << e.what();
  }
  EXPECT_EQ(ended, 0);
}
