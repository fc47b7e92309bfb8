// Generated text for tokenizer tests: a deterministic mix of ASCII words, contractions,
// digits, whitespace runs, accented and non-Latin scripts, combining marks and emoji.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/rng.h"

namespace pha::test {

inline std::string generated_unicode_text(uint64_t seed, size_t pieces) {
  static const std::vector<std::string> pool = {
      "Hello", " world", "'s", "'ll", "'re", "'ve", "'d", "'m", "'t", " the", " and", "  ", "\n", "\n\n", "\t",
      " \xC2\xA0", "\xE3\x80\x80", "\xE2\x80\xA8", "123", " 4567", " 8.9", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E",
      " \xF0\x9F\x98\x80\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD", "\xCE\xA9\xCE\xBC\xCE\xAD\xCE\xB3\xCE\xB1", "e\xCC\x81",
      "\r\n", "   x", "?!...", " ---", " na\xC3\xAFve", " caf\xC3\xA9", "\xE2\x80\x8B", "\xD9\xA3\xD9\xA4",
      "\xE2\x85\xAB", " \xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82", "$", " (", ")", " \"quoted\"", "x"};
  pha::data::Rng rng(seed);
  std::string s;
  for (size_t i = 0; i < pieces; ++i) s += pool[rng.below(pool.size())];
  return s;
}

}  // namespace pha::test
