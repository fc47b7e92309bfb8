// Trains a byte-level BPE vocabulary of our own on text and writes it in GPT-2's two-file
// format (encoder.json + vocab.bpe), so BpeTokenizer::load reads it like the GPT-2 files.
// Same pre-tokenisation as GPT-2 (merges never cross piece boundaries). Deterministic: the most
// frequent pair wins, ties go to the smaller (left id, right id).
#pragma once

#include <filesystem>
#include <unordered_map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pha::data {

struct BpeTrainerOptions {
  int vocab_size = 4096;   // total, including the 256 byte tokens and the specials
  int min_frequency = 2;   // a pair seen fewer times is never merged
  std::vector<std::string> specials = {"<|endoftext|>"};
};

struct BpeTrainResult {
  int vocab_size = 0;      // tokens written (may be below the target when pairs run out)
  int merges = 0;
  size_t pieces = 0;       // distinct pre-tokenised pieces trained on
  size_t bytes = 0;        // bytes of text trained on
};

class BpeTrainer {
 public:
  explicit BpeTrainer(BpeTrainerOptions options);

  // Adds text to the training counts (may be called many times).
  void add_text(std::string_view text);

  // Learns the merges and writes dir/encoder.json and dir/vocab.bpe (atomically).
  BpeTrainResult train_and_write(const std::filesystem::path& dir) const;

 private:
  BpeTrainerOptions options_;
  std::unordered_map<std::string, int64_t> counts_;
  size_t bytes_ = 0;
};

}  // namespace pha::data
