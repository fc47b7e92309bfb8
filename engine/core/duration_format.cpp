#include "core/duration_format.h"

#include <cmath>
#include <cstdio>

namespace pha::core {

std::string format_duration(double seconds) {
  // Infinite or past 10^18 s (what long long holds) is no measured time either.
  if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e18) return "";
  if (seconds == 0) seconds = 0;  // -0.0 would print "-0.0 s"
  char buf[48];
  if (seconds < 60) {
    std::snprintf(buf, sizeof(buf), "%.1f s", seconds);
    return buf;
  }
  const long long total = std::llround(seconds);
  if (total < 3600) std::snprintf(buf, sizeof(buf), "%lldm %02llds", total / 60, total % 60);
  else std::snprintf(buf, sizeof(buf), "%lldh %02lldm", total / 3600, (total % 3600) / 60);
  return buf;
}

}  // namespace pha::core
