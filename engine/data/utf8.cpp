#include "data/internal/utf8.h"

#include <unordered_map>

namespace pha::data {

size_t utf8_sequence_length(const unsigned char* p, size_t n) {
  if (n == 0) return 0;
  const unsigned char c = p[0];
  if (c < 0x80) return 1;
  auto cont = [&](size_t i) { return i < n && (p[i] & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (n < 2) return 0;
    const unsigned char c1 = p[1];
    if (c == 0xE0 && c1 < 0xA0) return 0;   // overlong
    if (c == 0xED && c1 >= 0xA0) return 0;  // surrogates
    return (cont(1) && cont(2)) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (n < 2) return 0;
    const unsigned char c1 = p[1];
    if (c == 0xF0 && c1 < 0x90) return 0;   // overlong
    if (c == 0xF4 && c1 >= 0x90) return 0;  // > U+10FFFF
    return (cont(1) && cont(2) && cont(3)) ? 4 : 0;
  }
  return 0;
}

bool is_valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t i = 0, n = s.size();
  while (i < n) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    size_t len = utf8_sequence_length(p + i, n - i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

DecodedText decode_utf8_latin1(std::string_view bytes) {
  DecodedText out;
  if (is_valid_utf8(bytes)) {
    out.text.assign(bytes);
    return out;
  }
  out.text.reserve(bytes.size() + bytes.size() / 64);
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t i = 0, n = bytes.size();
  while (i < n) {
    size_t len = p[i] < 0x80 ? 1 : utf8_sequence_length(p + i, n - i);
    if (len == 0) {
      append_utf8(out.text, p[i]);  // Latin-1: the byte value is the code point
      ++out.latin1_fallback;
      ++i;
    } else {
      out.text.append(bytes.data() + i, len);
      i += len;
    }
  }
  return out;
}

const std::array<uint32_t, 256>& gpt2_byte_to_codepoint() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    uint32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      t[b] = printable ? b : next++;
    }
    return t;
  }();
  return table;
}

bool gpt2_unicode_to_bytes(std::string_view unicode, std::string& bytes) {
  static const std::unordered_map<uint32_t, unsigned char> inverse = [] {
    std::unordered_map<uint32_t, unsigned char> m;
    const auto& t = gpt2_byte_to_codepoint();
    for (int b = 0; b < 256; ++b) m[t[b]] = static_cast<unsigned char>(b);
    return m;
  }();
  bytes.clear();
  const auto* p = reinterpret_cast<const unsigned char*>(unicode.data());
  size_t i = 0, n = unicode.size();
  while (i < n) {
    size_t len = utf8_sequence_length(p + i, n - i);
    if (len == 0) return false;
    uint32_t cp;
    if (len == 1) cp = p[i];
    else if (len == 2) cp = ((p[i] & 0x1Fu) << 6) | (p[i + 1] & 0x3Fu);
    else if (len == 3) cp = ((p[i] & 0x0Fu) << 12) | ((p[i + 1] & 0x3Fu) << 6) | (p[i + 2] & 0x3Fu);
    else cp = ((p[i] & 0x07u) << 18) | ((p[i + 1] & 0x3Fu) << 12) | ((p[i + 2] & 0x3Fu) << 6) | (p[i + 3] & 0x3Fu);
    auto it = inverse.find(cp);
    if (it == inverse.end()) return false;
    bytes.push_back(static_cast<char>(it->second));
    i += len;
  }
  return true;
}

std::string gpt2_bytes_to_unicode(std::string_view bytes) {
  const auto& t = gpt2_byte_to_codepoint();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) append_utf8(out, t[c]);
  return out;
}

}  // namespace pha::data
