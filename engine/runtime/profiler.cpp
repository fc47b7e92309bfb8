#include "runtime/profiler.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <random>

#include "core/error.h"
#include "core/system_info.h"
#include "model/presets.h"
#include "runtime/process_stats.h"
#include "runtime/trainer.h"

extern char** environ;

namespace pha::runtime {

using nlohmann::json;

json to_json(const ProfilePointSpec& s) {
  return {{"model", s.model}, {"seq_len", s.seq_len}, {"batch", s.batch},     {"phase", s.phase},
          {"warmup", s.warmup}, {"repeats", s.repeats}, {"threads", s.threads}, {"device", s.device}};
}

ProfilePointSpec profile_spec_from_json(const json& j) {
  ProfilePointSpec s;
  s.model = j.value("model", s.model);
  s.seq_len = j.value("seq_len", s.seq_len);
  s.batch = j.value("batch", s.batch);
  s.phase = j.value("phase", s.phase);
  s.warmup = j.value("warmup", s.warmup);
  s.repeats = j.value("repeats", s.repeats);
  s.threads = j.value("threads", s.threads);
  s.device = j.value("device", s.device);
  if (s.phase != "train" && s.phase != "forward") throw Error("phase", "must be \"train\" or \"forward\"");
  if (s.seq_len < 2 || s.batch < 1 || s.repeats < 1 || s.warmup < 0) throw Error("seq_len", "invalid profile point");
  return s;
}

json to_json(const ProfilePointResult& r) {
  return {{"spec", to_json(r.spec)},         {"tokens_per_s", r.tokens_per_s}, {"median_step_s", r.median_step_s},
          {"peak_bytes", r.peak_bytes},      {"baseline_bytes", r.baseline_bytes}, {"n_params", r.n_params},
          {"device", r.device},              {"method", r.method},             {"error", r.error}};
}

ProfilePointResult profile_result_from_json(const json& j) {
  ProfilePointResult r;
  r.spec = profile_spec_from_json(j.at("spec"));
  r.tokens_per_s = j.value("tokens_per_s", 0.0);
  r.median_step_s = j.value("median_step_s", 0.0);
  r.peak_bytes = j.value("peak_bytes", int64_t{0});
  r.baseline_bytes = j.value("baseline_bytes", int64_t{0});
  r.n_params = j.value("n_params", int64_t{0});
  r.device = j.value("device", std::string());
  r.method = j.value("method", std::string());
  r.error = j.value("error", std::string());
  return r;
}

ProfilePointResult measure_point(const ProfilePointSpec& spec) {
  ProfilePointResult r;
  r.spec = spec;
  r.baseline_bytes = current_rss_bytes();
  pha::configure_threads(spec.threads);
  model::ModelConfig mc = spec.model.size() > 5 && spec.model.substr(spec.model.size() - 5) == ".json"
                              ? model::load_model_config(spec.model)
                              : model::preset(spec.model);
  TrainingConfig tc;
  tc.batch_size = spec.batch;
  tc.seq_len = spec.seq_len;
  tc.device = spec.device;
  Trainer trainer(mc, tc, spec.device);
  r.n_params = trainer.num_parameters();
  r.device = trainer.device();
  data::Batch b;
  b.B = spec.batch;
  b.T = spec.seq_len;
  std::mt19937 gen(1234);
  std::uniform_int_distribution<int32_t> tok(0, mc.vocab_size - 1);
  for (int i = 0; i < b.B * b.T; ++i) b.inputs.push_back(tok(gen));
  for (int i = 0; i < b.B * b.T; ++i) b.targets.push_back(tok(gen));
  std::vector<double> times;
  for (int i = 0; i < spec.warmup + spec.repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    if (spec.phase == "train") trainer.train_step({b}, 1.0);
    else trainer.forward_only(b);
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (i >= spec.warmup) times.push_back(dt);
  }
  std::sort(times.begin(), times.end());
  r.median_step_s = times[times.size() / 2];
  r.tokens_per_s = static_cast<double>(b.B) * b.T / r.median_step_s;
  r.peak_bytes = peak_rss_bytes();
  r.method = "median of " + std::to_string(spec.repeats) + " " + spec.phase + " steps after " +
             std::to_string(spec.warmup) + " warm-up, B=" + std::to_string(spec.batch) + "; peak RSS (VmHWM) of a fresh worker process";
  return r;
}

namespace {
std::string read_with_timeout(int fd, pid_t pid, int timeout_s, bool& timed_out) {
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
    pollfd p{fd, POLLIN, 0};
    const int rc = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}
}  // namespace

ProfilePointResult measure_point_in_worker(const std::string& exe, const ProfilePointSpec& spec, int timeout_s) {
  ProfilePointResult r;
  r.spec = spec;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw Error("profiler", "pipe() failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
  const std::string spec_json = to_json(spec).dump();
  std::vector<std::string> args = {exe, "__profile-point", "--spec", spec_json};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw Error(exe, "cannot start a profiler worker (posix_spawn error " + std::to_string(rc) + ")");
  }
  bool timed_out = false;
  const std::string out = read_with_timeout(fds[0], pid, timeout_s, timed_out);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    r.error = "timed out after " + std::to_string(timeout_s) + " s";
    return r;
  }
  if (WIFSIGNALED(status)) {
    r.error = "worker killed by signal " + std::to_string(WTERMSIG(status)) + (WTERMSIG(status) == SIGKILL ? " (out of memory?)" : "");
    return r;
  }
  // The answer is the last line that holds a JSON object (the worker may log before it).
  std::string answer;
  for (size_t begin = 0; begin < out.size();) {
    size_t end = out.find('\n', begin);
    if (end == std::string::npos) end = out.size();
    if (out[begin] == '{') answer = out.substr(begin, end - begin);
    begin = end + 1;
  }
  try {
    if (answer.empty()) throw std::runtime_error("no JSON answer");
    return profile_result_from_json(json::parse(answer));
  } catch (const std::exception& e) {
    r.error = "worker exited with status " + std::to_string(WEXITSTATUS(status)) + ": " + e.what();
    return r;
  }
}

std::vector<ProfilePointResult> profile_sweep(const std::string& exe, const ProfileSweep& sweep, RunObserver& observer,
                                              RunControl& control) {
  std::vector<ProfilePointResult> out;
  for (const auto& m : sweep.models)
    for (int T : sweep.seq_lens)
      for (const auto& phase : sweep.phases) {
        if (control.cancel_requested()) return out;
        ProfilePointSpec s;
        s.model = m;
        s.seq_len = T;
        s.batch = static_cast<int>(std::max<int64_t>(1, sweep.tokens_per_batch / T));
        s.phase = phase;
        s.warmup = sweep.warmup;
        s.repeats = sweep.repeats;
        s.threads = sweep.threads;
        s.device = sweep.device;
        ProfilePointResult r = measure_point_in_worker(exe, s, sweep.timeout_s);
        observer.on_efficiency({m, T, s.batch, phase, r.tokens_per_s, r.peak_bytes, r.error.empty() ? r.method : r.error});
        out.push_back(std::move(r));
      }
  return out;
}

std::string self_executable() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) throw Error("/proc/self/exe", "cannot find the running program");
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace pha::runtime
