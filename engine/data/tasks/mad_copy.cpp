// MAD selective copying (and seed 2's variable-length version) and memorization.
#include <algorithm>

#include "core/error.h"
#include "data/internal/mad_tasks.h"
#include "data/internal/task_common.h"

namespace pha::data {

namespace {

// n content tokens at random positions among blanks, then the copy token and n blanks whose
// targets are the content tokens in order. With seq_len_min < seq_len the sequence length is
// drawn per sample and the front is filled with blanks (uncounted). bits_p >= 0 switches the
// content to binary tokens {0, 1}, 1 with probability bits_p (the OOD-bits study).
class SelectiveCopy : public TaskGenerator {
 public:
  SelectiveCopy(const nlohmann::json& config, bool seed2) {
    core::ConfigReader r(config, "task");
    info_.suite = seed2 ? "seed2" : "mad";
    detail::read_common(r, info_, seed_, 12800);
    vocab_ = static_cast<int32_t>(r.get_int("vocab_size", 16, 4, 1 << 24));
    info_.seq_len = static_cast<int>(r.get_int("seq_len", seed2 ? 50 : 256, 4, core::limits::kMaxSeqLen, core::limits::kNote));
    seq_len_min_ = static_cast<int>(r.get_int("seq_len_min", seed2 ? 20 : info_.seq_len, 3, info_.seq_len));
    n_ = static_cast<int>(r.get_int("num_tokens_to_copy", seed2 ? 8 : 16, 1, 1 << 20));
    bits_p_ = r.get_double("bits_p", -1.0, -1.0, 1.0);
    r.finish();
    if (2 * n_ + 1 > seq_len_min_)
      throw core::Error("task.num_tokens_to_copy", "2 * num_tokens_to_copy + 1 must be <= the shortest sequence (" +
                                                 std::to_string(seq_len_min_) + ")");
    if (bits_p_ < 0 && bits_p_ != -1.0) throw core::Error("task.bits_p", "must be -1 (off) or in [0, 1]");
    info_.vocab_size = vocab_;
    info_.seq_len_min = seq_len_min_;
    params_ = r.used();
  }

  void generate(uint64_t index, int32_t* inputs, int32_t* targets) const override {
    Rng rng(derive_seed(seed_, index));
    const int T = info_.seq_len;
    const int len = static_cast<int>(rng.range(seq_len_min_, T));
    const int32_t blank = vocab_ - 2, copy = vocab_ - 1;
    std::fill(inputs, inputs + T, blank);
    std::fill(targets, targets + T, kIgnore);
    const int region = len - n_ - 1;  // where content may go
    const int start = T - len;
    thread_local std::vector<int32_t> pos;
    detail::sample_distinct(rng, 0, region, n_, pos);
    std::sort(pos.begin(), pos.end());
    for (int i = 0; i < n_; ++i) {
      int32_t tok = bits_p_ >= 0 ? static_cast<int32_t>(rng.bernoulli(bits_p_))
                                 : static_cast<int32_t>(rng.below(static_cast<uint64_t>(vocab_ - 2)));
      inputs[start + pos[static_cast<size_t>(i)]] = tok;
      targets[T - n_ + i] = tok;
    }
    inputs[T - n_ - 1] = copy;
  }

 private:
  uint64_t seed_ = 0;
  int32_t vocab_ = 16;
  int seq_len_min_ = 0;
  int n_ = 16;
  double bits_p_ = -1.0;
};

// A fixed key -> value map drawn from map_seed (shared by train and test sets), stored in the
// weights. Sequence k1 [ins] k2 [ins] ...; the target at each insert token is map(k).
class Memorization : public TaskGenerator {
 public:
  explicit Memorization(const nlohmann::json& config) {
    core::ConfigReader r(config, "task");
    info_.suite = "mad";
    detail::read_common(r, info_, seed_, 12800);
    vocab_ = static_cast<int32_t>(r.get_int("vocab_size", 256, 4, 1 << 24));
    info_.seq_len = static_cast<int>(r.get_int("seq_len", 32, 2, core::limits::kMaxSeqLen, core::limits::kNote));
    map_seed_ = static_cast<uint64_t>(r.get_int("map_seed", 0, 0, INT64_MAX));
    r.finish();
    if (vocab_ % 2 != 0) throw core::Error("task.vocab_size", "must be even (half keys, half values)");
    if (info_.seq_len % 2 != 0) throw core::Error("task.seq_len", "must be even (key, insert token)");
    info_.vocab_size = vocab_ + 1;
    params_ = r.used();
    Rng rng(map_seed_);
    const int32_t half = vocab_ / 2;
    map_.resize(static_cast<size_t>(half));
    for (auto& v : map_) v = half + static_cast<int32_t>(rng.below(static_cast<uint64_t>(vocab_ - half)));
  }

  void generate(uint64_t index, int32_t* inputs, int32_t* targets) const override {
    Rng rng(derive_seed(seed_, index));
    for (int t = 0; t < info_.seq_len; t += 2) {
      const int32_t k = static_cast<int32_t>(rng.below(map_.size()));
      inputs[t] = k;
      targets[t] = kIgnore;
      inputs[t + 1] = vocab_;  // insert token
      targets[t + 1] = map_[static_cast<size_t>(k)];
    }
  }

 private:
  uint64_t seed_ = 0, map_seed_ = 0;
  int32_t vocab_ = 256;
  std::vector<int32_t> map_;
};

}  // namespace

std::unique_ptr<TaskGenerator> make_mad_selective_copy(const nlohmann::json& config) {
  return std::make_unique<SelectiveCopy>(config, false);
}
std::unique_ptr<TaskGenerator> make_seed2_selective_copy(const nlohmann::json& config) {
  return std::make_unique<SelectiveCopy>(config, true);
}
std::unique_ptr<TaskGenerator> make_mad_memorization(const nlohmann::json& config) {
  return std::make_unique<Memorization>(config);
}

}  // namespace pha::data
