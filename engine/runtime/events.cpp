// Names of job states (the run store's status strings, plus "paused" which is never stored).
#include "runtime/events.h"

namespace pha::runtime {

const char* job_status_name(JobStatus s) {
  switch (s) {
    case JobStatus::Queued: return "queued";
    case JobStatus::Running: return "running";
    case JobStatus::Paused: return "paused";
    case JobStatus::Finished: return "finished";
    case JobStatus::Failed: return "failed";
    case JobStatus::Cancelled: return "cancelled";
    case JobStatus::Diverged: return "diverged";
    case JobStatus::Interrupted: return "interrupted";
  }
  return "unknown";
}

}  // namespace pha::runtime
