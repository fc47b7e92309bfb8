// Non-cryptographic 64-bit hashes: FNV-1a for short keys (document split assignment, cache
// file names) and a word-at-a-time checksum fast enough to verify a token cache on every open.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pha::data {

inline uint64_t fnv1a64(std::string_view s, uint64_t h = 0xCBF29CE484222325ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  return h;
}

// Checksum of a byte range, 8 bytes per step; detects any single changed byte.
uint64_t checksum64(const void* data, size_t bytes);

}  // namespace pha::data
