// Byte-level BPE in GPT-2's file format (encoder.json + vocab.bpe): the original GPT-2
// vocabulary (kind "gpt2") or one trained by BpeTrainer (kind "bpe"). Pre-tokenises with GPT-2's
// regex, then merges byte pairs by rank inside each piece. Merges work on token ids, not on
// unicode strings: bytes_to_unicode is a bijection, so this gives GPT-2's ids exactly.
// A per-thread piece cache (open addressing, no allocation per piece) makes repeated words cheap.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "data/tokenizer.h"

namespace pha::data {

class BpeTokenizer : public Tokenizer {
 public:
  // Loads dir/encoder.json and dir/vocab.bpe; `kind` is recorded in describe().
  static std::unique_ptr<BpeTokenizer> load(const std::filesystem::path& dir, const std::string& kind = "bpe");
  ~BpeTokenizer() override;

  using Tokenizer::decode;
  void encode_append(std::string_view text, std::vector<int32_t>& out) const override;
  std::string decode(const int32_t* ids, size_t n) const override;
  int32_t vocab_size() const override { return static_cast<int32_t>(token_bytes_.size()); }
  int32_t eot_id() const override { return eot_; }
  std::vector<std::pair<int32_t, std::string>> special_tokens() const override;
  nlohmann::json describe() const override;

  // Id of a token given by its bytes, or -1.
  int32_t token_id(std::string_view bytes) const;
  const std::string& token_bytes(int32_t id) const { return token_bytes_.at(static_cast<size_t>(id)); }
  size_t num_merges() const { return merges_count_; }

  // BPE of one piece (no pre-tokenisation, no cache); exposed for tests and benchmarks.
  void bpe_piece(const unsigned char* bytes, size_t n, std::vector<int32_t>& out) const;

 private:
  struct MergeTable;
  BpeTokenizer();

  std::string kind_;
  std::filesystem::path dir_;
  std::vector<std::string> token_bytes_;  // id -> bytes (special tokens: their names)
  std::vector<bool> is_special_;
  int32_t byte_id_[256];
  int32_t eot_ = -1;
  size_t merges_count_ = 0;
  uint64_t encoder_hash_ = 0, merges_hash_ = 0;
  uint64_t instance_id_ = 0;
  std::unique_ptr<MergeTable> merges_;
};

}  // namespace pha::data
