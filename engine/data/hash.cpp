#include "data/hash.h"

#include <cstring>

namespace pha::data {

uint64_t checksum64(const void* data, size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = 0x9E3779B97F4A7C15ull ^ bytes;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h ^= w * 0xC2B2AE3D27D4EB4Full;
    h = ((h << 31) | (h >> 33)) * 0x9E3779B97F4A7C15ull;
  }
  uint64_t tail = 0;
  for (size_t k = 0; i < bytes; ++i, ++k) tail |= static_cast<uint64_t>(p[i]) << (8 * k);
  h ^= tail * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return h;
}

}  // namespace pha::data
