// Tokenizers without installed files: byte-level, GPT-2 pre-tokenisation, our BPE trainer
// (train -> write GPT-2 format -> load -> lossless round trip), and config errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "core/error.h"
#include "data/bpe_tokenizer.h"
#include "data/bpe_trainer.h"
#include "data/internal/byte_tokenizer.h"
#include "data/file_io.h"
#include "data/pretokenizer.h"
#include "data/rng.h"
#include "data/tokenizer.h"
#include "temp_dir.h"
#include "unicode_text.h"

namespace fs = std::filesystem;
using pha::data::Piece;

namespace {

std::string random_bytes(uint64_t seed, size_t n) {
  pha::data::Rng rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng.below(256));
  return s;
}

std::vector<std::string> pieces_of(const std::string& text) {
  std::vector<Piece> pieces;
  pha::data::Gpt2PreTokenizer::instance().split(text, pieces);
  std::vector<std::string> out;
  for (const auto& p : pieces) out.push_back(text.substr(p.offset, p.length));
  return out;
}

}  // namespace

TEST(ByteTokenizer, IdsAreBytesAndRoundTripAnyBytes) {
  pha::data::ByteTokenizer tok;
  EXPECT_EQ(tok.vocab_size(), 257);
  EXPECT_EQ(tok.eot_id(), 256);
  EXPECT_EQ(tok.encode("A\xff"), (std::vector<int32_t>{65, 255}));
  for (uint64_t seed = 0; seed < 20; ++seed) {
    std::string s = random_bytes(seed, 1000);  // mostly invalid UTF-8
    EXPECT_EQ(tok.decode(tok.encode(s)), s);
  }
  EXPECT_EQ(tok.decode({104, 105, 256}), "hi<|endoftext|>");
  EXPECT_THROW(tok.decode({257}), pha::core::Error);
  EXPECT_THROW(tok.decode({-1}), pha::core::Error);
  EXPECT_EQ(tok.describe()["kind"], "byte");
}

TEST(Gpt2PreTokenizer, SplitsLikeGpt2AndTilesTheText) {
  EXPECT_EQ(pieces_of("I'm sure they'll"), (std::vector<std::string>{"I", "'m", " sure", " they", "'ll"}));
  // A whitespace run before a word: all but the last space, then " word" (\s+(?!\S)).
  EXPECT_EQ(pieces_of("a   b"), (std::vector<std::string>{"a", "  ", " b"}));
  EXPECT_EQ(pieces_of("x 123 4.5!?"), (std::vector<std::string>{"x", " 123", " 4", ".", "5", "!?"}));
  EXPECT_EQ(pieces_of("end  \n"), (std::vector<std::string>{"end", "  \n"}));
  // No-break spaces are Unicode whitespace (Python's \s) but not the literal ' ' that may
  // prefix a word, so the last one stands alone.
  EXPECT_EQ(pieces_of("a\xC2\xA0\xC2\xA0" "b"), (std::vector<std::string>{"a", "\xC2\xA0", "\xC2\xA0", "b"}));
  EXPECT_TRUE(pha::data::Gpt2PreTokenizer::instance().jit()) << "PCRE2 JIT should be available on x86-64";
  for (uint64_t seed = 0; seed < 10; ++seed) {
    std::string text = seed % 2 ? pha::test::generated_unicode_text(seed, 2000) : random_bytes(seed, 3000);
    std::string joined;
    for (const auto& p : pieces_of(text)) {
      ASSERT_FALSE(p.empty());
      joined += p;
    }
    EXPECT_EQ(joined, text);
  }
  // Invalid bytes stand alone.
  EXPECT_EQ(pieces_of("ab\xff" "cd"), (std::vector<std::string>{"ab", "\xff", "cd"}));
}

TEST(BpeTrainer, TrainedVocabularyRoundTripsAndCompresses) {
  pha::test::TempDir dir;
  const std::string train = pha::test::generated_unicode_text(1, 20000);
  pha::data::BpeTrainer trainer({/*vocab_size=*/600, /*min_frequency=*/2, {"<|endoftext|>"}});
  trainer.add_text(train);
  auto result = trainer.train_and_write(dir.path());
  EXPECT_EQ(result.vocab_size, 600);
  ASSERT_TRUE(fs::exists(dir.path() / "encoder.json"));
  ASSERT_TRUE(fs::exists(dir.path() / "vocab.bpe"));

  auto tok = pha::data::make_tokenizer({{"kind", "bpe"}, {"dir", dir.path().string()}});
  EXPECT_EQ(tok->vocab_size(), 600);
  EXPECT_EQ(tok->eot_id(), 599);
  const std::string test = pha::test::generated_unicode_text(2, 5000);
  auto ids = tok->encode(test);
  EXPECT_EQ(tok->decode(ids), test);
  EXPECT_LT(ids.size() * 3, test.size()) << "merges learned on this kind of text must compress it";
  for (uint64_t seed = 0; seed < 5; ++seed) {
    std::string bytes = random_bytes(100 + seed, 2000);
    EXPECT_EQ(tok->decode(tok->encode(bytes)), bytes);
  }
}

TEST(BpeTrainer, FirstMergeIsTheMostFrequentPairAndTrainingIsDeterministic) {
  const std::string text = "aaab aab ab ab xy xy xy xy xy";
  // Independent count of adjacent byte pairs inside pre-tokenised pieces.
  std::map<std::string, int> counts;
  for (const auto& p : pieces_of(text))
    for (size_t i = 0; i + 1 < p.size(); ++i) ++counts[p.substr(i, 2)];
  auto best = std::max_element(counts.begin(), counts.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  pha::test::TempDir d1, d2;
  for (auto* d : {&d1, &d2}) {
    pha::data::BpeTrainer t({/*vocab_size=*/262, /*min_frequency=*/1, {"<|endoftext|>"}});
    t.add_text(text);
    t.train_and_write(d->path());
  }
  const std::string merges = pha::data::read_file(d1.path() / "vocab.bpe");
  EXPECT_EQ(merges, pha::data::read_file(d2.path() / "vocab.bpe"));
  EXPECT_EQ(pha::data::read_file(d1.path() / "encoder.json"), pha::data::read_file(d2.path() / "encoder.json"));
  // Line 2 is the first merge, in GPT-2 spelling (a space is written as U+0120 "Ġ").
  const size_t nl = merges.find('\n');
  const std::string first = merges.substr(nl + 1, merges.find('\n', nl + 1) - nl - 1);
  std::string expected = best->first;
  std::string spelled;
  for (char c : expected) spelled += (c == ' ' ? std::string("\xC4\xA0") : std::string(1, c)) + " ";
  spelled.pop_back();
  EXPECT_EQ(first, spelled) << "most frequent pair " << best->first << " (" << best->second << ")";
}

TEST(TokenizerConfig, ErrorsNameTheField) {
  auto expect_error = [](const nlohmann::json& cfg, const std::string& needle) {
    try {
      pha::data::make_tokenizer(cfg, "data.tokenizer");
      ADD_FAILURE() << "accepted " << cfg.dump();
    } catch (const pha::core::Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error({{"kind", "wordpiece"}}, "data.tokenizer.kind");
  expect_error({{"kind", "bpe"}}, "data.tokenizer.dir");
  expect_error({{"kind", "byte"}, {"vocab", 3}}, "data.tokenizer.vocab");
  expect_error({{"kind", "bpe"}, {"dir", "/nonexistent/tok"}}, "/nonexistent/tok/encoder.json");
}
