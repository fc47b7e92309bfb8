#include "runtime/internal/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "core/error.h"

extern char** environ;

namespace pha::runtime {

namespace {

std::string read_with_timeout(int fd, pid_t pid, int timeout_s, const RunControl* control, bool& timed_out,
                              bool& cancelled) {
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (control && control->cancel_requested()) {
      cancelled = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd p{fd, POLLIN, 0};
    // Short polls so that a cancel kills the worker within ~0.1 s.
    const int rc = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 100)));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

WorkerAnswer run_json_worker(const std::string& exe, const std::vector<std::string>& worker_args, int timeout_s,
                             const RunControl* control) {
  WorkerAnswer a;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw core::Error("profiler", "pipe() failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  std::vector<std::string> args = {exe};
  args.insert(args.end(), worker_args.begin(), worker_args.end());
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  a.started_ms = wall_ms();
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw core::Error(exe, "cannot start a worker process (posix_spawn error " + std::to_string(rc) + ")");
  }
  bool timed_out = false, cancelled = false;
  const std::string out = read_with_timeout(fds[0], pid, timeout_s, control, timed_out, cancelled);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  a.ended_ms = wall_ms();
  if (cancelled) {
    a.error = "cancelled";
    return a;
  }
  if (timed_out) {
    a.error = "timed out after " + std::to_string(timeout_s) + " s";
    return a;
  }
  if (WIFSIGNALED(status)) {
    a.error = "worker killed by signal " + std::to_string(WTERMSIG(status)) +
              (WTERMSIG(status) == SIGKILL ? " (out of memory?)" : "");
    return a;
  }
  // The answer is the last line that holds a JSON object (the worker may log before it).
  for (size_t begin = 0; begin < out.size();) {
    size_t end = out.find('\n', begin);
    if (end == std::string::npos) end = out.size();
    if (out[begin] == '{') a.json_line = out.substr(begin, end - begin);
    begin = end + 1;
  }
  if (a.json_line.empty())
    a.error = "worker exited with status " + std::to_string(WEXITSTATUS(status)) + ": no JSON answer";
  return a;
}

}  // namespace pha::runtime
