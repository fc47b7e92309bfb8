// The one duration text (core/duration_format.h), as the CLI and the window show it.
#include "core/duration_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using pha::core::format_duration;

TEST(FormatDuration, SecondsMinutesHours) {
  EXPECT_EQ(pha::core::format_duration(0), "0.0 s");
  EXPECT_EQ(pha::core::format_duration(42.06), "42.1 s");
  EXPECT_EQ(pha::core::format_duration(60), "1m 00s");
  EXPECT_EQ(pha::core::format_duration(100), "1m 40s");
  EXPECT_EQ(pha::core::format_duration(3599.4), "59m 59s");
  EXPECT_EQ(pha::core::format_duration(3600), "1h 00m");
  EXPECT_EQ(pha::core::format_duration(2 * 3600 + 5 * 60 + 30), "2h 05m");
  EXPECT_EQ(pha::core::format_duration(100 * 3600.0), "100h 00m");
}

TEST(FormatDuration, UnknownIsEmpty) {
  EXPECT_EQ(pha::core::format_duration(-1), "");
  EXPECT_EQ(pha::core::format_duration(-0.0), "0.0 s");
  EXPECT_EQ(pha::core::format_duration(std::nan("")), "");
  EXPECT_EQ(pha::core::format_duration(std::numeric_limits<double>::infinity()), "");
}
