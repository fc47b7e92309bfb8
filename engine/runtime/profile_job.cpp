#include "runtime/profile_job.h"

#include "core/process_stats.h"
#include "core/error.h"
#include "runtime/profile_store.h"
#include "project/project.h"
#include "store/store.h"

namespace pha::runtime {

int ProfileJobResult::failed_points() const {
  int n = 0;
  for (const auto& p : points) n += p.error.empty() ? 0 : 1;
  return n;
}

namespace {

// The sweep the job measures, checked before the first worker starts.
ProfileSweep job_sweep(const ProfileJobSpec& spec, const project::Project& project) {
  ProfileSweep sweep = spec.sweep ? *spec.sweep : project_profile_sweep(project);
  if (spec.sweep && sweep.models.empty()) {
    const ProfileSweep own = project_profile_sweep(project);
    sweep.models = own.models;
    sweep.model_configs = own.model_configs;
  }
  sweep.threads = spec.threads;
  if (sweep.models.empty()) throw core::Error(project.dir, "the project has no model to profile");
  if (sweep.seq_lens.empty()) throw core::Error("profile.seq_lens", "must list at least one sequence length");
  if (sweep.phases.empty()) throw core::Error("profile.phases", "must list \"train\" and/or \"forward\"");
  return sweep;
}

}  // namespace

ProfileJobResult run_profile_job(const ProfileJobSpec& spec, RunObserver& observer, RunControl& control) {
  const project::Project project = spec.get();
  ProfileJobResult r;
  r.project = project.name;
  r.store_path = spec.store_path.empty() ? project.store_path() : spec.store_path;
  r.sweep = job_sweep(spec, project);
  const std::string program = spec.program.empty() ? core::self_executable() : spec.program;
  // The store must open (and migrate) before minutes of measuring, not after.
  { store::Store::open(r.store_path); }
  if (spec.on_start) spec.on_start(r.sweep);
  r.points = profile_sweep(program, r.sweep, observer, control);
  r.cancelled = control.cancel_requested();
  if (!r.points.empty()) r.run_ids = store_profile_results(r.store_path, r.project, r.points);
  return r;
}

}  // namespace pha::runtime
