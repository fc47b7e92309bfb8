#include "data/internal/composition_tasks.h"

#include "core/error.h"
#include "data/internal/task_common.h"

namespace pha::data {

namespace {

// Common reading of vocab_size / seq_len / seq_len_min.
struct Shape {
  int32_t vocab = 0;
  int seq_len_min = 0;
};

Shape read_shape(core::ConfigReader& r, TaskInfo& info, int32_t default_vocab, int default_T, int min_T) {
  Shape s;
  s.vocab = static_cast<int32_t>(r.get_int("vocab_size", default_vocab, 4, 1 << 24));
  info.seq_len = static_cast<int>(r.get_int("seq_len", default_T, min_T, core::limits::kMaxSeqLen, core::limits::kNote));
  s.seq_len_min = static_cast<int>(r.get_int("seq_len_min", info.seq_len, min_T, info.seq_len));
  info.seq_len_min = s.seq_len_min;
  if (s.vocab % 2 != 0) throw core::Error("task.vocab_size", "must be even (half keys, half values)");
  return s;
}

class ArDecode : public TaskGenerator {
 public:
  explicit ArDecode(const nlohmann::json& config) {
    core::ConfigReader r(config, "task");
    info_.suite = "seed2";
    detail::read_common(r, info_, seed_, 12800);
    shape_ = read_shape(r, info_, 64, 32, 4);
    map_seed_ = static_cast<uint64_t>(r.get_int("map_seed", 0, 0, INT64_MAX));
    r.finish();
    info_.vocab_size = shape_.vocab + 2;
    params_ = r.used();
    g_ = ar_decode_permutation(shape_.vocab, map_seed_);
  }

  void generate(uint64_t index, int32_t* inputs, int32_t* targets) const override {
    Rng rng(derive_seed(seed_, index));
    const int T = info_.seq_len;
    const int len = static_cast<int>(rng.range(shape_.seq_len_min, T));
    const int pairs = (len - 2) / 2;
    const int used = 2 * pairs + 2;
    const int32_t half = shape_.vocab / 2, sep = shape_.vocab, pad = shape_.vocab + 1;
    detail::left_pad(inputs, targets, T - used, pad);
    thread_local std::vector<int32_t> value_of;
    value_of.assign(static_cast<size_t>(half), -1);
    int32_t* in = inputs + (T - used);
    int32_t* tg = targets + (T - used);
    for (int p = 0; p < pairs; ++p) {
      const int32_t k = static_cast<int32_t>(rng.below(static_cast<uint64_t>(half)));
      if (value_of[static_cast<size_t>(k)] < 0)
        value_of[static_cast<size_t>(k)] = half + static_cast<int32_t>(rng.below(static_cast<uint64_t>(half)));
      in[2 * p] = k;
      in[2 * p + 1] = value_of[static_cast<size_t>(k)];
      tg[2 * p] = tg[2 * p + 1] = kIgnore;
    }
    const int32_t q = in[2 * rng.below(static_cast<uint64_t>(pairs))];
    in[used - 2] = sep;
    tg[used - 2] = kIgnore;
    in[used - 1] = q;
    tg[used - 1] = g_[static_cast<size_t>(value_of[static_cast<size_t>(q)] - half)];
  }

 private:
  uint64_t seed_ = 0, map_seed_ = 0;
  Shape shape_;
  std::vector<int32_t> g_;
};

class Mkar : public TaskGenerator {
 public:
  explicit Mkar(const nlohmann::json& config) {
    core::ConfigReader r(config, "task");
    info_.suite = "seed2";
    detail::read_common(r, info_, seed_, 12800);
    shape_ = read_shape(r, info_, 64, 48, 6);
    r.finish();
    if (shape_.vocab < 8) throw core::Error("task.vocab_size", "must be at least 8 for MKAR");
    info_.vocab_size = shape_.vocab + 2;
    params_ = r.used();
  }

  void generate(uint64_t index, int32_t* inputs, int32_t* targets) const override {
    Rng rng(derive_seed(seed_, index));
    const int T = info_.seq_len;
    const int len = static_cast<int>(rng.range(shape_.seq_len_min, T));
    const int triples = (len - 3) / 3;
    const int used = 3 * triples + 3;
    const int32_t half = shape_.vocab / 2, sep = shape_.vocab, pad = shape_.vocab + 1;
    detail::left_pad(inputs, targets, T - used, pad);
    int32_t* in = inputs + (T - used);
    int32_t* tg = targets + (T - used);
    std::fill(tg, tg + used, kIgnore);
    const int32_t a = static_cast<int32_t>(rng.below(static_cast<uint64_t>(half)));
    const int32_t b = static_cast<int32_t>(rng.below(static_cast<uint64_t>(half)));
    const int32_t v = half + static_cast<int32_t>(rng.below(static_cast<uint64_t>(half)));
    const int where = static_cast<int>(rng.below(static_cast<uint64_t>(triples)));
    for (int i = 0; i < triples; ++i) {
      int32_t k1 = a, k2 = b, val = v;
      if (i != where) {
        // A distractor: keeps one query key, the other differs from the query's.
        int32_t other = static_cast<int32_t>(rng.below(static_cast<uint64_t>(half - 1)));
        if (rng.bernoulli(0.5)) k2 = other >= b ? other + 1 : other;
        else k1 = other >= a ? other + 1 : other;
        val = half + static_cast<int32_t>(rng.below(static_cast<uint64_t>(half)));
      }
      in[3 * i] = k1;
      in[3 * i + 1] = k2;
      in[3 * i + 2] = val;
    }
    in[used - 3] = sep;
    in[used - 2] = a;
    in[used - 1] = b;
    tg[used - 1] = v;
  }

 private:
  uint64_t seed_ = 0;
  Shape shape_;
};

class Needle : public TaskGenerator {
 public:
  explicit Needle(const nlohmann::json& config) {
    core::ConfigReader r(config, "task");
    info_.suite = "seed2";
    detail::read_common(r, info_, seed_, 12800);
    shape_ = read_shape(r, info_, 64, 64, 3);
    r.finish();
    info_.vocab_size = shape_.vocab + 1;
    params_ = r.used();
  }

  void generate(uint64_t index, int32_t* inputs, int32_t* targets) const override {
    Rng rng(derive_seed(seed_, index));
    const int T = info_.seq_len;
    const int len = static_cast<int>(rng.range(shape_.seq_len_min, T));
    const int32_t V = shape_.vocab;
    detail::left_pad(inputs, targets, T - len, V);
    int32_t* in = inputs + (T - len);
    int32_t* tg = targets + (T - len);
    const int32_t k = static_cast<int32_t>(rng.below(static_cast<uint64_t>(V)));
    int32_t v = static_cast<int32_t>(rng.below(static_cast<uint64_t>(V - 1)));
    if (v >= k) ++v;  // v* != k*, so k* occurs exactly once before the query
    for (int t = 0; t < len - 1; ++t) {
      int32_t x = static_cast<int32_t>(rng.below(static_cast<uint64_t>(V - 1)));
      in[t] = x >= k ? x + 1 : x;  // never k*: the needle is the only place it appears
      tg[t] = kIgnore;
    }
    const int p = static_cast<int>(rng.below(static_cast<uint64_t>(len - 2)));
    in[p] = k;
    in[p + 1] = v;
    in[len - 1] = k;
    tg[len - 1] = v;
  }

 private:
  uint64_t seed_ = 0;
  Shape shape_;
};

}  // namespace

std::vector<int32_t> ar_decode_permutation(int32_t vocab_size, uint64_t map_seed) {
  const int32_t half = vocab_size / 2;
  std::vector<int32_t> g(static_cast<size_t>(vocab_size - half));
  for (size_t i = 0; i < g.size(); ++i) g[i] = half + static_cast<int32_t>(i);
  Rng rng(derive_seed(map_seed, 0x9A11));
  for (size_t i = g.size(); i > 1; --i) std::swap(g[i - 1], g[rng.below(i)]);
  return g;
}

std::unique_ptr<TaskGenerator> make_ar_decode(const nlohmann::json& config) { return std::make_unique<ArDecode>(config); }
std::unique_ptr<TaskGenerator> make_mkar(const nlohmann::json& config) { return std::make_unique<Mkar>(config); }
std::unique_ptr<TaskGenerator> make_needle(const nlohmann::json& config) { return std::make_unique<Needle>(config); }

}  // namespace pha::data
