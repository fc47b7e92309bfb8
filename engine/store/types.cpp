#include "store/types.h"

#include "core/error.h"

namespace pha::store {

namespace {
constexpr const char* kStatusNames[] = {"queued",    "running",  "finished",   "failed",
                                        "cancelled", "diverged", "interrupted"};
constexpr const char* kKindNames[] = {"train", "profile"};
}

const char* to_string(RunStatus status) { return kStatusNames[static_cast<int>(status)]; }

RunStatus run_status_from_string(const std::string& text) {
  for (int i = 0; i < 7; ++i) {
    if (text == kStatusNames[i]) return static_cast<RunStatus>(i);
  }
  throw core::Error("runs.status", "unknown run status '" + text +
                                 "' (allowed: queued, running, finished, failed, cancelled, "
                                 "diverged, interrupted)");
}

const char* to_string(RunKind kind) { return kKindNames[static_cast<int>(kind)]; }

RunKind run_kind_from_string(const std::string& text) {
  for (int i = 0; i < 2; ++i) {
    if (text == kKindNames[i]) return static_cast<RunKind>(i);
  }
  throw core::Error("runs.kind", "unknown run kind '" + text + "' (allowed: train, profile)");
}

bool is_terminal(RunStatus status) {
  return status != RunStatus::Queued && status != RunStatus::Running;
}

}  // namespace pha::store
