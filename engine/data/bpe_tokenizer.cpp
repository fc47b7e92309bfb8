#include "data/bpe_tokenizer.h"

#include <atomic>
#include <climits>
#include <cstring>
#include <unordered_map>

#include "core/error.h"
#include "data/file_io.h"
#include "data/hash.h"
#include "data/pretokenizer.h"
#include "data/internal/utf8.h"

namespace fs = std::filesystem;

namespace pha::data {

// (left id, right id) -> (rank, merged id), open addressing with linear probing.
struct BpeTokenizer::MergeTable {
  struct Slot {
    uint64_t key = ~0ull;
    int32_t rank = 0;
    int32_t merged = 0;
  };
  std::vector<Slot> slots;
  uint64_t mask = 0;

  static uint64_t key(int32_t a, int32_t b) { return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b); }
  static uint64_t mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDull;
    k ^= k >> 33;
    return k;
  }
  void init(size_t count) {
    size_t cap = 16;
    while (cap < count * 2) cap <<= 1;
    slots.assign(cap, Slot{});
    mask = cap - 1;
  }
  bool insert(int32_t a, int32_t b, int32_t rank, int32_t merged) {
    uint64_t k = key(a, b);
    for (uint64_t i = mix(k) & mask;; i = (i + 1) & mask) {
      if (slots[i].key == k) return false;
      if (slots[i].key == ~0ull) {
        slots[i] = {k, rank, merged};
        return true;
      }
    }
  }
  const Slot* find(int32_t a, int32_t b) const {
    uint64_t k = key(a, b);
    for (uint64_t i = mix(k) & mask;; i = (i + 1) & mask) {
      if (slots[i].key == k) return &slots[i];
      if (slots[i].key == ~0ull) return nullptr;
    }
  }
};

namespace {

std::atomic<uint64_t> g_next_instance{1};

// Per-thread cache of piece bytes -> ids for one tokenizer instance. Keys and ids live in two
// arenas; the table stores offsets, so a lookup allocates nothing.
struct PieceCache {
  struct Slot {
    uint64_t hash = 0;
    uint32_t key_off = 0, key_len = 0, ids_off = 0, ids_len = 0;
  };
  static constexpr size_t kMaxEntries = 1 << 20;
  static constexpr size_t kMaxPiece = 256;
  uint64_t owner = 0;
  std::vector<Slot> slots;
  size_t used = 0;
  std::string keys;
  std::vector<int32_t> ids;

  void reset(uint64_t new_owner) {
    owner = new_owner;
    slots.assign(1 << 16, Slot{});
    used = 0;
    keys.clear();
    ids.clear();
  }
  static uint64_t hash_bytes(const char* p, size_t n) {
    uint64_t h = 0xCBF29CE484222325ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      h = (h ^ w) * 0x100000001B3ull;
      h ^= h >> 29;
    }
    uint64_t t = 0;
    std::memcpy(&t, p + i, n - i);
    h = (h ^ t) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 32;
    return h | 1;  // 0 marks an empty slot
  }
  const Slot* find(const char* p, size_t n, uint64_t h) const {
    const size_t mask = slots.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots[i];
      if (s.hash == 0) return nullptr;
      if (s.hash == h && s.key_len == n && std::memcmp(keys.data() + s.key_off, p, n) == 0) return &s;
    }
  }
  void insert(const char* p, size_t n, uint64_t h, const int32_t* id, size_t count) {
    if (used >= kMaxEntries) reset(owner);
    if ((used + 1) * 2 > slots.size()) grow();
    Slot s{h, static_cast<uint32_t>(keys.size()), static_cast<uint32_t>(n), static_cast<uint32_t>(ids.size()),
           static_cast<uint32_t>(count)};
    keys.append(p, n);
    ids.insert(ids.end(), id, id + count);
    place(s);
    ++used;
  }
  void place(const Slot& s) {
    const size_t mask = slots.size() - 1;
    size_t i = s.hash & mask;
    while (slots[i].hash != 0) i = (i + 1) & mask;
    slots[i] = s;
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots);
    slots.assign(old.size() * 2, Slot{});
    for (const auto& s : old)
      if (s.hash != 0) place(s);
  }
};

// vocab.bpe: optional "#version" line, then one merge "left right" per line, best first. Returns
// (left id, right id, merged id) per merge in rank order and marks each merged id in `produced`.
std::vector<std::tuple<int32_t, int32_t, int32_t>> parse_merges(
    const fs::path& bpe_path, const std::string& bpe_text,
    const std::unordered_map<std::string, int32_t>& by_bytes, std::vector<bool>& produced) {
  std::vector<std::tuple<int32_t, int32_t, int32_t>> merges;
  size_t line_no = 0, pos = 0;
  std::string left, right;
  while (pos < bpe_text.size()) {
    size_t eol = bpe_text.find('\n', pos);
    if (eol == std::string::npos) eol = bpe_text.size();
    std::string_view line(bpe_text.data() + pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || (line_no == 1 && line.rfind("#version", 0) == 0)) continue;
    auto where = [&] { return bpe_path.string() + ":" + std::to_string(line_no); };
    size_t sp = line.find(' ');
    if (sp == std::string_view::npos || sp == 0 || sp + 1 >= line.size() || line.find(' ', sp + 1) != std::string_view::npos)
      throw core::Error(where(), "expected \"left right\"");
    if (!gpt2_unicode_to_bytes(line.substr(0, sp), left) || !gpt2_unicode_to_bytes(line.substr(sp + 1), right))
      throw core::Error(where(), "has a character outside GPT-2's byte alphabet");
    auto a = by_bytes.find(left), b = by_bytes.find(right), m = by_bytes.find(left + right);
    if (a == by_bytes.end() || b == by_bytes.end() || m == by_bytes.end())
      throw core::Error(where(), "merge uses or makes a token missing from encoder.json");
    merges.emplace_back(a->second, b->second, m->second);
    produced[static_cast<size_t>(m->second)] = true;
  }
  return merges;
}

PieceCache& thread_cache(uint64_t owner) {
  thread_local PieceCache cache;
  if (cache.owner != owner) cache.reset(owner);
  return cache;
}

}  // namespace

BpeTokenizer::BpeTokenizer() : merges_(std::make_unique<MergeTable>()) {
  instance_id_ = g_next_instance.fetch_add(1);
  std::fill(std::begin(byte_id_), std::end(byte_id_), -1);
}

BpeTokenizer::~BpeTokenizer() = default;

std::unique_ptr<BpeTokenizer> BpeTokenizer::load(const fs::path& dir, const std::string& kind) {
  std::unique_ptr<BpeTokenizer> t(new BpeTokenizer());
  t->kind_ = kind;
  t->dir_ = dir;
  const fs::path enc_path = dir / "encoder.json";
  const fs::path bpe_path = dir / "vocab.bpe";
  const std::string enc_text = read_file(enc_path);
  const std::string bpe_text = read_file(bpe_path);
  t->encoder_hash_ = fnv1a64(enc_text);
  t->merges_hash_ = fnv1a64(bpe_text);

  nlohmann::json enc;
  try {
    enc = nlohmann::json::parse(enc_text);
  } catch (const nlohmann::json::exception& e) {
    throw core::Error(enc_path.string(), std::string("not valid JSON: ") + e.what());
  }
  if (!enc.is_object() || enc.empty()) throw core::Error(enc_path.string(), "must be a JSON object {token: id}");
  std::unordered_map<std::string, int32_t> by_bytes;
  t->token_bytes_.assign(enc.size(), std::string());
  std::vector<bool> seen(enc.size(), false);
  std::string bytes;
  for (auto it = enc.begin(); it != enc.end(); ++it) {
    if (!it->is_number_integer()) throw core::Error(enc_path.string(), "id of token " + it.key() + " is not an integer");
    int64_t id = it->get<int64_t>();
    if (id < 0 || id >= static_cast<int64_t>(enc.size()) || seen[static_cast<size_t>(id)])
      throw core::Error(enc_path.string(), "ids must be 0..N-1 without gaps or repeats; bad id " + std::to_string(id));
    seen[static_cast<size_t>(id)] = true;
    if (!gpt2_unicode_to_bytes(it.key(), bytes)) bytes = it.key();  // not a byte string: a special token name
    t->token_bytes_[static_cast<size_t>(id)] = bytes;
    by_bytes.emplace(bytes, static_cast<int32_t>(id));
  }
  for (int b = 0; b < 256; ++b) {
    auto it = by_bytes.find(std::string(1, static_cast<char>(b)));
    if (it == by_bytes.end()) throw core::Error(enc_path.string(), "has no token for byte " + std::to_string(b));
    t->byte_id_[b] = it->second;
  }

  // Every byte token is produced; merge results are marked by parse_merges.
  std::vector<bool> produced(t->token_bytes_.size(), false);
  for (int b = 0; b < 256; ++b) produced[static_cast<size_t>(t->byte_id_[b])] = true;
  const auto merges = parse_merges(bpe_path, bpe_text, by_bytes, produced);
  t->merges_->init(merges.size());
  for (size_t r = 0; r < merges.size(); ++r) {
    auto [a, b, m] = merges[r];
    t->merges_->insert(a, b, static_cast<int32_t>(r), m);  // a repeated pair keeps its best rank
  }
  t->merges_count_ = merges.size();
  // Tokens that are neither bytes nor merge results can never come out of encode: specials.
  t->is_special_.assign(t->token_bytes_.size(), false);
  for (size_t id = 0; id < produced.size(); ++id) {
    if (!produced[id]) {
      t->is_special_[id] = true;
      if (t->token_bytes_[id] == "<|endoftext|>") t->eot_ = static_cast<int32_t>(id);
    }
  }
  return t;
}

void BpeTokenizer::bpe_piece(const unsigned char* bytes, size_t n, std::vector<int32_t>& out) const {
  thread_local std::vector<int32_t> syms;
  syms.resize(n);
  for (size_t i = 0; i < n; ++i) syms[i] = byte_id_[bytes[i]];
  size_t size = n;
  const MergeTable& table = *merges_;
  while (size >= 2) {
    int32_t best_rank = INT32_MAX, a = 0, b = 0, merged = 0;
    for (size_t i = 0; i + 1 < size; ++i) {
      const auto* s = table.find(syms[i], syms[i + 1]);
      if (s && s->rank < best_rank) {
        best_rank = s->rank;
        a = syms[i];
        b = syms[i + 1];
        merged = s->merged;
      }
    }
    if (best_rank == INT32_MAX) break;
    // Merge every occurrence, left to right and non-overlapping, as GPT-2's bpe() does.
    size_t j = 0;
    for (size_t i = 0; i < size;) {
      if (i + 1 < size && syms[i] == a && syms[i + 1] == b) {
        syms[j++] = merged;
        i += 2;
      } else {
        syms[j++] = syms[i++];
      }
    }
    size = j;
  }
  out.insert(out.end(), syms.begin(), syms.begin() + static_cast<std::ptrdiff_t>(size));
}

void BpeTokenizer::encode_append(std::string_view text, std::vector<int32_t>& out) const {
  thread_local std::vector<Piece> pieces;
  Gpt2PreTokenizer::instance().split(text, pieces);
  PieceCache& cache = thread_cache(instance_id_);
  const auto* base = reinterpret_cast<const unsigned char*>(text.data());
  for (const Piece& pc : pieces) {
    const unsigned char* p = base + pc.offset;
    if (pc.length == 1) {
      out.push_back(byte_id_[p[0]]);
      continue;
    }
    if (pc.length > PieceCache::kMaxPiece) {
      bpe_piece(p, pc.length, out);
      continue;
    }
    const char* key = reinterpret_cast<const char*>(p);
    const uint64_t h = PieceCache::hash_bytes(key, pc.length);
    if (const auto* s = cache.find(key, pc.length, h)) {
      const int32_t* ids = cache.ids.data() + s->ids_off;
      out.insert(out.end(), ids, ids + s->ids_len);
      continue;
    }
    size_t before = out.size();
    bpe_piece(p, pc.length, out);
    cache.insert(key, pc.length, h, out.data() + before, out.size() - before);
  }
}

std::string BpeTokenizer::decode(const int32_t* ids, size_t n) const {
  std::string out;
  out.reserve(n * 4);
  const int32_t v = vocab_size();
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] < 0 || ids[i] >= v)
      throw core::Error("tokenizer", "id " + std::to_string(ids[i]) + " is outside the vocabulary [0, " + std::to_string(v) + ")");
    out += token_bytes_[static_cast<size_t>(ids[i])];
  }
  return out;
}

int32_t BpeTokenizer::token_id(std::string_view bytes) const {
  for (size_t id = 0; id < token_bytes_.size(); ++id)
    if (!is_special_[id] && token_bytes_[id] == bytes) return static_cast<int32_t>(id);
  return -1;
}

std::vector<std::pair<int32_t, std::string>> BpeTokenizer::special_tokens() const {
  std::vector<std::pair<int32_t, std::string>> out;
  for (size_t id = 0; id < is_special_.size(); ++id)
    if (is_special_[id]) out.emplace_back(static_cast<int32_t>(id), token_bytes_[id]);
  return out;
}

nlohmann::json BpeTokenizer::describe() const {
  nlohmann::json specials = nlohmann::json::array();
  for (const auto& [id, name] : special_tokens()) specials.push_back({{"id", id}, {"name", name}});
  char enc_hex[17], bpe_hex[17];
  std::snprintf(enc_hex, sizeof(enc_hex), "%016llx", static_cast<unsigned long long>(encoder_hash_));
  std::snprintf(bpe_hex, sizeof(bpe_hex), "%016llx", static_cast<unsigned long long>(merges_hash_));
  return {{"kind", kind_},
          {"dir", dir_.string()},
          {"vocab_size", vocab_size()},
          {"merges", merges_count_},
          {"specials", specials},
          {"encoder_json_fnv1a64", enc_hex},
          {"vocab_bpe_fnv1a64", bpe_hex},
          {"pretokenizer", Gpt2PreTokenizer::pattern()},
          {"version", 1}};
}

}  // namespace pha::data
