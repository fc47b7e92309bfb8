// libFuzzer target: the GPT-2 byte-level BPE encoder (engine/data/bpe_tokenizer.cpp) on
// arbitrary bytes. The vocabulary: the real GPT-2 files when installed (pha::gpt2_tokenizer_dir()
// or $PHA_FUZZ_BPE_DIR), else one BpeTrainer learns at start-up from a fixed text (printed
// either way). Oracle: every id is a non-special id of the vocabulary, decode(encode(x)) == x,
// a second encode (served by the piece cache) gives the same ids, and so does BPE piece by
// piece without the cache.
#include <cstdlib>

#include "core/paths.h"
#include "data/bpe_tokenizer.h"
#include "data/bpe_trainer.h"
#include "data/pretokenizer.h"
#include "fuzz_support.h"

namespace fs = std::filesystem;
using pha::data::BpeTokenizer;

namespace {

std::unique_ptr<BpeTokenizer> load_vocabulary() {
  const char* env = std::getenv("PHA_FUZZ_BPE_DIR");
  const fs::path gpt2 = env ? fs::path(env) : pha::core::gpt2_tokenizer_dir();
  if (fs::exists(gpt2 / "encoder.json") && fs::exists(gpt2 / "vocab.bpe")) {
    std::fprintf(stderr, "fuzz_bpe: vocabulary %s\n", gpt2.c_str());
    return BpeTokenizer::load(gpt2, "gpt2");
  }
  const fs::path dir = pha::fuzz::scratch_dir() / "bpe";
  pha::data::BpeTrainer trainer({/*vocab_size=*/1000, /*min_frequency=*/1, {"<|endoftext|>"}});
  for (int i = 0; i < 20; ++i)
    trainer.add_text("It's the GPT-2 pre-tokenizer's job: words, numbers 1234 5678, punctuation!?... and\n\n"
                     "  whitespace\t runs; unicode caf\xc3\xa9 na\xc3\xafve \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e "
                     "\xf0\x9f\x98\x80 they'll we've I'm you'd she's don't. ");
  trainer.train_and_write(dir);
  std::fprintf(stderr, "fuzz_bpe: no GPT-2 files; vocabulary trained into %s\n", dir.c_str());
  return BpeTokenizer::load(dir, "bpe");
}

const BpeTokenizer& tokenizer() {
  static const BpeTokenizer* t = load_vocabulary().release();  // lives for the process
  return *t;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tokenizer();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const BpeTokenizer& tok = tokenizer();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  pha::fuzz::only_pha_errors([&] {
    const std::vector<int32_t> ids = tok.encode(text);
    static const std::vector<bool> special = [&] {  // once: special_tokens() walks the vocabulary
      std::vector<bool> out(static_cast<size_t>(tok.vocab_size()), false);
      for (const auto& [id, name] : tok.special_tokens()) out[static_cast<size_t>(id)] = true;
      return out;
    }();
    for (int32_t id : ids) FUZZ_CHECK(id >= 0 && id < tok.vocab_size() && !special[static_cast<size_t>(id)]);
    FUZZ_CHECK(tok.decode(ids) == text);
    FUZZ_CHECK(tok.encode(text) == ids);

    std::vector<pha::data::Piece> pieces;
    pha::data::Gpt2PreTokenizer::instance().split(text, pieces);
    std::vector<int32_t> uncached;
    size_t at = 0;
    for (const auto& p : pieces) {
      FUZZ_CHECK(p.offset == at && p.length > 0);
      at += p.length;
      tok.bpe_piece(data + p.offset, p.length, uncached);
    }
    FUZZ_CHECK(at == size);
    FUZZ_CHECK(uncached == ids);
  });
  return 0;
}
