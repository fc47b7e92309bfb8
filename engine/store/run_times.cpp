#include "store/run_times.h"

namespace pha::store {

const char* const kTrainingTimeMeaning =
    "training time: the run's own clock at its last training step (pauses, and the time between an interruption and "
    "its resume, left out)";
const char* const kWallTimeMeaning =
    "wall time: from start to end (setup, data loading, the final evaluation and checkpoint included)";

RunTimes run_times(const RunInfo& run, std::int64_t last_step_wall_ms) {
  RunTimes t;
  if (run.started_at <= 0) return t;
  const std::int64_t end = run.ended_at > 0 ? run.ended_at : (run.heartbeat_at > 0 ? run.heartbeat_at : run.started_at);
  t.wall_s = static_cast<double>(end - run.started_at) / 1000.0;
  t.training_s = last_step_wall_ms > 0 ? static_cast<double>(last_step_wall_ms) / 1000.0 : t.wall_s;
  return t;
}

RunTimes run_times(Store& store, const RunInfo& run) {
  const auto last = store.last_point(run.id, "train/loss");
  return run_times(run, last ? last->wall_ms : 0);
}

}  // namespace pha::store
