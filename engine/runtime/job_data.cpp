#include "runtime/job_data.h"

#include "core/error.h"
#include "data/batcher.h"

namespace pha::runtime {

namespace {
uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
}  // namespace

JobData::JobData(const DataSpec& spec, const TrainingConfig& cfg) : spec_(spec), cfg_(cfg) {
  if (!spec.is_task) {
    text_ = data::TextDataset::load(spec.text, "data");
    const auto& train = text_->tokens(data::Split::Train);
    if (train.size() < static_cast<size_t>(cfg.seq_len) + 1)
      throw Error("training.seq_len", std::to_string(cfg.seq_len) + " needs at least " + std::to_string(cfg.seq_len + 1) +
                                          " training tokens; the train split has " + std::to_string(train.size()));
    if (text_->tokens(data::Split::Valid).size() < 2)
      throw Error("data.split", "the validation split is empty; give it at least one file or a share");
    const data::Tokenizer& tok = text_->tokenizer();
    token_bytes_.assign(static_cast<size_t>(tok.vocab_size()), 0);
    for (int32_t id = 0; id < tok.vocab_size(); ++id) token_bytes_[static_cast<size_t>(id)] =
        static_cast<int32_t>(tok.decode(&id, 1).size());
    for (const auto& [id, name] : tok.special_tokens())
      if (id >= 0 && id < tok.vocab_size()) token_bytes_[static_cast<size_t>(id)] = 0;
    return;
  }
  train_task_ = data::make_task(spec.train_task);
  for (const auto& [name, config] : spec.test_tasks) tests_.push_back({name, data::make_task(config)});
}

std::vector<data::Batch> JobData::train_batches(int64_t step) const {
  std::vector<data::Batch> out;
  const int B = cfg_.batch_size;
  for (int m = 0; m < cfg_.grad_accum; ++m) {
    const uint64_t micro = static_cast<uint64_t>(step) * static_cast<uint64_t>(cfg_.grad_accum) + static_cast<uint64_t>(m);
    if (text_) {
      data::TrainBatcher batcher(text_->tokens(data::Split::Train), B, cfg_.seq_len, cfg_.seed);
      out.push_back(batcher.batch(micro));
      continue;
    }
    // Tasks: B examples drawn uniformly from the training set by a hash of (seed, step, row).
    const auto& info = train_task_->info();
    data::Batch b;
    b.B = B;
    b.T = info.seq_len;
    const size_t T = static_cast<size_t>(b.T);
    b.inputs.resize(static_cast<size_t>(B) * T);
    b.targets.resize(static_cast<size_t>(B) * T);
    for (int i = 0; i < B; ++i) {
      const uint64_t h = splitmix64(cfg_.seed * 0x100000001B3ull ^ splitmix64(micro * 65536u + static_cast<uint64_t>(i)));
      const uint64_t index = h % static_cast<uint64_t>(std::max<int64_t>(1, info.num_examples));
      train_task_->generate(index, b.inputs.data() + i * T, b.targets.data() + i * T);
    }
    out.push_back(std::move(b));
  }
  return out;
}

nlohmann::json JobData::describe() const {
  if (text_) return text_->describe();
  nlohmann::json j = {{"train", train_task_->params()}, {"test", nlohmann::json::object()}};
  for (const auto& t : tests_) j["test"][t.name] = t.task->params();
  return j;
}

}  // namespace pha::runtime
