// libFuzzer target: loading a BPE vocabulary (engine/data/bpe_tokenizer.cpp, BpeTokenizer::load):
// the input is encoder.json, a NUL byte, then vocab.bpe. Oracle: only core::Error on bad files;
// an accepted vocabulary encodes a fixed text (every byte value included) losslessly.

#include "data/bpe_tokenizer.h"
#include "fuzz_support.h"

namespace fs = std::filesystem;

namespace {

std::string probe_text() {
  std::string s = "Hello, world! It's 2026: caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac <|endoftext|> ";
  for (int b = 0; b < 256; ++b) s += static_cast<char>(b);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  if (nul == std::string_view::npos) return -1;  // not in this target's format
  const fs::path dir = pha::fuzz::scratch_dir();
  pha::fuzz::write_file(dir / "encoder.json", input.substr(0, nul));
  pha::fuzz::write_file(dir / "vocab.bpe", input.substr(nul + 1));
  pha::fuzz::only_pha_errors([&] {
    const auto tok = pha::data::BpeTokenizer::load(dir);
    static const std::string text = probe_text();
    const std::vector<int32_t> ids = tok->encode(text);
    for (int32_t id : ids) FUZZ_CHECK(id >= 0 && id < tok->vocab_size());
    FUZZ_CHECK(tok->decode(ids) == text);
  });
  return 0;
}
