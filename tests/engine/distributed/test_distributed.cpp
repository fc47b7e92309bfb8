// engine/distributed across real processes on the loopback interface: N copies of dist_worker
// with the torchrun environment, each checking its own results (dist_worker.cpp).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "distributed/process_group.h"

namespace {

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

struct Outcome {
  std::vector<int> codes;  // exit code per rank (-1: killed by a signal)
  std::vector<double> seconds;  // per rank: start to exit
};

// Starts `n` workers with RANK etc. set, waits for all (killing them after `limit_s`).
Outcome run_workers(int n, const std::string& scenario, int timeout_s, double limit_s = 120.0) {
  const int port = free_port();
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r) {
    const pid_t pid = fork();
    if (pid == 0) {
      setenv("RANK", std::to_string(r).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(n).c_str(), 1);
      setenv("MASTER_ADDR", "127.0.0.1", 1);
      setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      setenv("PHA_DIST_TIMEOUT", std::to_string(timeout_s).c_str(), 1);
      setenv("PHA_THREADS", "1", 1);
      execl(PHA_DIST_WORKER, PHA_DIST_WORKER, scenario.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    pids.push_back(pid);
  }
  Outcome o;
  o.codes.assign(static_cast<size_t>(n), -2);
  o.seconds.assign(static_cast<size_t>(n), 0.0);
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  size_t left = pids.size();
  while (left > 0) {
    for (size_t i = 0; i < pids.size(); ++i) {
      if (o.codes[i] != -2) continue;
      int st = 0;
      if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
        o.codes[i] = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        o.seconds[i] = elapsed();
        --left;
      }
    }
    if (elapsed() > limit_s)
      for (size_t i = 0; i < pids.size(); ++i)
        if (o.codes[i] == -2) kill(pids[i], SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return o;
}

}  // namespace

TEST(Distributed, TwoRanksAgreeOnSumsBroadcastsAndFlags) {
  const Outcome o = run_workers(2, "collectives", 60);
  EXPECT_EQ(o.codes, (std::vector<int>{0, 0}));
}

TEST(Distributed, BucketedHookAllreduceEqualsTheWholeBatchGradientOnTwoRanks) {
  const Outcome o = run_workers(2, "reducer", 60);
  EXPECT_EQ(o.codes, (std::vector<int>{0, 0}));
}

TEST(Distributed, BucketedHookAllreduceEqualsTheWholeBatchGradientOnFourRanks) {
  const Outcome o = run_workers(4, "reducer", 120, 300.0);
  EXPECT_EQ(o.codes, (std::vector<int>{0, 0, 0, 0}));
}

TEST(Distributed, ADeadPeerFailsTheOtherRankWithAnError) {
  const Outcome o = run_workers(2, "dead-peer", 10);
  EXPECT_EQ(o.codes[0], 3);  // a core::Error, not a hang, not a crash
  EXPECT_LT(o.seconds[0], 30.0);
}

TEST(Distributed, AHungPeerFailsTheOtherRankWithinTheTimeout) {
  const Outcome o = run_workers(2, "hung-peer", 3, 30.0);
  EXPECT_EQ(o.codes[0], 3);
  EXPECT_LT(o.seconds[0], 20.0);  // 3 s timeout plus start-up; the hung rank sleeps 12 s
}

TEST(Distributed, EnvironmentIsReadLikeTorchrunAndBadValuesNameTheVariable) {
  setenv("WORLD_SIZE", "4", 1);
  setenv("RANK", "2", 1);
  setenv("LOCAL_RANK", "0", 1);
  setenv("MASTER_ADDR", "10.0.0.7", 1);
  setenv("MASTER_PORT", "29511", 1);
  setenv("PHA_DIST_TIMEOUT", "42", 1);
  auto c = pha::distributed::config_from_env();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->world_size, 4);
  EXPECT_EQ(c->rank, 2);
  EXPECT_EQ(c->local_rank, 0);
  EXPECT_EQ(c->master_addr, "10.0.0.7");
  EXPECT_EQ(c->master_port, 29511);
  EXPECT_EQ(c->timeout_s, 42.0);
  setenv("RANK", "4", 1);
  try {
    pha::distributed::config_from_env();
    ADD_FAILURE() << "RANK 4 of 4 accepted";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), "RANK");
  }
  for (const char* v : {"WORLD_SIZE", "RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "PHA_DIST_TIMEOUT"}) unsetenv(v);
  EXPECT_FALSE(pha::distributed::config_from_env());
  EXPECT_EQ(pha::distributed::resolve_backend("auto", "cpu"), "gloo");
  EXPECT_THROW(pha::distributed::resolve_backend("mpi", "cpu"), pha::core::Error);
}
