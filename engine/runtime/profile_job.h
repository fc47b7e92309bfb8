// The efficiency profile of a project as an engine job, next to run_job (job.h): load the
// project, build the sweep (its "profile" section over its models, profiler.h), measure every
// point in a fresh `pha __profile-point` worker, and record one profile run per model
// (profile_store.h) under project.name in the project's store. The window's run queue,
// `pha train` (after the runs) and `pha bench --project` all call run_profile_job, so a
// project's profile runs always land under one project name in one store. No torch, no Qt.
//
//   runtime::ProfileJobSpec spec;  spec.project = "projects/quickstart";
//   ProfileJobResult r = runtime::run_profile_job(spec, observer, control);  // blocks; a worker thread
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/events.h"
#include "runtime/profiler.h"

namespace pha::runtime {

// The project: ProjectSource (project/project.h), the folder and the project as queued.
struct ProfileJobSpec : project::ProjectSource {
  // The settings to measure with. Unset: the project's "profile" section (defaults when it has
  // none). Set (`pha bench --project`'s options): these; with no models, the project's models.
  std::optional<ProfileSweep> sweep;
  int threads = 0;                   // threads per worker; 0: all cores (or $PHA_THREADS)
  std::string program;               // the `pha` program the workers run; "": this program
  std::string store_path;            // "": the project's store
  // Called once the sweep is known and checked, before the first point (the window's "N points"
  // line, the CLI's header).
  std::function<void(const ProfileSweep&)> on_start;
};

struct ProfileJobResult {
  std::string project;               // project.name, the profile runs' project
  std::string store_path;            // where they were recorded
  ProfileSweep sweep;                // what was measured (models, T, phases, ...)
  std::vector<ProfilePointResult> points;  // in sweep order; a failed point has its error set
  std::vector<std::int64_t> run_ids; // the profile runs recorded (one per model with a point)
  bool cancelled = false;            // control asked to cancel: the points measured so far are kept
  int failed_points() const;
};

// Validates the project, the sweep and the store before measuring (core::Error naming the field
// or file; nothing is written then). Points that fail (a worker that crashes, runs out of
// memory or times out) are results with their error, not exceptions; they are left out of the
// perf rows and named in the profile run's notes. Reports every point through
// observer.on_efficiency; waits between points while control is paused; stops at a cancel.
ProfileJobResult run_profile_job(const ProfileJobSpec& spec, RunObserver& observer, RunControl& control);

}  // namespace pha::runtime
