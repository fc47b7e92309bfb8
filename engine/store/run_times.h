// A run's two durations, one rule for every view that shows time: the window's run table and
// Compare's Metrics, `pha runs list` and `pha runs show`.
//   training time: the run's own clock at its last train/loss step (the wall_ms the trainer
//     records with each step: pauses, and the time between an interruption and its resume, are
//     left out); what the run spent training, evaluations during training included.
//   wall time: started -> ended (the heartbeat while it still runs): setup, data loading, the
//     final evaluation and checkpoint included.
// A run with no step recorded has a training time equal to its wall time.
#pragma once

#include <cstdint>

#include "store/store.h"
#include "store/types.h"

namespace pha::store {

struct RunTimes {
  double training_s = -1.0;  // -1: not started
  double wall_s = -1.0;      // -1: not started
};

// `last_step_wall_ms`: the wall_ms of the run's last train/loss point (<= 0: none).
RunTimes run_times(const RunInfo& run, std::int64_t last_step_wall_ms);
// The same, reading the run's last train/loss point from `store`.
RunTimes run_times(Store& store, const RunInfo& run);

// One sentence each, for tooltips, help and the CLI's legend.
extern const char* const kTrainingTimeMeaning;
extern const char* const kWallTimeMeaning;

}  // namespace pha::store
