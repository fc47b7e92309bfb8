// UTF-8 helpers: validation, decoding text files with a Latin-1 fallback for stray bytes, and
// GPT-2's bytes_to_unicode table (how vocab.bpe / encoder.json spell raw bytes).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pha::data {

// Length of the well-formed UTF-8 sequence starting at p (1..4), or 0 if the bytes there are
// not one (bad lead byte, bad continuation, overlong, surrogate, > U+10FFFF, truncated).
size_t utf8_sequence_length(const unsigned char* p, size_t available);

bool is_valid_utf8(std::string_view s);

void append_utf8(std::string& out, uint32_t codepoint);

struct DecodedText {
  std::string text;             // valid UTF-8
  size_t latin1_fallback = 0;   // bytes that were not UTF-8 and were read as Latin-1
};

// Decodes bytes as UTF-8; any byte that does not start a well-formed sequence is taken as a
// Latin-1 character (U+0080..U+00FF) and re-encoded. Valid UTF-8 passes through unchanged.
DecodedText decode_utf8_latin1(std::string_view bytes);

// GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to U+0100 upwards.
const std::array<uint32_t, 256>& gpt2_byte_to_codepoint();

// The bytes a GPT-2 vocabulary string stands for. Returns false if it has a character outside
// the 256-entry table.
bool gpt2_unicode_to_bytes(std::string_view unicode, std::string& bytes);

// The GPT-2 vocabulary spelling of raw bytes.
std::string gpt2_bytes_to_unicode(std::string_view bytes);

}  // namespace pha::data
