#include "queue/side_by_side.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "core/error.h"
#include "core/process_stats.h"
#include "runtime/event_stream.h"
#include "runtime/local_parallel.h"
#include "runtime/worker_pool.h"

namespace pha::queue {

using nlohmann::json;

namespace {

namespace fs = std::filesystem;
constexpr std::size_t kLongestArgument = 100'000;

// Forwards to the item's observer and keeps the worker's result.
struct Replay {
  runtime::JobResult result;
  bool have_result = false;
};

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return "the worker process was killed by signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status)) return "the worker process exited with status " + std::to_string(WEXITSTATUS(status)) +
                                " before reporting its run";
  return "the worker process ended before reporting its run";
}

}  // namespace

std::vector<std::size_t> run_side_by_side(const std::vector<project::QueueItem>& items, const QueueSettings& settings,
                                          int jobs, runtime::RunControl& control, const SideBySideHooks& hooks) {
  const std::string program = settings.program.empty() ? core::self_executable() : settings.program;
  std::vector<std::vector<std::string>> argvs;
  std::vector<std::string> spec_files;
  for (const project::QueueItem& item : items) {
    if (item.kind != project::QueueItemKind::Train)
      throw core::Error("queue", "only training runs train side by side (\"" + item.run + "\" is not one)");
    std::string spec = runtime::job_spec_to_json(job_spec_of(item, settings)).dump();
    if (spec.size() > kLongestArgument) {  // beyond one argument's limit (128 KiB): a file, named as @path
      const std::string path = (fs::temp_directory_path() / ("pha-job-" + std::to_string(::getpid()) + "-" +
                                                             std::to_string(argvs.size()) + ".json")).string();
      std::ofstream(path) << spec;
      spec_files.push_back(path);
      spec = "@" + path;
    }
    argvs.push_back({program, "__train-job", spec});
  }
  struct Cleanup {
    std::vector<std::string>& files;
    ~Cleanup() {
      std::error_code ec;
      for (const auto& f : files) fs::remove(f, ec);
    }
  } cleanup{spec_files};
  std::vector<Replay> replays(items.size());
  std::vector<bool> started(items.size(), false);
  runtime::WorkerPoolOptions options;
  options.forward_pause = true;
  options.on_line = [&](std::size_t i, const std::string& line) {
    if (runtime::replay_event_line(line, hooks.observer(i), &replays[i].result)) replays[i].have_result = true;
  };
  runtime::run_worker_pool(
      argvs, std::max(1, jobs), control,
      [&](std::size_t i) {
        started[i] = true;
        if (hooks.started) hooks.started(i);
      },
      [&](std::size_t i, int status) {
        QueueItemResult r;
        if (replays[i].have_result) {
          const runtime::JobResult& j = replays[i].result;
          r.status = runtime::job_status_name(j.status);
          r.reason = j.reason;
          r.run_id = j.run_id;
          r.steps_done = j.steps_done;
          r.final_loss = j.final_loss;
        } else {
          r.status = "failed";
          r.reason = describe_exit(status);
        }
        if (hooks.ended) hooks.ended(i, r);
      },
      options);
  std::vector<std::size_t> never;
  for (std::size_t i = 0; i < items.size(); ++i)
    if (!started[i]) never.push_back(i);
  return never;
}

runtime::JobResult run_side_by_side_worker(const json& spec_json, runtime::RunControl& control, runtime::RunObserver* also) {
  const runtime::JobSpec spec = runtime::job_spec_from_json(spec_json);
  std::optional<runtime::EventWriter> writer;
  if (const char* e = std::getenv(runtime::kEventFdEnv); e && std::atoi(e) > 0) writer.emplace(std::atoi(e));
  // Both the writer and the caller's printer see every event.
  struct Tee : runtime::RunObserver {
    runtime::RunObserver* a = nullptr;
    runtime::RunObserver* b = nullptr;
    void on_step(const runtime::StepMetrics& m) override { if (a) a->on_step(m); if (b) b->on_step(m); }
    void on_mixer(const runtime::MixerEvent& m) override { if (a) a->on_mixer(m); if (b) b->on_mixer(m); }
    void on_branch_norms(const runtime::BranchNormEvent& m) override { if (a) a->on_branch_norms(m); if (b) b->on_branch_norms(m); }
    void on_eval(const runtime::EvalEvent& m) override { if (a) a->on_eval(m); if (b) b->on_eval(m); }
    void on_log(const runtime::LogEvent& m) override { if (a) a->on_log(m); if (b) b->on_log(m); }
    void on_status(const runtime::StatusEvent& m) override { if (a) a->on_status(m); if (b) b->on_status(m); }
  } tee;
  tee.a = writer ? &*writer : nullptr;
  tee.b = also;
  runtime::JobResult r;
  try {
    r = runtime::run_job(spec, tee, control);
  } catch (const std::exception& e) {  // bad input found when the run started: its result says so
    r.status = runtime::JobStatus::Failed;
    r.reason = e.what();
  }
  if (writer) writer->result(r);
  return r;
}

}  // namespace pha::queue
