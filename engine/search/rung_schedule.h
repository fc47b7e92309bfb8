// The schedule of one rung run of a search (WSD: linear warmup, a constant rate, a cooldown over
// the last `cooldown` fraction of the steps): how long it warms up, where its stable phase ends,
// and whether it can continue the same trial's previous rung run from that run's stable end
// instead of training from step 0. Plain C++: the runner (search_setup.cpp), the section check
// (project_search.cpp), the compute totals and TrainingConfig (warmup_fraction) share it.
//
//   WarmupCooldown w;  w.warmup_fraction = 0.0889;          // 40 of 450 steps
//   rung_schedule(w, 50, 0)    // warmup 4, stable end 40, from scratch: compute 50
//   rung_schedule(w, 150, 50)  // warmup 13: the 50-step run warmed up for 4, so no branch: 150
//   WarmupCooldown a;  a.warmup_steps = 10;                 // absolute: the stable phases agree
//   rung_schedule(a, 150, 50)  // branches off step 40: compute 110
#pragma once

#include <cstdint>

namespace pha::search {

// A trial's warmup and cooldown as its training section gives them.
struct WarmupCooldown {
  std::int64_t warmup_steps = 0;  // used when warmup_fraction is 0
  double warmup_fraction = 0.0;   // > 0: the warmup is this fraction of each run's steps
  double cooldown = 0.2;          // WSD: fraction of each run's steps in the cooldown
};

// max(1, round(fraction x steps)) for a fraction > 0 (a fraction asks for some warmup), else 0.
std::int64_t fraction_of_steps(double fraction, std::int64_t steps);
// The warmup of a run of `steps` steps: the fraction's, else warmup_steps.
std::int64_t warmup_for(const WarmupCooldown& w, std::int64_t steps);
// The last step at the peak rate of a WSD run: steps - round(cooldown x steps), the cooldown at
// least 1 step when cooldown > 0 (TrainingConfig::stable_end).
std::int64_t wsd_stable_end(std::int64_t steps, double cooldown);

struct RungSchedule {
  std::int64_t steps = 0;         // the rung run's length
  std::int64_t warmup = 0;        // its warmup
  std::int64_t stable_end = 0;    // its last step at the peak rate
  std::int64_t cooldown_steps = 0;
  // The previous rung run's stable end it continues from (its learning rate agrees with this
  // run's up to there: the same warmup), or 0: trained from step 0.
  std::int64_t branch_step = 0;
  std::int64_t compute = 0;       // optimizer steps it trains: steps - branch_step
  bool peak_reached() const { return warmup <= stable_end; }  // it has a stable phase (or one step of it)
};

// The rung run of `steps` steps after a previous rung of `previous_steps` (0: the first rung).
// It branches off the previous run's stable end when both warm up for the same number of steps
// (absolute warmups; a fraction gives each rung its own warmup, so those train from step 0).
RungSchedule rung_schedule(const WarmupCooldown& w, std::int64_t steps, std::int64_t previous_steps);

}  // namespace pha::search
