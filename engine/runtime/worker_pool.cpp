#include "runtime/worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "core/error.h"
#include "runtime/event_stream.h"

extern char** environ;

namespace pha::runtime {

namespace {

struct Worker {
  std::size_t index = 0;
  int events = -1;     // the read end of its event pipe (-1: none, or closed at its end)
  std::string partial; // a line not yet complete
};

// Reads what is there (non-blocking) and hands out complete lines; closes the descriptor at its end.
void read_lines(Worker& w, const WorkerPoolOptions& options) {
  char buf[8192];
  while (w.events >= 0) {
    const ssize_t n = ::read(w.events, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;  // EAGAIN: nothing more for now
    if (n == 0) {
      ::close(w.events);
      w.events = -1;
      break;
    }
    w.partial.append(buf, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = w.partial.find('\n', start)) != std::string::npos; start = nl + 1)
      if (options.on_line) options.on_line(w.index, w.partial.substr(start, nl - start));
    w.partial.erase(0, start);
  }
}

// The environment of a worker: this process's, with $PHA_EVENT_FD=3 when it gets a pipe.
std::vector<std::string> worker_environment(bool events) {
  std::vector<std::string> env;
  const std::string key = std::string(kEventFdEnv) + "=";
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, key.c_str(), key.size()) != 0) env.emplace_back(*e);
  if (events) env.push_back(key + "3");
  return env;
}

}  // namespace

void run_worker_pool(const std::vector<std::vector<std::string>>& argvs, int jobs, RunControl& control,
                     const std::function<void(std::size_t)>& started,
                     const std::function<void(std::size_t, int)>& ended, const WorkerPoolOptions& options) {
  const bool events = static_cast<bool>(options.on_line);
  const std::vector<std::string> env_strings = worker_environment(events);
  std::vector<char*> envp;
  for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  std::map<pid_t, Worker> live;
  std::size_t next = 0;
  std::string failed;  // the program that could not be started
  bool interrupted = false;
  bool paused_sent = false;
  while (next < argvs.size() || !live.empty()) {
    const bool paused = options.forward_pause && control.paused();
    while (failed.empty() && !control.cancel_requested() && !paused && next < argvs.size() &&
           static_cast<int>(live.size()) < jobs) {
      std::vector<char*> argv;
      for (const auto& a : argvs[next]) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      posix_spawnattr_t attr;
      posix_spawnattr_init(&attr);
      short flags = 0;
      if (options.forward_pause) {  // held until the worker handles them
        sigset_t mask;
        sigprocmask(SIG_BLOCK, nullptr, &mask);
        sigaddset(&mask, SIGUSR1);
        sigaddset(&mask, SIGUSR2);
        posix_spawnattr_setsigmask(&attr, &mask);
        flags |= POSIX_SPAWN_SETSIGMASK;
      }
      posix_spawnattr_setflags(&attr, flags);
      posix_spawn_file_actions_t actions;
      posix_spawn_file_actions_init(&actions);
      int pipe_fds[2] = {-1, -1};
      if (events) {
        int raw[2];
        if (::pipe2(raw, O_CLOEXEC) == 0) {
          // Above 3, so that the dup2 onto 3 always makes a new descriptor without close-on-exec.
          pipe_fds[0] = ::fcntl(raw[0], F_DUPFD_CLOEXEC, 10);
          pipe_fds[1] = ::fcntl(raw[1], F_DUPFD_CLOEXEC, 10);
          ::close(raw[0]);
          ::close(raw[1]);
          ::fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
          posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 3);
        }
      }
      pid_t pid = 0;
      const bool ok = argv.size() >= 2 && (!events || pipe_fds[0] >= 0) &&
                      posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), envp.data()) == 0;
      posix_spawn_file_actions_destroy(&actions);
      posix_spawnattr_destroy(&attr);
      if (pipe_fds[1] >= 0) ::close(pipe_fds[1]);
      if (!ok) {
        if (pipe_fds[0] >= 0) ::close(pipe_fds[0]);
        failed = argvs[next].empty() ? std::string("(no program)") : argvs[next][0];
        break;
      }
      live[pid] = Worker{next, pipe_fds[0], {}};
      if (started) started(next);
      ++next;
    }
    if (live.empty()) break;
    if (options.forward_pause && paused != paused_sent) {
      for (const auto& [pid, w] : live) kill(pid, paused ? SIGUSR1 : SIGUSR2);
      paused_sent = paused;
    }
    int status = 0;
    const pid_t done = waitpid(-1, &status, WNOHANG);
    if (done > 0) {
      const auto it = live.find(done);
      if (it != live.end()) {
        Worker w = std::move(it->second);
        live.erase(it);
        read_lines(w, options);  // what it wrote before it ended is in the pipe
        if (w.events >= 0) ::close(w.events);
        if (ended) ended(w.index, status);
      }
      continue;
    }
    if (control.cancel_requested() && !interrupted) {
      for (const auto& [pid, w] : live) kill(pid, SIGINT);  // each worker checkpoints and ends cancelled
      interrupted = true;
    }
    // Wait for a line or 100 ms (workers' ends are polled with waitpid above).
    std::vector<pollfd> fds;
    std::vector<Worker*> owners;
    for (auto& [pid, w] : live)
      if (w.events >= 0) {
        fds.push_back({w.events, POLLIN, 0});
        owners.push_back(&w);
      }
    if (fds.empty()) {
      ::poll(nullptr, 0, 100);
      continue;
    }
    if (::poll(fds.data(), fds.size(), 100) > 0)
      for (std::size_t k = 0; k < fds.size(); ++k)
        if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) read_lines(*owners[k], options);
  }
  if (!failed.empty()) throw core::Error(failed, "cannot start a worker process");
}

}  // namespace pha::runtime
