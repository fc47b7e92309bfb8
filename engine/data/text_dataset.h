// The text pipeline in one object: "data" config -> TextSource + Tokenizer -> three tokenized
// splits, from the token cache when it holds them (a second run starts in well under a
// second), else read, tokenized and cached. Then batchers for training and evaluation.
//
//   auto ds = pha::data::TextDataset::load(project["data"]);
//   pha::data::TrainBatcher train(ds.tokens(Split::Train), B, T, seed);
//   pha::data::EvalBatcher valid(ds.tokens(Split::Valid), B, T);
//   ds.describe();  // record with the run: source, tokenizer, token counts, cache state
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/text_source.h"
#include "data/internal/token_array.h"
#include "data/tokenizer.h"

namespace pha::data {

struct SplitStats {
  size_t tokens = 0;
  uint64_t text_bytes = 0;
};

class TextDataset {
 public:
  static TextDataset load(const nlohmann::json& data_section, const std::string& where = "data");
  static TextDataset load(const SourceConfig& config);

  const Tokenizer& tokenizer() const { return *tokenizer_; }
  const TokenArray& tokens(Split s) const { return splits_[static_cast<size_t>(s)]; }
  uint64_t text_bytes(Split s) const { return text_bytes_[static_cast<size_t>(s)]; }
  const SourceConfig& config() const { return config_; }

  bool from_cache() const { return from_cache_; }
  // Why the cache was not used, per split ("absent", "corrupt: ...", "stale: ...", "disabled").
  const std::vector<std::string>& cache_misses() const { return cache_misses_; }
  // Files read with a Latin-1 fallback (empty when served from cache).
  const std::vector<FileReadReport>& file_reports() const { return reports_; }

  nlohmann::json describe() const;

 private:
  class TokenCacheFiles;  // defined in text_dataset.cpp
  // Reads every split from the token cache; false (with the reasons in cache_misses_) when any misses.
  bool load_cached(const TokenCacheFiles& files);
  SourceConfig config_;
  std::shared_ptr<const Tokenizer> tokenizer_;
  std::array<TokenArray, 3> splits_;
  std::array<uint64_t, 3> text_bytes_{};
  bool from_cache_ = false;
  std::vector<std::string> cache_misses_;
  std::vector<FileReadReport> reports_;
};

}  // namespace pha::data
