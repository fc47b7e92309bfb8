#include "data/text_dataset.h"

#include <chrono>

#include "core/error.h"
#include "data/token_cache.h"

namespace pha::data {

TextDataset TextDataset::load(const nlohmann::json& data_section, const std::string& where) {
  return load(SourceConfig::from_json(data_section, where));
}

// The cache and each split's file and key in it.
class TextDataset::TokenCacheFiles {
 public:
  TokenCache& cache;
  const std::array<std::filesystem::path, 3>& files;
  const std::array<nlohmann::json, 3>& keys;
};

bool TextDataset::load_cached(const TokenCacheFiles& c) {
  bool all = true;
  for (int s = 0; s < 3; ++s) {
    std::string why;
    auto hit = c.cache.open(c.files[s], c.keys[s], &why);
    if (!hit) {
      all = false;
      cache_misses_.push_back(std::string(split_name(static_cast<Split>(s))) + ": " + why);
      continue;
    }
    splits_[s] = hit->tokens;
    text_bytes_[s] = hit->text_bytes;
  }
  return all;
}

TextDataset TextDataset::load(const SourceConfig& config) {
  TextDataset ds;
  ds.config_ = config;
  ds.tokenizer_ = make_tokenizer(config.tokenizer, "data.tokenizer");
  TextSource source(config);  // lists and checks the files (errors name them)
  const nlohmann::json tok_desc = ds.tokenizer_->describe();
  TokenCache cache(config.cache_dir);
  std::array<std::filesystem::path, 3> files;
  std::array<nlohmann::json, 3> keys;
  for (int s = 0; s < 3; ++s) {
    const char* name = split_name(static_cast<Split>(s));
    nlohmann::json cfg = source.identity()["config"];
    files[s] = cache.path_for({{"config", cfg}, {"tokenizer", tok_desc}, {"split", name}},
                              config.kind + "-" + tok_desc.value("kind", "tok") + "-" + name);
    keys[s] = {{"format", kTokenCacheVersion}, {"source", source.identity()}, {"tokenizer", tok_desc}, {"split", name}};
  }
  if (config.cache && ds.load_cached({cache, files, keys})) {
    ds.from_cache_ = true;
    return ds;
  }
  if (!config.cache) ds.cache_misses_.push_back("disabled");

  std::array<std::vector<int32_t>, 3> ids;
  const int32_t eot = ds.tokenizer_->eot_id();
  const bool add_eot = config.eot_between_files && eot >= 0 && (config.kind == "folder" || config.kind == "gutenberg");
  ds.reports_ = source.read([&](Split split, std::string_view text, bool end_of_file) {
    auto& v = ids[static_cast<size_t>(split)];
    ds.tokenizer_->encode_append(text, v);
    ds.text_bytes_[static_cast<size_t>(split)] += text.size();
    if (end_of_file && add_eot) v.push_back(eot);
  });
  for (int s = 0; s < 3; ++s) {
    if (ids[s].size() < 2)
      throw core::Error("data.split", std::string("the ") + split_name(static_cast<Split>(s)) +
                                    " split is empty (" + std::to_string(ids[s].size()) +
                                    " tokens): change the split fractions or file lists");
    if (config.cache) {
      auto written = cache.write(files[s], keys[s], ids[s], ds.tokenizer_->vocab_size(), ds.text_bytes_[s]);
      ds.splits_[s] = written.tokens;
    } else {
      ds.splits_[s] = TokenArray::from_ids(ids[s], ds.tokenizer_->vocab_size());
    }
  }
  return ds;
}

nlohmann::json TextDataset::describe() const {
  nlohmann::json splits = nlohmann::json::object();
  for (int s = 0; s < 3; ++s)
    splits[split_name(static_cast<Split>(s))] = {{"tokens", splits_[s].size()}, {"text_bytes", text_bytes_[s]}};
  nlohmann::json fallback = nlohmann::json::array();
  for (const auto& r : reports_)
    if (r.latin1_fallback > 0) fallback.push_back({{"file", r.relative}, {"latin1_bytes", r.latin1_fallback}});
  return {{"source", config_.to_json()},
          {"tokenizer", tokenizer_->describe()},
          {"splits", splits},
          {"from_cache", from_cache_},
          {"cache_misses", cache_misses_},
          {"latin1_fallback_files", fallback}};
}

}  // namespace pha::data
