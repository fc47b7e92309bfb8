// Deterministic random numbers for data generation. Our own generator (SplitMix64 seeding a
// xoshiro256**) and our own distributions, because std:: distributions differ between standard
// libraries and the data must be the same everywhere for a given seed.
#pragma once

#include <cstdint>

#include "core/numbers.h"

namespace pha::data {

__extension__ typedef unsigned __int128 uint128_t;  // GCC/Clang builtin; -Wpedantic-clean

// SplitMix64 step: a good 64-bit mixer, also used to derive per-sample seeds (core/numbers.h).
using core::splitmix64;

// Seed for item `index` of a stream `seed`: items are independent, so any item can be made alone.
inline uint64_t derive_seed(uint64_t seed, uint64_t index) {
  uint64_t s = seed ^ (index * 0xD1B54A32D192ED03ull);
  splitmix64(s);
  return splitmix64(s);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t s = seed;
    for (auto& x : s_) x = splitmix64(s);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform integer in [0, n), n > 0, without modulo bias (Lemire's method).
  uint64_t below(uint64_t n) {
    uint128_t m = static_cast<uint128_t>(next()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<uint128_t>(next()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  // Uniform integer in [lo, hi] (inclusive).
  int64_t range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo + 1))); }

  // Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  bool bernoulli(double p) { return uniform() < p; }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace pha::data
