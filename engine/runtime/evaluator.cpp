#include "runtime/evaluator.h"

#include <cmath>

#include "data/batcher.h"

namespace pha::runtime {

TextEvalResult evaluate_text(Trainer& trainer, const data::TokenArray& split, const std::vector<int32_t>& token_bytes,
                             int B, int T, int64_t max_tokens) {
  TextEvalResult r;
  if (split.size() < 2) return r;
  data::EvalBatcher batcher(split, B, T);
  double nll = 0.0;
  for (size_t i = 0; i < batcher.num_batches(); ++i) {
    if (max_tokens > 0 && r.tokens >= max_tokens) break;
    const data::Batch b = batcher.batch(i);
    const LossSums s = trainer.eval_loss(b);
    nll += s.nll;
    r.tokens += s.count;
    for (int32_t t : b.targets)
      if (t >= 0 && static_cast<size_t>(t) < token_bytes.size()) r.bytes += token_bytes[static_cast<size_t>(t)];
  }
  if (r.tokens == 0) return r;
  r.loss = nll / static_cast<double>(r.tokens);
  r.perplexity = std::exp(r.loss);
  r.bpb = r.bytes > 0 ? nll / std::log(2.0) / static_cast<double>(r.bytes) : 0.0;
  return r;
}

data::AccuracyReport evaluate_task(Trainer& trainer, const data::TaskGenerator& task, int64_t n, int B) {
  n = std::min<int64_t>(n, std::max<int64_t>(1, task.info().num_examples));
  std::vector<int32_t> predictions, targets;
  for (int64_t first = 0; first < n; first += B) {
    const int rows = static_cast<int>(std::min<int64_t>(B, n - first));
    const data::Batch b = task.batch(static_cast<uint64_t>(first), rows);
    const std::vector<int32_t> p = trainer.predict(b);
    predictions.insert(predictions.end(), p.begin(), p.end());
    targets.insert(targets.end(), b.targets.begin(), b.targets.end());
  }
  return data::accuracy(predictions, targets, task.info().seq_len);
}

namespace {
// The held-out version of a task config: seed + 10 (tasks-spec §2), n examples.
nlohmann::json test_config(const nlohmann::json& c, int64_t n) {
  nlohmann::json t = c;
  t["seed"] = c.value("seed", 0) + 10;
  t["num_examples"] = n;
  return t;
}
}  // namespace

std::vector<SweepPoint> length_sweep(Trainer& trainer, const nlohmann::json& train_task, int64_t n, int B) {
  std::vector<SweepPoint> out;
  for (const auto& set : data::length_generalization_sets(train_task)) {
    auto task = data::make_task(test_config(set.config, n));
    SweepPoint p;
    p.set = set.name;
    p.seq_len = task->info().seq_len;
    p.accuracy = evaluate_task(trainer, *task, n, B);
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<SweepPoint> ood_sweep(Trainer& trainer, const nlohmann::json& train_task, int64_t n, int B) {
  std::vector<SweepPoint> out;
  for (const auto& set : data::ood_bits_sets(train_task)) {
    auto task = data::make_task(test_config(set.config, n));
    SweepPoint p;
    p.set = set.name;
    p.seq_len = task->info().seq_len;
    p.bits_p = set.config.value("bits_p", 0.0);
    p.accuracy = evaluate_task(trainer, *task, n, B);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace pha::runtime
