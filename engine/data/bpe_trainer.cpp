#include "data/bpe_trainer.h"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "data/file_io.h"
#include "data/pretokenizer.h"
#include "data/internal/utf8.h"

namespace pha::data {

namespace {

uint64_t pair_key(int32_t a, int32_t b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

struct Word {
  std::vector<int32_t> syms;
  int64_t freq;
};

// Learned merges over internal ids: bytes are ids 0..255 by byte value, new tokens follow.
struct MergeState {
  std::vector<std::string> token_bytes;
  std::unordered_map<std::string, int32_t> by_bytes;
  std::vector<std::pair<int32_t, int32_t>> merges;
};

void count_pairs(const Word& w, std::unordered_map<uint64_t, int64_t>& counts, int64_t sign) {
  for (size_t i = 0; i + 1 < w.syms.size(); ++i) counts[pair_key(w.syms[i], w.syms[i + 1])] += sign * w.freq;
}

// The id of the token with these bytes, made (appended) when no merge has made it yet.
int32_t intern_token(MergeState& st, const std::string& bytes) {
  if (auto it = st.by_bytes.find(bytes); it != st.by_bytes.end()) return it->second;
  const auto m = static_cast<int32_t>(st.token_bytes.size());
  st.token_bytes.push_back(bytes);
  st.by_bytes.emplace(bytes, m);
  return m;
}

// Every (a, b) in syms, left to right without overlap, becomes m.
void replace_pair(std::vector<int32_t>& syms, int32_t a, int32_t b, int32_t m) {
  size_t j = 0;
  for (size_t i = 0; i < syms.size();) {
    if (i + 1 < syms.size() && syms[i] == a && syms[i + 1] == b) {
      syms[j++] = m;
      i += 2;
    } else {
      syms[j++] = syms[i++];
    }
  }
  syms.resize(j);
}

MergeState learn(std::vector<Word>& words, int target_tokens, int min_frequency) {
  MergeState st;
  for (int b = 0; b < 256; ++b) {
    st.token_bytes.emplace_back(1, static_cast<char>(b));
    st.by_bytes.emplace(st.token_bytes.back(), b);
  }
  std::unordered_map<uint64_t, int64_t> counts;
  std::unordered_map<uint64_t, std::vector<uint32_t>> where;
  for (uint32_t wi = 0; wi < words.size(); ++wi) {
    count_pairs(words[wi], counts, +1);
    for (size_t i = 0; i + 1 < words[wi].syms.size(); ++i) where[pair_key(words[wi].syms[i], words[wi].syms[i + 1])].push_back(wi);
  }
  // Max-heap of (count, -key): equal counts pop the smaller pair key first. Entries go stale
  // when counts change; a popped entry is used only if it still matches the live count.
  using Entry = std::pair<int64_t, int64_t>;
  auto cmp = [](const Entry& x, const Entry& y) { return x.first != y.first ? x.first < y.first : x.second > y.second; };
  std::priority_queue<Entry, std::vector<Entry>, decltype(cmp)> heap(cmp);
  for (const auto& [k, c] : counts) heap.push({c, static_cast<int64_t>(k)});

  while (static_cast<int>(st.token_bytes.size()) < target_tokens && !heap.empty()) {
    auto [c, k] = heap.top();
    heap.pop();
    auto live = counts.find(static_cast<uint64_t>(k));
    if (live == counts.end() || live->second != c) continue;
    if (c < min_frequency) break;
    const int32_t a = static_cast<int32_t>(static_cast<uint64_t>(k) >> 32);
    const int32_t b = static_cast<int32_t>(static_cast<uint64_t>(k) & 0xFFFFFFFFu);
    const int32_t m = intern_token(st, st.token_bytes[static_cast<size_t>(a)] + st.token_bytes[static_cast<size_t>(b)]);
    st.merges.emplace_back(a, b);
    std::vector<uint32_t> affected = std::move(where[static_cast<uint64_t>(k)]);
    where.erase(static_cast<uint64_t>(k));
    std::sort(affected.begin(), affected.end());
    affected.erase(std::unique(affected.begin(), affected.end()), affected.end());
    std::unordered_set<uint64_t> touched;
    for (uint32_t wi : affected) {
      Word& w = words[wi];
      bool has = false;
      for (size_t i = 0; i + 1 < w.syms.size() && !has; ++i) has = w.syms[i] == a && w.syms[i + 1] == b;
      if (!has) continue;
      for (size_t i = 0; i + 1 < w.syms.size(); ++i) touched.insert(pair_key(w.syms[i], w.syms[i + 1]));
      count_pairs(w, counts, -1);
      replace_pair(w.syms, a, b, m);
      count_pairs(w, counts, +1);
      for (size_t i = 0; i + 1 < w.syms.size(); ++i) {
        uint64_t pk = pair_key(w.syms[i], w.syms[i + 1]);
        touched.insert(pk);
        if (w.syms[i] == m || w.syms[i + 1] == m) where[pk].push_back(wi);
      }
    }
    for (uint64_t pk : touched) {
      auto it = counts.find(pk);
      if (it == counts.end()) continue;
      if (it->second <= 0) counts.erase(it);
      else heap.push({it->second, static_cast<int64_t>(pk)});
    }
  }
  return st;
}

}  // namespace

BpeTrainer::BpeTrainer(BpeTrainerOptions options) : options_(std::move(options)) {
  const int min_vocab = 256 + static_cast<int>(options_.specials.size());
  if (options_.vocab_size < min_vocab)
    throw core::Error("tokenizer.vocab_size", "must be at least 256 + specials = " + std::to_string(min_vocab));
  if (options_.min_frequency < 1) throw core::Error("tokenizer.min_frequency", "must be >= 1");
}

void BpeTrainer::add_text(std::string_view text) {
  std::vector<Piece> pieces;
  Gpt2PreTokenizer::instance().split(text, pieces);
  for (const auto& p : pieces) ++counts_[std::string(text.substr(p.offset, p.length))];
  bytes_ += text.size();
}

BpeTrainResult BpeTrainer::train_and_write(const std::filesystem::path& dir) const {
  // Sorted pieces: the word order (and so the run) does not depend on hash-map iteration.
  std::vector<std::pair<std::string, int64_t>> sorted(counts_.begin(), counts_.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<Word> words;
  words.reserve(sorted.size());
  for (const auto& [piece, freq] : sorted) {
    Word w{{}, freq};
    for (unsigned char c : piece) w.syms.push_back(c);
    words.push_back(std::move(w));
  }
  const int target = options_.vocab_size - static_cast<int>(options_.specials.size());
  MergeState st = learn(words, target, options_.min_frequency);

  // GPT-2's id order: the 256 byte tokens in bytes_to_unicode order (printable bytes first),
  // then merge results in the order they were made, then the specials.
  const auto& b2u = gpt2_byte_to_codepoint();
  std::vector<int> byte_order(256);
  for (int b = 0; b < 256; ++b) byte_order[static_cast<size_t>(b)] = b;
  std::stable_sort(byte_order.begin(), byte_order.end(), [&](int x, int y) {
    return b2u[static_cast<size_t>(x)] < b2u[static_cast<size_t>(y)];
  });
  nlohmann::json enc = nlohmann::json::object();
  int next_id = 0;
  for (int b : byte_order) enc[gpt2_bytes_to_unicode(st.token_bytes[static_cast<size_t>(b)])] = next_id++;
  for (size_t t = 256; t < st.token_bytes.size(); ++t) enc[gpt2_bytes_to_unicode(st.token_bytes[t])] = next_id++;
  for (const auto& s : options_.specials) {
    if (enc.contains(s)) throw core::Error("tokenizer.specials", "special token " + s + " collides with a learned token");
    enc[s] = next_id++;
  }
  std::string merges_text = "#version: 0.2\n";
  for (const auto& [a, b] : st.merges) {
    merges_text += gpt2_bytes_to_unicode(st.token_bytes[static_cast<size_t>(a)]);
    merges_text += ' ';
    merges_text += gpt2_bytes_to_unicode(st.token_bytes[static_cast<size_t>(b)]);
    merges_text += '\n';
  }
  const std::string enc_text = enc.dump();
  core::write_file_atomic(dir / "encoder.json", {enc_text});
  core::write_file_atomic(dir / "vocab.bpe", {merges_text});

  BpeTrainResult r;
  r.vocab_size = next_id;
  r.merges = static_cast<int>(st.merges.size());
  r.pieces = sorted.size();
  r.bytes = bytes_;
  return r;
}

}  // namespace pha::data
