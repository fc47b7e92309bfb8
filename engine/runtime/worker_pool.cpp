#include "runtime/worker_pool.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <thread>

#include "core/error.h"

extern char** environ;

namespace pha::runtime {

void run_worker_pool(const std::vector<std::vector<std::string>>& argvs, int jobs, RunControl& control,
                     const std::function<void(std::size_t)>& started,
                     const std::function<void(std::size_t, int)>& ended) {
  std::map<pid_t, std::size_t> live;
  std::size_t next = 0;
  std::string failed;  // the program that could not be started
  bool interrupted = false;
  while (next < argvs.size() || !live.empty()) {
    while (failed.empty() && !control.cancel_requested() && next < argvs.size() && static_cast<int>(live.size()) < jobs) {
      std::vector<char*> argv;
      for (const auto& a : argvs[next]) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      pid_t pid = 0;
      if (argv.size() < 2 || posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
        failed = argvs[next].empty() ? std::string("(no program)") : argvs[next][0];
        break;
      }
      live[pid] = next;
      if (started) started(next);
      ++next;
    }
    if (live.empty()) break;
    int status = 0;
    const pid_t done = waitpid(-1, &status, WNOHANG);
    if (done > 0) {
      const auto it = live.find(done);
      if (it != live.end()) {
        const std::size_t i = it->second;
        live.erase(it);
        if (ended) ended(i, status);
      }
      continue;
    }
    if (control.cancel_requested() && !interrupted) {
      for (const auto& [pid, i] : live) kill(pid, SIGINT);  // each worker checkpoints and ends cancelled
      interrupted = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!failed.empty()) throw core::Error(failed, "cannot start a worker process");
}

}  // namespace pha::runtime
