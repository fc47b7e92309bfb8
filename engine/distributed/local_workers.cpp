// Worker processes on this machine: port, environment, fork/exec, exit status
// (local_workers.h).
#include "distributed/local_workers.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <thread>

#include "core/error.h"

extern char** environ;

namespace pha::distributed {

int free_loopback_port(const std::string& what) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (fd >= 0) close(fd);
    throw core::Error(what, "no free port on 127.0.0.1; pass one");
  }
  close(fd);
  return ntohs(a.sin_port);
}

Environment rank_environment(const DistConfig& cfg, int local_world_size, int threads) {
  Environment env = {{"RANK", std::to_string(cfg.rank)},
                     {"WORLD_SIZE", std::to_string(cfg.world_size)},
                     {"LOCAL_RANK", std::to_string(cfg.local_rank)},
                     {"LOCAL_WORLD_SIZE", std::to_string(local_world_size)},
                     {"MASTER_ADDR", cfg.master_addr},
                     {"MASTER_PORT", std::to_string(cfg.master_port)},
                     {"PHA_DIST_TIMEOUT", std::to_string(static_cast<long long>(cfg.timeout_s))}};
  if (threads > 0) env.emplace_back("PHA_THREADS", std::to_string(threads));
  return env;
}

int threads_per_rank(int nproc) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::max(1u, cores / static_cast<unsigned>(std::max(1, nproc))));
}

pid_t spawn_worker(const std::string& program, const std::vector<std::string>& args, const Environment& env) {
  // This process's environment with `env` over it, as "K=V" strings, built before fork.
  std::map<std::string, std::string> merged;
  for (char** e = environ; e && *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq) merged[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
  }
  for (const auto& [k, v] : env) merged[k] = v;
  std::vector<std::string> env_text;
  for (const auto& [k, v] : merged) env_text.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env_text) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args_copy = args;
  for (auto& a : args_copy) argv.push_back(a.data());
  argv.push_back(nullptr);

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw core::Error(program, std::string("fork of a worker failed: ") + std::strerror(errno));
  if (pid > 0) return pid;
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(1);  // the parent died before prctl took effect
  execve(program.c_str(), argv.data(), envp.data());
  static const char msg[] = "pha: exec of a worker failed\n";
  [[maybe_unused]] const ssize_t n = write(2, msg, sizeof(msg) - 1);
  _exit(127);
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status))
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "exited with code " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

}  // namespace pha::distributed
