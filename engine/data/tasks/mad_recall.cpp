// MAD in-context recall, noisy recall and fuzzy recall.
#include <map>

#include "core/error.h"
#include "data/internal/mad_tasks.h"
#include "data/internal/task_common.h"

namespace pha::data {

namespace {

// In-context recall and its noisy variant. Sequence: T/2 slots of (key, value); a key seen
// before repeats its value; the last slot's key was seen before. Noisy: each slot but the
// last becomes 2 noise tokens with probability noise_prob.
class Recall : public TaskGenerator {
 public:
  Recall(const nlohmann::json& config, bool noisy) {
    core::ConfigReader r(config, "task");
    info_.suite = "mad";
    info_.metric = "macro";
    detail::read_common(r, info_, seed_, 12800);
    vocab_ = static_cast<int32_t>(r.get_int("vocab_size", 16, 4, 1 << 24));
    info_.seq_len = static_cast<int>(r.get_int("seq_len", 128, 4, core::limits::kMaxSeqLen, core::limits::kNote));
    all_values_ = r.get_choice("targets", "repeated", {"repeated", "all"}) == "all";
    if (noisy) {
      noise_vocab_ = static_cast<int32_t>(r.get_int("noise_vocab_size", 16, 1, 1 << 20));
      noise_prob_ = r.get_double("noise_prob", 0.2, 0.0, 0.95);
    }
    r.finish();
    if (info_.seq_len % 2 != 0) throw core::Error("task.seq_len", "must be even (key-value slots)");
    if (vocab_ % 2 != 0) throw core::Error("task.vocab_size", "must be even (half keys, half values)");
    info_.vocab_size = vocab_ + noise_vocab_;
    params_ = r.used();
  }

  void generate(uint64_t index, int32_t* inputs, int32_t* targets) const override {
    Rng rng(derive_seed(seed_, index));
    const int slots = info_.seq_len / 2;
    const int32_t half = vocab_ / 2;
    thread_local std::vector<int32_t> value_of;  // key -> value, -1 = not yet drawn
    thread_local std::vector<int32_t> seen;      // keys seen in a non-noise slot, in order
    value_of.assign(static_cast<size_t>(half), -1);
    seen.clear();
    std::fill(targets, targets + info_.seq_len, kIgnore);
    for (int s = 0; s < slots; ++s) {
      const bool last = s == slots - 1;
      if (!last && noise_prob_ > 0 && rng.bernoulli(noise_prob_)) {
        inputs[2 * s] = vocab_ + static_cast<int32_t>(rng.below(static_cast<uint64_t>(noise_vocab_)));
        inputs[2 * s + 1] = vocab_ + static_cast<int32_t>(rng.below(static_cast<uint64_t>(noise_vocab_)));
        continue;
      }
      int32_t key;
      if (last && !seen.empty()) key = seen[rng.below(seen.size())];
      else key = static_cast<int32_t>(rng.below(static_cast<uint64_t>(half)));
      const bool repeated = value_of[static_cast<size_t>(key)] >= 0;
      if (!repeated) {
        value_of[static_cast<size_t>(key)] = half + static_cast<int32_t>(rng.below(static_cast<uint64_t>(vocab_ - half)));
        seen.push_back(key);
      }
      inputs[2 * s] = key;
      inputs[2 * s + 1] = value_of[static_cast<size_t>(key)];
      if (repeated || all_values_) targets[2 * s] = inputs[2 * s + 1];
    }
  }

 private:
  uint64_t seed_ = 0;
  int32_t vocab_ = 16;
  int32_t noise_vocab_ = 0;
  double noise_prob_ = 0.0;
  bool all_values_ = false;
};

// Fuzzy recall: keys and values are tuples of tokens (lengths in [min, max]); a key tuple seen
// before repeats its value tuple; the last pair's key was seen before. Tuples are delimited by
// the vocabulary halves (keys [0,V/2), values [V/2,V)); the unused front is left-padded with V.
class FuzzyRecall : public TaskGenerator {
 public:
  explicit FuzzyRecall(const nlohmann::json& config) {
    core::ConfigReader r(config, "task");
    info_.suite = "mad";
    info_.metric = "macro";
    detail::read_common(r, info_, seed_, 12800);
    vocab_ = static_cast<int32_t>(r.get_int("vocab_size", 16, 4, 1 << 24));
    info_.seq_len = static_cast<int>(r.get_int("seq_len", 128, 12, core::limits::kMaxSeqLen, core::limits::kNote));
    key_min_ = static_cast<int>(r.get_int("key_len_min", 1, 1, 16));
    key_max_ = static_cast<int>(r.get_int("key_len_max", 3, key_min_, 16));
    value_min_ = static_cast<int>(r.get_int("value_len_min", 1, 1, 16));
    value_max_ = static_cast<int>(r.get_int("value_len_max", 3, value_min_, 16));
    repeat_prob_ = r.get_double("repeat_prob", 0.5, 0.0, 1.0);
    all_values_ = r.get_choice("targets", "repeated", {"repeated", "all"}) == "all";
    r.finish();
    if (vocab_ % 2 != 0) throw core::Error("task.vocab_size", "must be even (half keys, half values)");
    if (2 * (key_max_ + value_max_) > info_.seq_len)
      throw core::Error("task.seq_len", "must hold at least two pairs of the longest tuples");
    info_.vocab_size = vocab_ + 1;
    params_ = r.used();
  }

  void generate(uint64_t index, int32_t* inputs, int32_t* targets) const override {
    Rng rng(derive_seed(seed_, index));
    const int T = info_.seq_len;
    const int32_t half = vocab_ / 2;
    std::map<std::vector<int32_t>, std::vector<int32_t>> table;
    std::vector<const std::vector<int32_t>*> keys_seen;
    std::vector<int32_t> seq, tgt;
    seq.reserve(static_cast<size_t>(T));
    tgt.reserve(static_cast<size_t>(T));
    auto emit = [&](const std::vector<int32_t>& k, const std::vector<int32_t>& v, bool counted) {
      for (size_t i = 0; i < k.size(); ++i) {
        seq.push_back(k[i]);
        tgt.push_back(i + 1 == k.size() && counted ? v[0] : kIgnore);
      }
      for (size_t i = 0; i < v.size(); ++i) {
        seq.push_back(v[i]);
        tgt.push_back(i + 1 < v.size() && counted ? v[i + 1] : kIgnore);
      }
    };
    const int reserve = key_max_ + value_max_;  // room for the final query pair
    while (true) {
      const bool reuse = !keys_seen.empty() && rng.bernoulli(repeat_prob_);
      if (reuse) {
        const auto* k = keys_seen[rng.below(keys_seen.size())];
        const auto& v = table[*k];
        if (static_cast<int>(seq.size() + k->size() + v.size()) + reserve > T) break;
        emit(*k, v, true);
        continue;
      }
      std::vector<int32_t> k(static_cast<size_t>(rng.range(key_min_, key_max_)));
      for (auto& x : k) x = static_cast<int32_t>(rng.below(static_cast<uint64_t>(half)));
      auto it = table.find(k);
      if (it != table.end()) {  // drew an existing key: it is a repeat
        if (static_cast<int>(seq.size() + k.size() + it->second.size()) + reserve > T) break;
        emit(k, it->second, true);
        continue;
      }
      std::vector<int32_t> v(static_cast<size_t>(rng.range(value_min_, value_max_)));
      for (auto& x : v) x = half + static_cast<int32_t>(rng.below(static_cast<uint64_t>(vocab_ - half)));
      if (static_cast<int>(seq.size() + k.size() + v.size()) + reserve > T) break;
      auto ins = table.emplace(k, v).first;
      keys_seen.push_back(&ins->first);
      emit(ins->first, ins->second, all_values_);
    }
    if (keys_seen.empty()) throw core::Error("task.seq_len", "too short for a fuzzy recall pair and its query");
    const auto* q = keys_seen[rng.below(keys_seen.size())];
    emit(*q, table[*q], true);
    const int pad = T - static_cast<int>(seq.size());
    detail::left_pad(inputs, targets, pad, vocab_);
    std::copy(seq.begin(), seq.end(), inputs + pad);
    std::copy(tgt.begin(), tgt.end(), targets + pad);
  }

 private:
  uint64_t seed_ = 0;
  int32_t vocab_ = 16;
  int key_min_ = 1, key_max_ = 3, value_min_ = 1, value_max_ = 3;
  double repeat_prob_ = 0.5;
  bool all_values_ = false;
};

}  // namespace

std::unique_ptr<TaskGenerator> make_mad_in_context_recall(const nlohmann::json& config) {
  return std::make_unique<Recall>(config, false);
}
std::unique_ptr<TaskGenerator> make_mad_noisy_recall(const nlohmann::json& config) {
  return std::make_unique<Recall>(config, true);
}
std::unique_ptr<TaskGenerator> make_mad_fuzzy_recall(const nlohmann::json& config) {
  return std::make_unique<FuzzyRecall>(config);
}

}  // namespace pha::data
