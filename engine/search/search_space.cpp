// Patterns (exact counting and lexicographic indexing over the free layers) and trials (grid
// product or seeded random draws). The contract is in search_space.h.
#include "search/search_space.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/config_reader.h"
#include "core/error.h"
#include "core/numbers.h"

namespace pha::search {

using json = nlohmann::json;

namespace {

// ---- exact unsigned integers (pattern counts reach 7^64) -------------------------------------

class BigCount {
 public:
  explicit BigCount(uint64_t v = 0) {
    for (; v; v >>= 32) limbs_.push_back(static_cast<uint32_t>(v));
  }
  BigCount& operator+=(const BigCount& o) {
    if (limbs_.size() < o.limbs_.size()) limbs_.resize(o.limbs_.size(), 0);
    uint64_t carry = 0;
    for (size_t i = 0; i < limbs_.size(); ++i) {
      carry += uint64_t{limbs_[i]} + (i < o.limbs_.size() ? o.limbs_[i] : 0u);
      limbs_[i] = static_cast<uint32_t>(carry);
      carry >>= 32;
    }
    if (carry) limbs_.push_back(static_cast<uint32_t>(carry));
    return *this;
  }
  BigCount& operator-=(const BigCount& o) {  // *this >= o
    int64_t borrow = 0;
    for (size_t i = 0; i < limbs_.size(); ++i) {
      int64_t d = int64_t{limbs_[i]} - (i < o.limbs_.size() ? int64_t{o.limbs_[i]} : 0) - borrow;
      borrow = d < 0 ? 1 : 0;
      limbs_[i] = static_cast<uint32_t>(d + (borrow << 32));
    }
    trim();
    return *this;
  }
  BigCount times(uint32_t m) const {
    BigCount out;
    uint64_t carry = 0;
    for (uint32_t limb : limbs_) {
      carry += uint64_t{limb} * m;
      out.limbs_.push_back(static_cast<uint32_t>(carry));
      carry >>= 32;
    }
    if (carry) out.limbs_.push_back(static_cast<uint32_t>(carry));
    out.trim();
    return out;
  }
  BigCount divided(uint32_t q) const {  // floor(*this / q)
    BigCount out;
    out.limbs_.resize(limbs_.size());
    uint64_t rest = 0;
    for (size_t i = limbs_.size(); i-- > 0;) {
      rest = (rest << 32) | limbs_[i];
      out.limbs_[i] = static_cast<uint32_t>(rest / q);
      rest %= q;
    }
    out.trim();
    return out;
  }
  bool operator<(const BigCount& o) const {
    if (limbs_.size() != o.limbs_.size()) return limbs_.size() < o.limbs_.size();
    for (size_t i = limbs_.size(); i-- > 0;)
      if (limbs_[i] != o.limbs_[i]) return limbs_[i] < o.limbs_[i];
    return false;
  }
  bool zero() const { return limbs_.empty(); }
  int64_t saturated() const {
    if (limbs_.size() > 2 || (limbs_.size() == 2 && (limbs_[1] >> 31))) return std::numeric_limits<int64_t>::max();
    uint64_t v = 0;
    for (size_t i = limbs_.size(); i-- > 0;) v = (v << 32) | limbs_[i];
    return static_cast<int64_t>(v);
  }

 private:
  void trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }
  std::vector<uint32_t> limbs_;  // little-endian, base 2^32
};

// ---- patterns --------------------------------------------------------------------------------

// A free decision: one layer, or a mirrored pair of a symmetric pattern (weight 2).
struct Slot {
  std::vector<std::string> options;
  int weight = 1;
  bool fixed = false;
};

std::vector<Slot> slots_of(const PatternSpace& p) {
  const int n = p.n_layers;
  std::vector<Slot> slots(static_cast<size_t>(p.symmetric ? (n + 1) / 2 : n));
  for (size_t i = 0; i < slots.size(); ++i) {
    slots[i].options = p.kinds;
    slots[i].weight = p.symmetric && static_cast<int>(i) != n - 1 - static_cast<int>(i) ? 2 : 1;
  }
  auto fix = [&](size_t i, const std::string& kind) {
    Slot& s = slots[i];
    if (s.fixed && s.options != std::vector<std::string>{kind}) s.options.clear();  // first != last
    else s.options = {kind};
    s.fixed = true;
  };
  if (!p.first.empty()) fix(0, p.first);
  if (!p.last.empty()) fix(p.symmetric ? 0 : slots.size() - 1, p.last);
  return slots;
}

// table[s][a]: completions of slots s.. after `a` attention layers that end within the bounds.
using CountTable = std::vector<std::vector<BigCount>>;

int attention_after(const Slot& s, const std::string& kind, int a) { return a + (carries_attention(kind) ? s.weight : 0); }

CountTable count_table(const PatternSpace& p, const std::vector<Slot>& slots) {
  const int n = p.n_layers;
  const int hi = p.max_attention < 0 ? n : std::min(p.max_attention, n);
  CountTable t(slots.size() + 1, std::vector<BigCount>(static_cast<size_t>(n + 1)));
  for (int a = std::max(0, p.min_attention); a <= hi; ++a) t.back()[static_cast<size_t>(a)] = BigCount(1);
  for (size_t s = slots.size(); s-- > 0;)
    for (int a = 0; a <= n; ++a)
      for (const auto& k : slots[s].options) {
        const int next = attention_after(slots[s], k, a);
        if (next <= n) t[s][static_cast<size_t>(a)] += t[s + 1][static_cast<size_t>(next)];
      }
  return t;
}

std::vector<std::string> unrank(const PatternSpace& p, const std::vector<Slot>& slots, const CountTable& t, BigCount r) {
  std::vector<std::string> chosen;
  int a = 0;
  for (size_t s = 0; s < slots.size(); ++s) {
    for (const auto& k : slots[s].options) {
      const int next = attention_after(slots[s], k, a);
      if (next > p.n_layers) continue;
      const BigCount& c = t[s + 1][static_cast<size_t>(next)];
      if (r < c) {
        chosen.push_back(k);
        a = next;
        break;
      }
      r -= c;
    }
  }
  std::vector<std::string> pattern(static_cast<size_t>(p.n_layers));
  for (int i = 0; i < p.n_layers; ++i) pattern[static_cast<size_t>(i)] = chosen[static_cast<size_t>(p.symmetric ? std::min(i, p.n_layers - 1 - i) : i)];
  return pattern;
}

void check_generated(const PatternSpace& p) {
  if (p.n_layers < 1 || p.n_layers > 64)
    core::ConfigReader::out_of_range("search.patterns.n_layers", std::to_string(p.n_layers), "1 to 64");
  if (p.kinds.empty()) throw core::Error("search.patterns.kinds", "is empty; allowed: a list of " + core::quoted_list(layer_kind_tokens()));
}

std::vector<std::string> split_plus(const std::string& token) {
  std::vector<std::string> parts(1);
  for (char c : token) {
    if (c == '+') parts.emplace_back();
    else parts.back() += c;
  }
  return parts;
}

// ---- trials ------------------------------------------------------------------------------------

using core::splitmix64;

// xoshiro256** (Blackman and Vigna), state from splitmix64 of the seed and the stream.
class Rng {
 public:
  Rng(uint64_t seed, uint64_t stream) {
    uint64_t x = seed ^ (0xD1B54A32D192ED03ULL * (stream + 1));
    for (auto& w : s_) w = splitmix64(x);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0], s_[3] ^= s_[1], s_[1] ^= s_[2], s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  uint64_t below(uint64_t n) {                                             // [0, n), unbiased
    const uint64_t reject = (0 - n) % n;                                   // 2^64 mod n
    for (;;)
      if (const uint64_t r = next(); r >= reject) return r % n;
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

json draw(const Range& r, Rng& rng) {
  switch (r.kind) {
    case Range::Kind::Choices:
      return r.choices[rng.below(r.choices.size())];
    case Range::Kind::Uniform:
      return std::min(r.hi, r.lo + rng.unit() * (r.hi - r.lo));
    case Range::Kind::LogUniform:
      return std::clamp(std::exp(std::log(r.lo) + rng.unit() * (std::log(r.hi) - std::log(r.lo))), r.lo, r.hi);
    case Range::Kind::Int: {
      const auto lo = static_cast<int64_t>(r.lo);
      const uint64_t span = static_cast<uint64_t>(static_cast<int64_t>(r.hi) - lo) + 1;
      return static_cast<int64_t>(static_cast<uint64_t>(lo) + (span == 0 ? rng.next() : rng.below(span)));
    }
  }
  return nullptr;
}

std::string segment_after(const std::string& key, size_t skip_from_left) {
  size_t pos = 0;
  for (size_t i = 0; i < skip_from_left; ++i) pos = key.find('.', pos) + 1;
  return key.substr(pos);
}

// The label name of each key: its last segment, or everything after the section when another key
// ends the same way.
std::vector<std::string> short_names(const std::vector<SpaceKey>& space) {
  std::vector<std::string> last;
  for (const auto& k : space) last.push_back(k.key.substr(k.key.rfind('.') + 1));
  std::vector<std::string> out = last;
  for (size_t i = 0; i < space.size(); ++i)
    if (std::count(last.begin(), last.end(), last[i]) > 1) out[i] = segment_after(space[i].key, 1);
  return out;
}

std::string value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return core::format_number(v.get<double>());
  return v.dump();
}

Trial make_trial(const SearchSpec& spec, int index, const std::vector<json>& values, const std::vector<std::string>* pattern) {
  Trial t;
  t.index = index;
  t.values = json::object();
  t.patch = json::object();
  const std::vector<std::string> names = short_names(spec.space);
  for (size_t i = 0; i < spec.space.size(); ++i) {
    const std::string& key = spec.space[i].key;
    std::string pointer = "/" + key;
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    t.values[key] = values[i];
    t.patch[json::json_pointer(pointer)] = values[i];
    t.label += (t.label.empty() ? "" : ",") + names[i] + "=" + value_text(values[i]);
  }
  if (pattern) {
    t.values["pattern"] = *pattern;
    t.patch["model"]["variant"] = "pattern";
    t.patch["model"]["n_layers"] = pattern->size();
    t.patch["model"]["layers"] = pattern_to_layers(*pattern);
    std::string layers;
    for (const auto& k : *pattern) layers += (layers.empty() ? "" : "-") + k;
    t.label += (t.label.empty() ? "" : ",") + std::string("layers=") + layers;
  }
  return t;
}

std::vector<Trial> grid_trials(const SearchSpec& spec, const std::vector<std::vector<std::string>>& patterns) {
  for (const auto& k : spec.space)
    if (k.range.kind != Range::Kind::Choices)
      throw core::Error("search.space." + k.key, "is a range; a grid needs a list of values (or \"sampler\": {\"kind\": \"random\"})");
  const int64_t total = grid_size(spec);
  if (total > kMaxTrials)
    throw core::Error("search.sampler", "a grid of " + std::to_string(total) + " trials; allowed: at most " + std::to_string(kMaxTrials));
  std::vector<Trial> out;
  for (int64_t i = 0; i < total; ++i) {
    int64_t rest = i;
    const std::vector<std::string>* pattern = nullptr;
    if (spec.patterns.present) {
      pattern = &patterns[static_cast<size_t>(rest % static_cast<int64_t>(patterns.size()))];
      rest /= static_cast<int64_t>(patterns.size());
    }
    std::vector<json> values(spec.space.size());
    for (size_t k = spec.space.size(); k-- > 0;) {
      const auto n = static_cast<int64_t>(spec.space[k].range.choices.size());
      values[k] = spec.space[k].range.choices[static_cast<size_t>(rest % n)];
      rest /= n;
    }
    out.push_back(make_trial(spec, static_cast<int>(i), values, pattern));
  }
  return out;
}

}  // namespace

const std::vector<std::string>& layer_kind_tokens() {
  static const std::vector<std::string> v = {"parallel", "sequential", "attn", "gss", "gss+attn", "gss+ffn", "attn+ffn"};
  return v;
}

std::string normalise_layer_kind(const std::string& token, const std::string& where) {
  const auto& tokens = layer_kind_tokens();
  if (std::find(tokens.begin(), tokens.end(), token) != tokens.end()) return token;
  const std::string allowed = "; allowed: " + core::quoted_list(tokens) + " (\"gss+attn+ffn\" is \"parallel\")";
  const std::vector<std::string> branches = {"gss", "attn", "ffn"};
  const std::vector<std::string> parts = split_plus(token);
  bool valid = parts.size() >= 2;
  for (size_t i = 0; i < parts.size(); ++i)
    valid = valid && std::find(branches.begin(), branches.end(), parts[i]) != branches.end() &&
            std::count(parts.begin(), parts.end(), parts[i]) == 1;
  if (!valid) throw core::Error(where, "\"" + token + "\" is not a layer kind" + allowed);
  std::string canonical;
  for (const auto& b : branches)
    if (std::find(parts.begin(), parts.end(), b) != parts.end()) canonical += (canonical.empty() ? "" : "+") + b;
  if (canonical == "gss+attn+ffn") canonical = "parallel";
  if (canonical == token || (canonical == "parallel" && token == "gss+attn+ffn")) return canonical;
  throw core::Error(where, "\"" + token + "\": write the branches in the order gss, attn, ffn (\"" + canonical + "\")");
}

bool carries_attention(const std::string& kind) {
  return kind == "parallel" || kind == "sequential" || kind.find("attn") != std::string::npos;
}

int64_t count_patterns(const PatternSpace& space) {
  if (!space.list.empty()) return static_cast<int64_t>(space.list.size());
  if (!space.present) return 0;
  check_generated(space);
  return count_table(space, slots_of(space))[0][0].saturated();
}

std::vector<std::vector<std::string>> generate_patterns(const PatternSpace& space) {
  if (!space.list.empty() || !space.present) return space.list;
  check_generated(space);
  const std::vector<Slot> slots = slots_of(space);
  const CountTable table = count_table(space, slots);
  const BigCount& total = table[0][0];
  if (total.zero())
    throw core::Error("search.patterns", "no pattern of " + std::to_string(space.n_layers) +
                                       " layers satisfies the constraints (kinds, attention, first, last, symmetric)");
  const uint32_t max = static_cast<uint32_t>(std::max(0, space.max));
  if (max == 0 && BigCount(static_cast<uint64_t>(kMaxTrials)) < total)
    throw core::Error("search.patterns.max", "is 0 (all) but more than " + std::to_string(kMaxTrials) +
                                           " patterns satisfy the constraints; allowed: 1 to " + std::to_string(kMaxTrials) +
                                           " (an evenly spaced subset)");
  std::vector<std::vector<std::string>> out;
  if (max == 0 || !(BigCount(max) < total)) {
    for (BigCount r; r < total; r += BigCount(1)) out.push_back(unrank(space, slots, table, r));
    return out;
  }
  for (uint32_t i = 0; i < max; ++i) out.push_back(unrank(space, slots, table, total.times(i).divided(max)));
  return out;
}

json pattern_to_layers(const std::vector<std::string>& pattern) {
  json layers = json::array();
  for (const auto& k : pattern) {
    if (k.find('+') == std::string::npos) layers.push_back(k);
    else layers.push_back(json{{"kind", "parallel"}, {"sublayers", json::array({split_plus(k)})}});
  }
  return layers;
}

int64_t grid_size(const SearchSpec& spec) {
  const int64_t cap = std::numeric_limits<int64_t>::max();
  int64_t total = spec.patterns.present ? count_patterns(spec.patterns) : 1;
  if (spec.patterns.present && spec.patterns.max > 0) total = std::min<int64_t>(total, spec.patterns.max);
  for (const auto& k : spec.space) {
    const auto n = static_cast<int64_t>(k.range.kind == Range::Kind::Choices ? k.range.choices.size() : 0);
    total = n != 0 && total > cap / n ? cap : total * n;
  }
  return total;
}

std::vector<Trial> generate_trials(const SearchSpec& spec, int count, uint64_t stream) {
  const auto patterns = generate_patterns(spec.patterns);
  if (spec.sampler.kind == "grid") return grid_trials(spec, patterns);
  if (count < 1) throw core::Error("search.sampler.trials", std::to_string(count) + " trials asked; allowed: 1 or more");
  Rng rng(spec.sampler.seed, stream);
  std::vector<Trial> out;
  for (int i = 0; i < count; ++i) {
    std::vector<json> values;
    for (const auto& k : spec.space) values.push_back(draw(k.range, rng));
    const std::vector<std::string>* pattern = patterns.empty() ? nullptr : &patterns[rng.below(patterns.size())];
    out.push_back(make_trial(spec, i, values, pattern));
  }
  return out;
}

}  // namespace pha::search
