#include "runtime/internal/early_stop.h"

#include <cmath>
#include <cstdio>

namespace pha::runtime {

bool EarlyStopper::update(int64_t step, double value) {
  if (!cfg_.enabled()) return false;
  const bool finite = std::isfinite(value);
  const bool improved = finite && (best_step_ < 0 || (cfg_.maximize() ? value > best_ + cfg_.min_delta
                                                                      : value < best_ - cfg_.min_delta));
  if (improved) {
    best_ = value;
    best_step_ = step;
    stale_ = 0;
    return false;
  }
  return ++stale_ >= cfg_.patience;
}

std::string EarlyStopper::reason(int64_t step) const {
  char buf[256];
  std::snprintf(buf, sizeof(buf), "early stop at step %lld: %s did not improve by more than %g in %lld evaluations",
                static_cast<long long>(step), cfg_.metric.c_str(), cfg_.min_delta, static_cast<long long>(stale_));
  std::string out = buf;
  if (best_step_ >= 0) {
    std::snprintf(buf, sizeof(buf), " (best %.6g at step %lld)", best_, static_cast<long long>(best_step_));
    out += buf;
  }
  return out;
}

}  // namespace pha::runtime
