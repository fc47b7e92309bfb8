#include "data/pretokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>
#include <string>

#include "core/error.h"
#include "data/internal/utf8.h"

namespace pha::data {

namespace {

// Match data and JIT stack are per thread: the compiled code is shared, these are not.
struct ThreadMatchState {
  pcre2_match_data* match = nullptr;
  pcre2_jit_stack* stack = nullptr;
  pcre2_match_context* context = nullptr;
  const void* code = nullptr;
  ~ThreadMatchState() {
    if (match) pcre2_match_data_free(match);
    if (context) pcre2_match_context_free(context);
    if (stack) pcre2_jit_stack_free(stack);
  }
};

ThreadMatchState& thread_state(pcre2_code* code) {
  thread_local ThreadMatchState state;
  if (state.code != code) {
    if (state.match) pcre2_match_data_free(state.match);
    state.match = pcre2_match_data_create_from_pattern(code, nullptr);
    if (!state.context) {
      state.context = pcre2_match_context_create(nullptr);
      // Long whitespace runs make `\s+(?!\S)` backtrack deeply; the default 32 KiB is too small.
      state.stack = pcre2_jit_stack_create(64 * 1024, 16 * 1024 * 1024, nullptr);
      pcre2_jit_stack_assign(state.context, nullptr, state.stack);
    }
    state.code = code;
  }
  return state;
}

}  // namespace

const char* Gpt2PreTokenizer::pattern() {
  return R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
}

const Gpt2PreTokenizer& Gpt2PreTokenizer::instance() {
  static const Gpt2PreTokenizer pre;
  return pre;
}

Gpt2PreTokenizer::Gpt2PreTokenizer() {
  int err = 0;
  PCRE2_SIZE err_offset = 0;
  auto* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern()), PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP,
                             &err, &err_offset, nullptr);
  if (!code) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(err, msg, sizeof(msg));
    throw core::Error("GPT-2 pre-tokenizer regex", std::string("PCRE2 compile failed: ") + reinterpret_cast<char*>(msg));
  }
  jit_ = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  code_ = code;
}

void Gpt2PreTokenizer::split_valid(const char* base, size_t begin, size_t end, std::vector<Piece>& pieces) const {
  auto* code = static_cast<pcre2_code*>(code_);
  auto& st = thread_state(code);
  auto subject = reinterpret_cast<PCRE2_SPTR>(base + begin);
  const PCRE2_SIZE length = end - begin;
  PCRE2_SIZE pos = 0;
  PCRE2_SIZE* ov = pcre2_get_ovector_pointer(st.match);
  while (pos < length) {
    int rc = jit_ ? pcre2_jit_match(code, subject, length, pos, 0, st.match, st.context)
                  : pcre2_match(code, subject, length, pos, PCRE2_NO_UTF_CHECK, st.match, st.context);
    if (rc < 0) {
      if (rc == PCRE2_ERROR_NOMATCH) break;
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(rc, msg, sizeof(msg));
      throw core::Error("GPT-2 pre-tokenizer", std::string("PCRE2 match failed: ") + reinterpret_cast<char*>(msg));
    }
    // The pattern covers every character (\s+ or [^\s\p{L}\p{N}]+ or the letter/number classes),
    // so matches are contiguous; a gap would mean the pattern changed.
    if (ov[0] != pos || ov[1] <= ov[0]) throw core::Error("GPT-2 pre-tokenizer", "regex left a gap in the text");
    pieces.push_back({begin + ov[0], ov[1] - ov[0]});
    pos = ov[1];
  }
  if (pos < length) throw core::Error("GPT-2 pre-tokenizer", "regex did not cover the end of the text");
}

void Gpt2PreTokenizer::split(std::string_view text, std::vector<Piece>& pieces) const {
  pieces.clear();
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t run_start = 0, i = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    size_t len = utf8_sequence_length(p + i, n - i);
    if (len > 0) {
      i += len;
      continue;
    }
    if (i > run_start) split_valid(text.data(), run_start, i, pieces);
    pieces.push_back({i, 1});  // an invalid byte stands alone
    run_start = ++i;
  }
  if (n > run_start) split_valid(text.data(), run_start, n, pieces);
}

}  // namespace pha::data
