#include "data/internal/byte_tokenizer.h"

#include "core/error.h"

namespace pha::data {

ByteTokenizer::ByteTokenizer(std::vector<std::string> specials) : specials_(std::move(specials)) {
  for (size_t i = 0; i < specials_.size(); ++i) {
    if (specials_[i].empty()) throw core::Error("tokenizer.specials", "special token names must not be empty");
    for (size_t j = 0; j < i; ++j)
      if (specials_[j] == specials_[i]) throw core::Error("tokenizer.specials", "duplicate special token " + specials_[i]);
    if (specials_[i] == "<|endoftext|>") eot_ = 256 + static_cast<int32_t>(i);
  }
}

void ByteTokenizer::encode_append(std::string_view text, std::vector<int32_t>& out) const {
  size_t base = out.size();
  out.resize(base + text.size());
  for (size_t i = 0; i < text.size(); ++i) out[base + i] = static_cast<unsigned char>(text[i]);
}

std::string ByteTokenizer::decode(const int32_t* ids, size_t n) const {
  std::string out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    int32_t id = ids[i];
    if (id >= 0 && id < 256) {
      out.push_back(static_cast<char>(id));
    } else if (id >= 256 && id < vocab_size()) {
      out += specials_[id - 256];
    } else {
      throw core::Error("tokenizer", "id " + std::to_string(id) + " is outside the byte vocabulary [0, " +
                                   std::to_string(vocab_size()) + ")");
    }
  }
  return out;
}

std::vector<std::pair<int32_t, std::string>> ByteTokenizer::special_tokens() const {
  std::vector<std::pair<int32_t, std::string>> out;
  for (size_t i = 0; i < specials_.size(); ++i) out.emplace_back(256 + static_cast<int32_t>(i), specials_[i]);
  return out;
}

nlohmann::json ByteTokenizer::describe() const {
  return {{"kind", "byte"}, {"vocab_size", vocab_size()}, {"specials", specials_}, {"version", 1}};
}

}  // namespace pha::data
