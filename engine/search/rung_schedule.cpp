// Rung runs' WSD schedules (rung_schedule.h).
#include "search/rung_schedule.h"

#include <algorithm>
#include <cmath>

namespace pha::search {

std::int64_t fraction_of_steps(double fraction, std::int64_t steps) {
  if (!(fraction > 0.0)) return 0;
  return std::max<std::int64_t>(1, std::llround(fraction * static_cast<double>(steps)));
}

std::int64_t warmup_for(const WarmupCooldown& w, std::int64_t steps) {
  return w.warmup_fraction > 0.0 ? fraction_of_steps(w.warmup_fraction, steps) : w.warmup_steps;
}

std::int64_t wsd_stable_end(std::int64_t steps, double cooldown) {
  const auto cool = static_cast<std::int64_t>(std::llround(cooldown * static_cast<double>(steps)));
  return steps - std::clamp<std::int64_t>(cool, cooldown > 0.0 ? 1 : 0, steps);
}

RungSchedule rung_schedule(const WarmupCooldown& w, std::int64_t steps, std::int64_t previous_steps) {
  RungSchedule r;
  r.steps = steps;
  r.warmup = warmup_for(w, steps);
  r.stable_end = wsd_stable_end(steps, w.cooldown);
  r.cooldown_steps = steps - r.stable_end;
  if (previous_steps > 0 && previous_steps < steps) {
    const std::int64_t prev_end = wsd_stable_end(previous_steps, w.cooldown);
    // The previous run's rate equals this one's up to its stable end only with the same warmup.
    if (warmup_for(w, previous_steps) == r.warmup && r.warmup <= prev_end && prev_end > 0) r.branch_step = prev_end;
  }
  r.compute = steps - r.branch_step;
  return r;
}

}  // namespace pha::search
