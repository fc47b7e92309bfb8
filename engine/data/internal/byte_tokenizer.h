// Byte-level tokenizer: id b (0..255) is byte b; specials follow from 256 in the order given
// (default just "<|endoftext|>" = 256). Lossless for any byte string, valid UTF-8 or not.
#pragma once

#include <string>
#include <vector>

#include "data/tokenizer.h"

namespace pha::data {

class ByteTokenizer : public Tokenizer {
 public:
  explicit ByteTokenizer(std::vector<std::string> specials = {"<|endoftext|>"});

  using Tokenizer::decode;
  void encode_append(std::string_view text, std::vector<int32_t>& out) const override;
  std::string decode(const int32_t* ids, size_t n) const override;
  int32_t vocab_size() const override { return 256 + static_cast<int32_t>(specials_.size()); }
  int32_t eot_id() const override { return eot_; }
  std::vector<std::pair<int32_t, std::string>> special_tokens() const override;
  nlohmann::json describe() const override;

 private:
  std::vector<std::string> specials_;
  int32_t eot_ = -1;
};

}  // namespace pha::data
