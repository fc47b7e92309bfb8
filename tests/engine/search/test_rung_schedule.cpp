// Rung runs' schedules: a warmup given as a fraction is a fraction of each rung (every rung run
// reaches its peak rate and keeps a stable phase), the cooldown a fraction of each rung run, and a
// rung run continues the previous one's stable phase only when both warm up alike.
#include "search/rung_schedule.h"

#include <gtest/gtest.h>

using pha::search::RungSchedule;
using pha::search::WarmupCooldown;
using pha::search::rung_schedule;

namespace {

TEST(RungSchedule, AWarmupFractionIsAFractionOfEachRung) {
  WarmupCooldown w;
  w.warmup_fraction = 0.0889;  // 40 of 450 steps
  const RungSchedule r0 = rung_schedule(w, 50, 0), r1 = rung_schedule(w, 150, 50), r2 = rung_schedule(w, 450, 150);
  EXPECT_EQ(r0.warmup, 4);
  EXPECT_EQ(r1.warmup, 13);
  EXPECT_EQ(r2.warmup, 40) << "the full-budget run warms up as the same trial trained alone";
  EXPECT_EQ(r0.stable_end, 40);
  EXPECT_EQ(r1.stable_end, 120);
  EXPECT_EQ(r2.stable_end, 360);
  EXPECT_EQ(r0.cooldown_steps, 10) << "the cooldown is a fraction (0.2) of each rung run";
  EXPECT_EQ(r1.cooldown_steps, 30);
  EXPECT_EQ(r2.cooldown_steps, 90);
  for (const RungSchedule& r : {r0, r1, r2}) {
    EXPECT_TRUE(r.peak_reached());
    EXPECT_GT(r.stable_end - r.warmup, 0) << "a stable phase at the peak rate at every rung";
    EXPECT_EQ(r.branch_step, 0) << "each rung warms up for its own length: trained from step 0";
    EXPECT_EQ(r.compute, r.steps);
  }
}

TEST(RungSchedule, AbsoluteWarmupsContinueThePreviousRungsStablePhase) {
  WarmupCooldown w;
  w.warmup_steps = 10;
  const RungSchedule r1 = rung_schedule(w, 150, 50), r2 = rung_schedule(w, 450, 150);
  EXPECT_EQ(r1.warmup, 10);
  EXPECT_EQ(r1.branch_step, 40);
  EXPECT_EQ(r1.compute, 110);
  EXPECT_EQ(r2.branch_step, 120);
  EXPECT_EQ(r2.compute, 330);
  // The case: 40 warmup steps in a 50-step rung never reach a stable phase there.
  w.warmup_steps = 40;
  EXPECT_EQ(rung_schedule(w, 50, 0).stable_end - rung_schedule(w, 50, 0).warmup, 0);
  w.warmup_steps = 45;
  EXPECT_FALSE(rung_schedule(w, 50, 0).peak_reached());
}

TEST(RungSchedule, FractionsThatRoundToTheSameWarmupMayBranchAndAFractionAlwaysWarmsUp) {
  WarmupCooldown w;
  w.warmup_fraction = 0.001;  // max(1, round(0.05)) = 1 at 50 steps, max(1, round(0.15)) = 1 at 150
  EXPECT_EQ(rung_schedule(w, 50, 0).warmup, 1);
  EXPECT_EQ(rung_schedule(w, 150, 50).branch_step, 40) << "the same learning rate up to step 40";
  w.cooldown = 0.5;
  EXPECT_EQ(rung_schedule(w, 150, 50).branch_step, 25);
  EXPECT_EQ(rung_schedule(w, 150, 50).cooldown_steps, 75);
  EXPECT_EQ(pha::search::fraction_of_steps(0.0, 100), 0);
  EXPECT_EQ(pha::search::wsd_stable_end(10, 0.01), 9) << "a cooldown > 0 takes at least one step";
  EXPECT_EQ(pha::search::wsd_stable_end(10, 0.0), 10);
}

}  // namespace
