// libFuzzer target: the token cache reader (engine/data/token_cache.cpp, TokenCache::open). The
// input is a whole cache file; the seeds hold the key below. Oracle: open() never throws and
// never reads outside the file (ASan); a rejected file says why; an accepted one has the
// header's width and every id can be read.
#include "data/token_cache.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const nlohmann::json key = {{"fuzz", "token_cache"}, {"tokenizer", {{"kind", "byte"}}}};
  static const pha::data::TokenCache cache(pha::fuzz::scratch_dir());
  pha::fuzz::MemFile file(data, size);
  std::string why;
  // open() reports a bad file through `why`; an exception of any kind would be a bug.
  std::optional<pha::data::CachedSplit> split;
  try {
    split = cache.open(file.path(), key, &why);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: TokenCache::open threw: %s\n", e.what());
    std::abort();
  }
  if (!split) {
    FUZZ_CHECK(!why.empty());
    return 0;
  }
  const pha::data::TokenArray& tokens = split->tokens;
  FUZZ_CHECK(tokens.width() == 2 || tokens.width() == 4);
  FUZZ_CHECK(64 + key.dump().size() + tokens.size() * static_cast<size_t>(tokens.width()) <= size);
  int64_t sum = 0;
  for (size_t i = 0; i < tokens.size(); ++i) sum += tokens[i];
  FUZZ_CHECK(sum >= 0);
  return 0;
}
