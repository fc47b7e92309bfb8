// The data-parallel launcher: fork/exec of this program per rank, signal forwarding, and the
// fault policy (cmd_launch.h; docs/distributed.md, "Faults").
#include "cmd_launch.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "commands.h"
#include "core/error.h"
#include "distributed/local_workers.h"

namespace pha::cli {

namespace {

using Clock = std::chrono::steady_clock;
std::atomic<int> g_launcher_signals{0};
std::atomic<int> g_last_signal{0};

void on_launcher_signal(int sig) {
  g_last_signal.store(sig);
  g_launcher_signals.fetch_add(1);
}

// This process's argv, as the kernel recorded it: the workers run exactly the same command.
std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  std::string cur;
  for (char c : all) {
    if (c == '\0') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (args.empty()) throw core::Error("/proc/self/cmdline", "could not read this program's arguments");
  return args;
}

}  // namespace

// The fault policy (who ended, who gets how long, who is killed) reads
// best as one loop over the worker set.
int launch_workers(const LaunchOptions& o) {
  if (o.nproc < 1) throw core::Error("--nproc", "must be at least 1");
  if (o.nnodes < 1 || o.node_rank < 0 || o.node_rank >= o.nnodes)
    throw core::Error("--node-rank", std::to_string(o.node_rank) + " is not in 0 .. --nnodes - 1 (" +
                                   std::to_string(o.nnodes - 1) + ")");
  const int world = o.nproc * o.nnodes;
  const int port =
      o.master_port > 0 ? o.master_port : (o.nnodes == 1 ? distributed::free_loopback_port() : 29500);
  const std::vector<std::string> args = own_arguments();
  const bool set_threads = o.threads == 0 && !std::getenv("PHA_THREADS");
  struct sigaction sa {};
  sa.sa_handler = on_launcher_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  std::vector<pid_t> pids;
  for (int local = 0; local < o.nproc; ++local) {
    const int rank = o.node_rank * o.nproc + local;
    distributed::DistConfig cfg;
    cfg.rank = rank;
    cfg.world_size = world;
    cfg.local_rank = local;
    cfg.master_addr = o.master_addr;
    cfg.master_port = port;
    cfg.timeout_s = o.timeout_s;
    const auto env = distributed::rank_environment(cfg, o.nproc, set_threads ? distributed::threads_per_rank(o.nproc) : 0);
    pids.push_back(distributed::spawn_worker("/proc/self/exe", args, env));
    std::fprintf(stderr, "pha: rank %d of %d (local %d) is pid %d\n", rank, world, local, static_cast<int>(pids.back()));
  }
  std::fflush(stderr);

  // Fault policy: rank 0 (the writer) ended -> the others get 5 s, then SIGKILL (they write
  // nothing). Another rank died -> rank 0 fails at its next collective (peer gone) or by the
  // timeout, marks the run and exits; everyone left is killed after timeout + 30 s.
  std::vector<int> codes(pids.size(), -1);
  size_t alive = pids.size();
  int forwarded = 0, first_failure = 0;
  std::optional<Clock::time_point> kill_at;
  const bool has_writer = o.node_rank == 0;
  while (alive > 0) {
    const int sigs = g_launcher_signals.load();
    for (; forwarded < sigs; ++forwarded)
      for (size_t i = 0; i < pids.size(); ++i)
        if (codes[i] < 0) kill(pids[i], g_last_signal.load() == SIGTERM ? SIGTERM : SIGINT);
    for (size_t i = 0; i < pids.size(); ++i) {
      int st = 0;
      if (codes[i] >= 0 || waitpid(pids[i], &st, WNOHANG) != pids[i]) continue;
      codes[i] = distributed::exit_code_of(st);
      --alive;
      if (codes[i] != 0 && first_failure == 0) first_failure = codes[i];
      if (codes[i] != 0)
        std::fprintf(stderr, "pha: rank %d exited with %d\n", o.node_rank * o.nproc + static_cast<int>(i), codes[i]);
      const auto grace = (i == 0 && has_writer) ? std::chrono::seconds(5) : std::chrono::seconds(o.timeout_s + 30);
      if (codes[i] != 0 || (i == 0 && has_writer)) {
        const auto t = Clock::now() + grace;
        if (!kill_at || t < *kill_at) kill_at = t;
      }
    }
    if (kill_at && Clock::now() > *kill_at)
      for (size_t i = 0; i < pids.size(); ++i)
        if (codes[i] < 0) kill(pids[i], SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  // The run's outcome is rank 0's (it recorded it); a worker killed by a signal is a failure.
  const int code = has_writer ? codes[0] : first_failure;
  return code > 127 ? kFailure : code;
}

}  // namespace pha::cli
