// Small numeric helpers shared across the engine's libraries (header only): a quiet NaN of each
// precision, and SplitMix64, the 64-bit mixer the data generators and the search's draws seed
// their generators with (one definition, so every stream is the same everywhere).
#pragma once

#include <cstdint>
#include <limits>

namespace pha::core {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr float kNaNf = std::numeric_limits<float>::quiet_NaN();

// SplitMix64 step (Steele, Lea and Flood): advances `state` and returns the next mixed value.
inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace pha::core
