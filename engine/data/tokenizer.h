// The tokenizer interface every text pipeline uses, and the factory that builds one from the
// "tokenizer" JSON section: {"kind": "byte"} | {"kind": "gpt2", "dir": ...} | {"kind": "bpe", "dir": ...}.
// encode() treats its input as plain text: "<|endoftext|>" in the text is encoded as text, never
// as the special token (special ids are added by the pipeline), so decode(encode(x)) == x.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pha::data {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Appends the ids of `text` to `out`.
  virtual void encode_append(std::string_view text, std::vector<int32_t>& out) const = 0;
  std::vector<int32_t> encode(std::string_view text) const {
    std::vector<int32_t> out;
    encode_append(text, out);
    return out;
  }

  // Bytes of the ids (special tokens decode to their names). Throws core::Error on an id outside
  // [0, vocab_size).
  virtual std::string decode(const int32_t* ids, size_t n) const = 0;
  std::string decode(const std::vector<int32_t>& ids) const { return decode(ids.data(), ids.size()); }

  virtual int32_t vocab_size() const = 0;
  // End-of-text id, or -1 when the tokenizer has none.
  virtual int32_t eot_id() const = 0;
  // Special token names by id (e.g. {50256: "<|endoftext|>"}).
  virtual std::vector<std::pair<int32_t, std::string>> special_tokens() const = 0;

  // What to record with a run and to key token caches with: kind, files and their checksums,
  // vocabulary size, specials, version.
  virtual nlohmann::json describe() const = 0;
};

// Builds a tokenizer from a "tokenizer" config section; `where` names it in errors.
// Defaults: kind "byte"; for "gpt2" the files in pha::gpt2_tokenizer_dir().
std::unique_ptr<Tokenizer> make_tokenizer(const nlohmann::json& config, const std::string& where = "tokenizer");

}  // namespace pha::data
