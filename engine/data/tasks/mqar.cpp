#include "data/internal/mqar.h"

#include <cmath>

#include "core/error.h"
#include "data/internal/task_common.h"

namespace pha::data {

namespace {

class Mqar : public TaskGenerator {
 public:
  explicit Mqar(const nlohmann::json& config) {
    core::ConfigReader r(config, "task");
    info_.suite = "zoology";
    detail::read_common(r, info_, seed_, 100000);
    vocab_ = static_cast<int32_t>(r.get_int("vocab_size", 8192, 4, 1 << 30));
    info_.seq_len = static_cast<int>(r.get_int("seq_len", 64, 4, core::limits::kMaxSeqLen, core::limits::kNote));
    kv_ = static_cast<int>(r.get_int("num_kv_pairs", 4, 1, 1 << 22));
    power_a_ = r.get_double("power_a", 0.01, 1e-6, 1.0);
    random_non_queries_ = r.get_bool("random_non_queries", true);
    r.finish();
    const int T = info_.seq_len;
    if (T % 2 != 0) throw core::Error("task.seq_len", "must be even for MQAR, got " + std::to_string(T));
    if (vocab_ <= T) throw core::Error("task.vocab_size", "must be greater than seq_len (" + std::to_string(T) + ")");
    if (4 * kv_ > T) throw core::Error("task.num_kv_pairs", "4 * num_kv_pairs must be <= seq_len (" + std::to_string(T) + ")");
    if (kv_ > vocab_ / 2 - 1) throw core::Error("task.num_kv_pairs", "must be below vocab_size / 2");
    info_.vocab_size = vocab_;
    params_ = r.used();
    // Query slot weights p_i ~ a * i^(a-1), i = 1..space (zoology's power law).
    const int space = (T - 2 * kv_) / 2;
    weights_.resize(static_cast<size_t>(space));
    for (int i = 0; i < space; ++i) weights_[static_cast<size_t>(i)] = power_a_ * std::pow(i + 1.0, power_a_ - 1.0);
  }

  void generate(uint64_t index, int32_t* inputs, int32_t* targets) const override {
    Rng rng(derive_seed(seed_, index));
    const int T = info_.seq_len;
    thread_local std::vector<int32_t> keys, values;
    detail::sample_distinct(rng, 1, vocab_ / 2, kv_, keys);
    detail::sample_distinct(rng, vocab_ / 2, vocab_, kv_, values);
    std::fill(inputs, inputs + T, 0);
    std::fill(targets, targets + T, kIgnore);
    for (int j = 0; j < kv_; ++j) {
      inputs[2 * j] = keys[static_cast<size_t>(j)];
      inputs[2 * j + 1] = values[static_cast<size_t>(j)];
    }
    // Query slots: drawn one by one without replacement, each with probability proportional
    // to its weight among the slots still free.
    thread_local std::vector<double> w;
    w = weights_;
    double total = 0;
    for (double x : w) total += x;
    const int context = 2 * kv_;
    for (int j = 0; j < kv_; ++j) {
      double u = rng.uniform() * total;
      size_t g = 0, last_free = 0;
      for (; g < w.size(); ++g) {
        if (w[g] == 0) continue;
        last_free = g;
        if (u < w[g]) break;
        u -= w[g];
      }
      if (g == w.size()) g = last_free;  // rounding at the end of the scan
      total -= w[g];
      w[g] = 0;
      const int pos = context + 2 * static_cast<int>(g);
      inputs[pos] = keys[static_cast<size_t>(j)];
      targets[pos] = values[static_cast<size_t>(j)];
    }
    if (random_non_queries_) {
      for (int t = context; t < T; ++t)
        if (inputs[t] == 0) inputs[t] = static_cast<int32_t>(rng.below(static_cast<uint64_t>(vocab_)));
    }
  }

 private:
  uint64_t seed_ = 0;
  int32_t vocab_ = 0;
  int kv_ = 0;
  double power_a_ = 0.01;
  bool random_non_queries_ = true;
  std::vector<double> weights_;
};

}  // namespace

std::unique_ptr<TaskGenerator> make_mqar(const nlohmann::json& config) { return std::make_unique<Mqar>(config); }

}  // namespace pha::data
