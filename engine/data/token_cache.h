// On-disk cache of tokenized splits: one flat file per (corpus, tokenizer, split), memory-mapped
// on open. File: a 64-byte header (magic, format version, id width, count, text bytes, key
// length, checksum), the key JSON, padding to 8 bytes, then the ids. The checksum covers the
// header, the key and the ids, so a changed byte anywhere is caught. The file name comes from
// the corpus config + tokenizer + split; the full key inside also holds every source file's
// size and mtime, so an edited corpus is found stale and rebuilt in place. Writes are atomic.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/internal/token_array.h"

namespace pha::data {

constexpr uint32_t kTokenCacheVersion = 1;

struct CachedSplit {
  TokenArray tokens;
  uint64_t text_bytes = 0;  // UTF-8 bytes of text these tokens encode (for bits per byte)
  std::filesystem::path path;
};

class TokenCache {
 public:
  explicit TokenCache(std::filesystem::path dir);

  // File for a cache entry: dir/<name_hint>-<16 hex of name_key>.tok
  std::filesystem::path path_for(const nlohmann::json& name_key, const std::string& name_hint) const;

  // Maps the entry if it exists, is intact and holds exactly `key`. Otherwise nullopt and
  // *why says what was wrong ("absent", "corrupt: ...", "stale: ...").
  std::optional<CachedSplit> open(const std::filesystem::path& file, const nlohmann::json& key,
                                  std::string* why = nullptr) const;

  // Writes the entry atomically and returns it mapped.
  CachedSplit write(const std::filesystem::path& file, const nlohmann::json& key, const std::vector<int32_t>& ids,
                    int32_t vocab_size, uint64_t text_bytes) const;

  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace pha::data
