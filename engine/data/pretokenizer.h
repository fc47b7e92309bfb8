// GPT-2's pre-tokenisation: the text is cut into pieces by the regex
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// (PCRE2, UTF + UCP mode so \s is Unicode whitespace as in Python's `regex`, JIT-compiled),
// and BPE runs inside each piece. Bytes that are not valid UTF-8 become one-byte pieces, so
// any byte string can be tokenised losslessly.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace pha::data {

struct Piece {
  size_t offset;
  size_t length;
};

class Gpt2PreTokenizer {
 public:
  static const char* pattern();
  // The process-wide compiled pattern (compiled and JIT-compiled once; matching is thread-safe).
  static const Gpt2PreTokenizer& instance();

  // Replaces `pieces` with the pieces of `text`, in order; they tile the text exactly.
  void split(std::string_view text, std::vector<Piece>& pieces) const;

  bool jit() const { return jit_; }

 private:
  Gpt2PreTokenizer();
  void split_valid(const char* base, size_t begin, size_t end, std::vector<Piece>& pieces) const;
  void* code_ = nullptr;  // pcre2_code_8*
  bool jit_ = false;
};

}  // namespace pha::data
