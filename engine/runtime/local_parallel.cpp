// The window's local data parallel: rank 0 in the calling thread, ranks 1 .. N-1 as
// `pha __train-rank` processes (local_parallel.h; docs/distributed.md, "From the window").
#include "runtime/local_parallel.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "core/error.h"
#include "distributed/local_workers.h"
#include "distributed/process_group.h"
#include "project/project.h"
#include "runtime/trainer.h"

namespace pha::runtime {

using nlohmann::json;

namespace {

// Ranks 1 .. N-1 of this run: reaped on every path out of run_job_local_parallel.
class WorkerSet {
 public:
  ~WorkerSet() { finish(std::chrono::seconds(0)); }
  void add(int rank, pid_t pid) { workers_.push_back({rank, pid, -1}); }

  // Waits up to `grace` for the workers to end by themselves, then kills the rest.
  void finish(std::chrono::seconds grace) {
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (running() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (auto& w : workers_)
      if (w.status < 0) kill(w.pid, SIGKILL);
    for (auto& w : workers_)
      if (w.status < 0 && waitpid(w.pid, &w.status, 0) != w.pid) w.status = 0;
  }

  // "rank 1 was killed by signal 9 (Killed)"; empty when every ended worker exited with 0.
  std::string failures() {
    running();
    std::string out;
    for (const auto& w : workers_)
      if (w.status >= 0 && !(WIFEXITED(w.status) && WEXITSTATUS(w.status) == 0))
        out += (out.empty() ? "" : ", ") + ("rank " + std::to_string(w.rank) + " " + distributed::describe_exit(w.status));
    return out;
  }

 private:
  struct Worker {
    int rank;
    pid_t pid;
    int status;  // waitpid status once ended, else -1
  };
  bool running() {
    bool any = false;
    for (auto& w : workers_) {
      if (w.status >= 0) continue;
      int st = 0;
      if (waitpid(w.pid, &st, WNOHANG) == w.pid) w.status = st;
      else any = true;
    }
    return any;
  }
  std::vector<Worker> workers_;
};

template <typename T>
T field(const json& j, const char* key, T fallback) {
  if (!j.contains(key)) return fallback;
  try {
    return j.at(key).get<T>();
  } catch (const std::exception&) {
    throw core::Error(std::string("job spec field \"") + key + "\"", "has the wrong type: " + j.at(key).dump());
  }
}

}  // namespace

json job_spec_to_json(const JobSpec& s) {
  return {{"project", s.project},   {"run", s.run},
          {"resume_run_id", s.resume_run_id}, {"threads", s.threads},
          {"device", s.device},     {"store_path", s.store_path},
          {"branch_from", s.branch_from}, {"final_checkpoint", s.final_checkpoint},
          // The run as rank 0 resolved it (overrides applied, or a search trial) and the project
          // as rank 0 read it: the workers train that, not the file as it is now.
          {"plan", s.plan ? project::run_plan_to_json(*s.plan) : json()},
          {"project_json", s.resolved_project ? s.resolved_project->json : json()},
          {"project_dir", s.resolved_project ? s.resolved_project->dir : std::string()}};
}

JobSpec job_spec_from_json(const json& j) {
  if (!j.is_object() || !j.contains("project")) throw core::Error("job spec", "expects a JSON object with \"project\"");
  JobSpec s;
  s.project = field<std::string>(j, "project", "");
  s.run = field<std::string>(j, "run", "");
  s.resume_run_id = field<std::int64_t>(j, "resume_run_id", 0);
  s.threads = field<int>(j, "threads", 0);
  s.device = field<std::string>(j, "device", "");
  s.store_path = field<std::string>(j, "store_path", "");
  s.branch_from = field<std::string>(j, "branch_from", "");
  s.final_checkpoint = field<bool>(j, "final_checkpoint", true);
  if (j.contains("project_json") && j["project_json"].is_object())
    s.resolved_project = std::make_shared<const project::Project>(project::parse_project(
        j["project_json"], field<std::string>(j, "project_dir", ""), "job spec field \"project_json\""));
  if (j.contains("plan") && !j["plan"].is_null())
    s.plan = std::make_shared<const project::RunPlan>(
        project::run_plan_from_json(s.get(), j["plan"], "job spec field \"plan\""));
  return s;
}

JobResult run_job_local_parallel(JobSpec spec, const LocalParallelOptions& o, RunObserver& observer,
                                 RunControl& control) {
  if (o.processes < 1) throw core::Error("processes", "must be at least 1, got " + std::to_string(o.processes));
  if (o.processes == 1) return run_job(spec, observer, control);
  if (o.program.empty()) throw core::Error("processes", "the worker processes need the pha program, and none was given");
  // Bad input fails here, once, before a worker starts (each rank would fail alike later).
  const project::Project project = spec.get();
  if (!spec.plan) spec.plan = std::make_shared<const project::RunPlan>(spec.run.empty() ? project.runs.front() : project.run(spec.run));
  const project::RunPlan& plan = *spec.plan;
  const std::string device = Trainer::resolve_device(spec.device.empty() ? plan.training.device : spec.device);
  if (spec.threads <= 0) spec.threads = distributed::threads_per_rank(o.processes);

  distributed::DistConfig cfg;
  cfg.world_size = o.processes;
  cfg.master_port = distributed::free_loopback_port("processes");
  cfg.timeout_s = o.timeout_s;
  const std::vector<std::string> args = {o.program, "__train-rank", job_spec_to_json(spec).dump()};
  WorkerSet workers;
  for (int rank = 1; rank < o.processes; ++rank) {
    distributed::DistConfig c = cfg;
    c.rank = c.local_rank = rank;
    workers.add(rank, distributed::spawn_worker(o.program, args, distributed::rank_environment(c, o.processes, 0)));
  }
  try {
    spec.group = distributed::ProcessGroup::connect(cfg, device);
    if (o.on_connected) o.on_connected(spec.group->world_size(), spec.group->backend());
    JobResult r = run_job(spec, observer, control);
    spec.group.reset();
    workers.finish(std::chrono::seconds(5));
    const std::string failed = workers.failures();
    if (r.status != JobStatus::Finished && !failed.empty()) r.reason += " (" + failed + ")";
    return r;
  } catch (const std::exception& e) {
    spec.group.reset();  // closes rank 0's connections: a worker waiting on it fails at once
    workers.finish(std::chrono::seconds(2));  // a worker that failed first says why below
    const std::string failed = workers.failures();
    throw core::Error(std::string(e.what()) + (failed.empty() ? "" : " (" + failed + ")"));
  }
}

}  // namespace pha::runtime
