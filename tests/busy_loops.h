// Busy loops in their own processes (`sh -c 'while :; do :; done'`), killed when the object goes:
// a machine shared with a test suite or other studies, for the tests that must hold under load.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <vector>

extern char** environ;

namespace pha::test {

class BusyLoops {
 public:
  explicit BusyLoops(int n) {
    for (int i = 0; i < n; ++i) {
      const char* argv[] = {"/bin/sh", "-c", "while :; do :; done", nullptr};
      pid_t pid = 0;
      if (posix_spawn(&pid, argv[0], nullptr, nullptr, const_cast<char**>(argv), environ) == 0) pids_.push_back(pid);
    }
  }
  ~BusyLoops() {
    for (pid_t pid : pids_) ::kill(pid, SIGKILL);
    for (pid_t pid : pids_) ::waitpid(pid, nullptr, 0);
  }
  BusyLoops(const BusyLoops&) = delete;
  BusyLoops& operator=(const BusyLoops&) = delete;
  std::size_t size() const { return pids_.size(); }

 private:
  std::vector<pid_t> pids_;
};

}  // namespace pha::test
