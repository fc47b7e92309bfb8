// The quiet NaN the statistics tests pass as "no value" (one definition for the files that are
// compiled together in test_engine_plain's unity build).
#pragma once

#include <limits>

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
