// Text sources, splits, token cache and batchers on small files the tests write.
#include <gtest/gtest.h>

#include <cstring>

#include <fstream>
#include <set>

#include "core/error.h"
#include "data/batcher.h"
#include "data/internal/byte_tokenizer.h"
#include "data/file_io.h"
#include "data/text_dataset.h"
#include "data/text_source.h"
#include "data/token_cache.h"
#include "temp_dir.h"
#include "unicode_text.h"

namespace fs = std::filesystem;
using namespace pha::data;
using nlohmann::json;

namespace {

void write(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << s;
}

std::string paragraphs_text(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "Paragraph " + std::to_string(i) + " says something.\nSecond line.\n\n";
  return s;
}

std::string expect_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const pha::core::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no core::Error";
  return "";
}

}  // namespace

TEST(TextSource, ParagraphsConcatenateBack) {
  const std::string text = "a\nb\n\n\nc\r\n\r\nd\n\ne";
  auto ps = split_paragraphs(text);
  EXPECT_EQ(ps.size(), 4u);
  std::string joined;
  for (auto p : ps) joined += p;
  EXPECT_EQ(joined, text);
}

TEST(TextSource, SingleFileHashSplitIsDeterministicDisjointAndComplete) {
  pha::test::TempDir dir;
  const std::string text = paragraphs_text(400);
  write(dir.path() / "corpus.txt", text);
  json cfg = {{"kind", "file"}, {"path", (dir.path() / "corpus.txt").string()}, {"split", {{"valid", 0.1}, {"test", 0.1}}}};
  std::array<std::string, 3> first, second;
  for (auto* out : {&first, &second}) {
    TextSource src(SourceConfig::from_json(cfg));
    std::string all;
    src.read([&](Split s, std::string_view t, bool) {
      (*out)[static_cast<size_t>(s)] += t;
      all += t;
    });
    EXPECT_EQ(all, text) << "pieces tile the file";
  }
  EXPECT_EQ(first, second) << "same split every run";
  for (const auto& s : first) EXPECT_FALSE(s.empty());
  // Disjoint: no paragraph in two splits; shares close to the fractions.
  std::array<std::set<std::string>, 3> sets;
  for (int s = 0; s < 3; ++s)
    for (auto p : split_paragraphs(first[static_cast<size_t>(s)])) sets[static_cast<size_t>(s)].insert(std::string(p));
  for (const auto& p : sets[1]) {
    EXPECT_EQ(sets[0].count(p), 0u);
    EXPECT_EQ(sets[2].count(p), 0u);
  }
  EXPECT_NEAR(static_cast<double>(sets[1].size()) / 400, 0.1, 0.05);
  // The assignment is the documented rule.
  for (const auto& p : sets[1]) EXPECT_LT(split_bucket(p), 0.1);
}

TEST(TextSource, FolderSplitsByFileAndWikiTextByName) {
  pha::test::TempDir dir;
  for (int i = 0; i < 40; ++i) write(dir.path() / "owt" / ("doc" + std::to_string(i) + ".txt"), "text of doc " + std::to_string(i));
  TextSource src(SourceConfig::from_json({{"kind", "folder"}, {"path", (dir.path() / "owt").string()},
                                          {"split", {{"valid", 0.2}, {"test", 0.2}}}}));
  std::map<std::string, Split> where;
  size_t file_index = 0;
  src.read([&](Split s, std::string_view, bool end) {
    const auto& f = src.files()[file_index];
    EXPECT_TRUE(where.emplace(f.relative, s).second);
    const double h = split_bucket(f.relative);
    EXPECT_EQ(s, h < 0.2 ? Split::Valid : h < 0.4 ? Split::Test : Split::Train) << f.relative;
    if (end) ++file_index;
  });
  EXPECT_EQ(where.size(), 40u);

  write(dir.path() / "wt" / "wiki.train.raw", " = A = \n train text \n");
  write(dir.path() / "wt" / "wiki.valid.raw", " = B = \n valid text \n");
  write(dir.path() / "wt" / "wiki.test.raw", " = C = \n test text \n");
  TextSource wt(SourceConfig::from_json({{"kind", "wikitext"}, {"path", (dir.path() / "wt").string()}}));
  std::array<std::string, 3> got;
  wt.read([&](Split s, std::string_view t, bool) { got[static_cast<size_t>(s)] += t; });
  EXPECT_EQ(got[0], " = A = \n train text \n");
  EXPECT_EQ(got[1], " = B = \n valid text \n");
  EXPECT_EQ(got[2], " = C = \n test text \n");
}

TEST(TextSource, MissingEmptyAndBinaryFilesAreErrorsNamingTheFile) {
  pha::test::TempDir dir;
  const auto missing = (dir.path() / "nope.txt").string();
  EXPECT_NE(expect_error([&] { TextSource(SourceConfig::from_json({{"kind", "file"}, {"path", missing}})); }).find(missing),
            std::string::npos);
  write(dir.path() / "empty.txt", "");
  const auto empty = (dir.path() / "empty.txt").string();
  auto msg = expect_error([&] { TextSource(SourceConfig::from_json({{"kind", "file"}, {"path", empty}})); });
  EXPECT_NE(msg.find(empty), std::string::npos);
  EXPECT_NE(msg.find("empty"), std::string::npos);
  write(dir.path() / "wt" / "wiki.train.raw", "x");
  write(dir.path() / "wt" / "wiki.valid.raw", "x");
  msg = expect_error([&] { TextSource(SourceConfig::from_json({{"kind", "wikitext"}, {"path", (dir.path() / "wt").string()}})); });
  EXPECT_NE(msg.find("wiki.test.raw"), std::string::npos);
  write(dir.path() / "bin.txt", std::string("ab\0cd", 5));
  const auto bin = (dir.path() / "bin.txt").string();
  msg = expect_error([&] {
    TextSource(SourceConfig::from_json({{"kind", "file"}, {"path", bin}})).read([](Split, std::string_view, bool) {});
  });
  EXPECT_NE(msg.find(bin), std::string::npos);
}

TEST(TextSource, ConfigErrorsNameTheField) {
  EXPECT_NE(expect_error([] { SourceConfig::from_json({{"kind", "csv"}, {"path", "x"}}); }).find("data.kind"), std::string::npos);
  EXPECT_NE(expect_error([] { SourceConfig::from_json({{"kind", "file"}}); }).find("data.path"), std::string::npos);
  EXPECT_NE(expect_error([] { SourceConfig::from_json({{"kind", "file"}, {"path", "x"}, {"split", {{"valid", 2}}}}); })
                .find("data.split.valid"),
            std::string::npos);
  EXPECT_NE(expect_error([] { SourceConfig::from_json({{"kind", "folder"}, {"path", "x"}, {"split", {{"vaild", 0.1}}}}); })
                .find("data.split.vaild"),
            std::string::npos);
}

TEST(TextSource, Latin1BytesAreDecodedAndRecorded) {
  pha::test::TempDir dir;
  write(dir.path() / "books" / "a.txt", "caf\xe9 and na\xefve\n\nmore text here\n");
  write(dir.path() / "books" / "b.txt", "plain \xC3\xA9 utf-8\n");
  TextSource src(SourceConfig::from_json({{"kind", "folder"}, {"path", (dir.path() / "books").string()},
                                          {"split", {{"rule", "files"}, {"valid_files", {"b.txt"}}}}}));
  std::string all;
  auto reports = src.read([&](Split, std::string_view t, bool) { all += t; });
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].latin1_fallback, 2u);
  EXPECT_EQ(reports[1].latin1_fallback, 0u);
  EXPECT_NE(all.find("caf\xC3\xA9"), std::string::npos);
  EXPECT_NE(all.find("plain \xC3\xA9"), std::string::npos) << "valid UTF-8 passes unchanged";
}

TEST(TokenCache, RoundTripCorruptionAndStaleness) {
  pha::test::TempDir dir;
  TokenCache cache(dir.path());
  std::vector<int32_t> ids = {1, 2, 300, 65535, 7};
  json key = {{"k", 1}};
  auto file = cache.path_for(key, "t");
  auto w = cache.write(file, key, ids, 65536, 42);
  EXPECT_EQ(w.tokens.width(), 2);
  EXPECT_EQ(w.tokens.to_vector(), ids);
  std::string why;
  ASSERT_TRUE(cache.open(file, key, &why)) << why;
  EXPECT_FALSE(cache.open(file, {{"k", 2}}, &why));
  EXPECT_EQ(why.rfind("stale", 0), 0u) << why;
  auto wide = cache.write(cache.path_for(key, "w"), key, {70000, 1}, 70001, 3);
  EXPECT_EQ(wide.tokens.width(), 4);
  EXPECT_EQ(wide.tokens[0], 70000);
  // Flip one byte anywhere after the magic: detected.
  const std::string good = read_file(file);
  for (size_t pos : {size_t{20}, size_t{70}, good.size() - 3}) {
    std::string bad = good;
    bad[pos] = static_cast<char>(bad[pos] ^ 0x10);
    pha::core::write_file_atomic(file, {bad});
    EXPECT_FALSE(cache.open(file, key, &why)) << "byte " << pos;
    EXPECT_EQ(why.rfind("corrupt", 0), 0u) << why;
  }
  pha::core::write_file_atomic(file, {good.substr(0, 30)});
  EXPECT_FALSE(cache.open(file, key, &why));
}

// Found by fuzz_token_cache: header sizes whose sum wraps around 2^64 passed the size check,
// and the checksum then read far outside the mapped file (a crash, not a "corrupt" answer).
TEST(TokenCache, HeaderSizesThatWrapAroundAreCorrupt) {
  pha::test::TempDir dir;
  TokenCache cache(dir.path());
  json key = {{"k", 1}};
  const std::string good = read_file(cache.write(cache.path_for(key, "t"), key, {1, 2, 3}, 257, 3).path);
  uint64_t data_offset = 0;  // header: magic, version, width, count @16, text_bytes, key_length @32, data_offset @40
  std::memcpy(&data_offset, &good[40], 8);
  ASSERT_EQ(good.size(), data_offset + 3 * 2);
  auto with = [&](uint64_t key_length, uint64_t offset, uint64_t count) {
    std::string bad = good;
    std::memcpy(&bad[16], &count, 8);
    std::memcpy(&bad[32], &key_length, 8);
    std::memcpy(&bad[40], &offset, 8);
    return bad;
  };
  const uint64_t len = good.size(), key_len = key.dump().size();
  const fs::path file = dir.path() / "bad.tok";
  for (const std::string& bad : {with(~uint64_t{0} - 6, data_offset, 3),                 // 64 + key_length wraps to 57
                                 with(key_len, ~uint64_t{0} - 7, (len + 8) / 2),         // offset + 2 count wraps to len
                                 with(key_len, data_offset, (uint64_t{1} << 63) + 3)}) {  // 2 count wraps to 6
    pha::core::write_file_atomic(file, {bad});
    std::string why;
    EXPECT_FALSE(cache.open(file, key, &why));
    EXPECT_EQ(why, "corrupt: sizes do not match the file");
  }
}

TEST(TextDataset, CachesSplitsRebuildsWhenCorruptOrStale) {
  pha::test::TempDir dir;
  const auto corpus = dir.path() / "corpus.txt";
  write(corpus, paragraphs_text(300) + pha::test::generated_unicode_text(3, 3000));
  json cfg = {{"kind", "file"}, {"path", corpus.string()}, {"cache_dir", (dir.path() / "cache").string()},
              {"split", {{"valid", 0.1}, {"test", 0.1}}}};
  auto a = TextDataset::load(cfg);
  EXPECT_FALSE(a.from_cache());
  auto b = TextDataset::load(cfg);
  EXPECT_TRUE(b.from_cache());
  size_t total_bytes = 0;
  for (Split s : {Split::Train, Split::Valid, Split::Test}) {
    EXPECT_EQ(a.tokens(s).to_vector(), b.tokens(s).to_vector());
    EXPECT_EQ(a.tokens(s).size(), a.text_bytes(s)) << "byte tokenizer: one token per byte";
    total_bytes += a.text_bytes(s);
  }
  EXPECT_EQ(total_bytes, fs::file_size(corpus));
  // Corrupt one byte of the valid split's cache file: detected and rebuilt.
  fs::path valid_file;
  for (auto& e : fs::directory_iterator(dir.path() / "cache"))
    if (e.path().string().find("-valid-") != std::string::npos) valid_file = e.path();
  ASSERT_FALSE(valid_file.empty());
  std::string bytes = read_file(valid_file);
  bytes[bytes.size() - 1] = static_cast<char>(bytes.back() ^ 1);
  pha::core::write_file_atomic(valid_file, {bytes});
  auto c = TextDataset::load(cfg);
  EXPECT_FALSE(c.from_cache());
  ASSERT_FALSE(c.cache_misses().empty());
  EXPECT_NE(c.cache_misses()[0].find("corrupt"), std::string::npos) << c.cache_misses()[0];
  EXPECT_EQ(c.tokens(Split::Valid).to_vector(), a.tokens(Split::Valid).to_vector());
  EXPECT_TRUE(TextDataset::load(cfg).from_cache());
  // Edit the corpus (size changes): stale, rebuilt with the new text.
  write(corpus, paragraphs_text(310));
  auto d = TextDataset::load(cfg);
  EXPECT_FALSE(d.from_cache());
  EXPECT_NE(d.cache_misses()[0].find("stale"), std::string::npos) << d.cache_misses()[0];
  EXPECT_LT(d.tokens(Split::Train).size(), a.tokens(Split::Train).size());
  EXPECT_EQ(d.describe()["splits"]["train"]["tokens"], d.tokens(Split::Train).size());
}

TEST(Batchers, TrainWindowsAreSeededContiguousShiftedByOne) {
  std::vector<int32_t> ids(1000);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i % 250);
  auto tokens = TokenArray::from_ids(ids, 257);
  TrainBatcher a(tokens, 4, 16, 9), b(tokens, 4, 16, 9), c(tokens, 4, 16, 10);
  Batch x = a.batch(5);
  EXPECT_EQ(x.inputs, b.batch(5).inputs);
  EXPECT_NE(x.inputs, a.batch(6).inputs);
  EXPECT_NE(x.inputs, c.batch(5).inputs);
  for (int r = 0; r < 4; ++r)
    for (int t = 0; t < 16; ++t) {
      const int32_t in = x.inputs[static_cast<size_t>(r * 16 + t)], tg = x.targets[static_cast<size_t>(r * 16 + t)];
      EXPECT_EQ(tg, (in + 1) % 250) << "target is the next token";
      if (t > 0) {
        EXPECT_EQ(in, x.targets[static_cast<size_t>(r * 16 + t - 1)]);
      }
    }
  EXPECT_THROW(TrainBatcher(TokenArray::from_ids({1, 2}, 257), 1, 4, 0), pha::core::Error);
}

TEST(Batchers, EvalWindowsCoverEveryPredictionOnce) {
  std::vector<int32_t> ids(103);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i);
  EvalBatcher ev(TokenArray::from_ids(ids, 257), 3, 10);
  EXPECT_EQ(ev.num_windows(), 11u);  // 102 predictions / 10, rounded up
  EXPECT_EQ(ev.num_batches(), 4u);
  std::vector<int> predicted(ids.size(), 0);
  for (size_t i = 0; i < ev.num_batches(); ++i) {
    Batch b = ev.batch(i);
    EXPECT_EQ(b.B, i + 1 < ev.num_batches() ? 3 : 2);
    for (size_t k = 0; k < b.targets.size(); ++k) {
      if (b.targets[k] == kIgnore) continue;
      EXPECT_EQ(b.targets[k], b.inputs[k] + 1);
      ++predicted[static_cast<size_t>(b.targets[k])];
    }
  }
  EXPECT_EQ(predicted[0], 0);
  for (size_t i = 1; i < ids.size(); ++i) EXPECT_EQ(predicted[i], 1) << i;
}
