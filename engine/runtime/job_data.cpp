#include "runtime/job_data.h"

#include <algorithm>

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

JobData::JobData(const project::DataSpec& spec, const project::TrainingConfig& cfg) : spec_(spec), cfg_(cfg) {
  if (!spec.is_task) {
    text_ = data::TextDataset::load(spec.text, "data");
    const auto& train = text_->tokens(data::Split::Train);
    if (train.size() < static_cast<size_t>(cfg.seq_len) + 1)
      throw core::Error("training.seq_len", std::to_string(cfg.seq_len) + " needs at least " + std::to_string(cfg.seq_len + 1) +
                                          " training tokens; the train split has " + std::to_string(train.size()));
    if (text_->tokens(data::Split::Valid).size() < 2)
      throw core::Error("data.split", "the validation split is empty; give it at least one file or a share");
    const data::Tokenizer& tok = text_->tokenizer();
    token_bytes_.assign(static_cast<size_t>(tok.vocab_size()), 0);
    for (int32_t id = 0; id < tok.vocab_size(); ++id) token_bytes_[static_cast<size_t>(id)] =
        static_cast<int32_t>(tok.decode(&id, 1).size());
    for (const auto& [id, name] : tok.special_tokens())
      if (id >= 0 && id < tok.vocab_size()) token_bytes_[static_cast<size_t>(id)] = 0;
    return;
  }
  if (spec.train_sets.empty()) {
    train_sets_.push_back({"train", data::make_task(spec.train_task)});
  } else {
    for (const auto& [name, config] : spec.train_sets) train_sets_.push_back({name, data::make_task(config)});
  }
  int64_t total = 0;
  for (const auto& t : train_sets_) train_cumulative_.push_back(total += std::max<int64_t>(1, t.task->info().num_examples));
  for (const auto& [name, config] : spec.test_tasks) tests_.push_back({name, data::make_task(config)});
}

const data::TaskGenerator& JobData::train_set_of_step(int64_t step) const {
  if (train_sets_.size() == 1) return *train_sets_.front().task;
  // A mixture (a suite): one set per step, drawn with probability proportional to its size, so
  // that every micro-batch of a step has one T (as Zoology's batches never mix segments).
  const uint64_t h = splitmix64(cfg_.seed * 0x9E3779B97F4A7C15ull ^ splitmix64(static_cast<uint64_t>(step)));
  const int64_t x = static_cast<int64_t>(h % static_cast<uint64_t>(train_cumulative_.back()));
  size_t i = 0;
  while (train_cumulative_[i] <= x) ++i;
  return *train_sets_[i].task;
}

void JobData::set_shard(int rank, int world_size) {
  if (world_size < 1 || rank < 0 || rank >= world_size)
    throw core::Error("distributed", "rank " + std::to_string(rank) + " of " + std::to_string(world_size) + " is not valid");
  if (cfg_.batch_size % world_size != 0)
    throw core::Error("training.batch_size", "is " + std::to_string(cfg_.batch_size) + ", the global batch; with " +
                                           std::to_string(world_size) + " processes it must be a multiple of " +
                                           std::to_string(world_size) + " (each takes batch_size / N rows)");
  rank_ = rank;
  world_size_ = world_size;
}

namespace {
// Rows [r * B / N, (r + 1) * B / N) of a (B, T) batch.
data::Batch rows_of(const data::Batch& b, int rank, int world_size) {
  const int rows = b.B / world_size;
  const auto first = static_cast<size_t>(rank) * static_cast<size_t>(rows) * static_cast<size_t>(b.T);
  const auto count = static_cast<size_t>(rows) * static_cast<size_t>(b.T);
  data::Batch out;
  out.B = rows;
  out.T = b.T;
  out.inputs.assign(b.inputs.begin() + static_cast<std::ptrdiff_t>(first), b.inputs.begin() + static_cast<std::ptrdiff_t>(first + count));
  out.targets.assign(b.targets.begin() + static_cast<std::ptrdiff_t>(first), b.targets.begin() + static_cast<std::ptrdiff_t>(first + count));
  return out;
}
}  // namespace

std::vector<data::Batch> JobData::train_batches(int64_t step) const {
  std::vector<data::Batch> out = global_batches(step);
  if (world_size_ > 1)
    for (auto& b : out) b = rows_of(b, rank_, world_size_);
  return out;
}

std::vector<data::Batch> JobData::global_batches(int64_t step) const {
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
    const data::TaskGenerator& task = train_set_of_step(step);
    const auto& info = task.info();
    data::Batch b;
    b.B = B;
    b.T = info.seq_len;
    const size_t T = static_cast<size_t>(b.T);
    b.inputs.resize(static_cast<size_t>(B) * T);
    b.targets.resize(static_cast<size_t>(B) * T);
    for (int i = 0; i < B; ++i) {
      const uint64_t h = splitmix64(cfg_.seed * 0x100000001B3ull ^ splitmix64(micro * 65536u + static_cast<uint64_t>(i)));
      const uint64_t index = h % static_cast<uint64_t>(std::max<int64_t>(1, info.num_examples));
      task.generate(index, b.inputs.data() + i * T, b.targets.data() + i * T);
    }
    out.push_back(std::move(b));
  }
  return out;
}

nlohmann::json JobData::describe() const {
  if (text_) return text_->describe();
  nlohmann::json j = {{"train", train_sets_.front().task->params()}, {"test", nlohmann::json::object()}};
  if (train_sets_.size() > 1) {
    j["train"] = nlohmann::json::object();
    for (const auto& t : train_sets_) j["train"][t.name] = t.task->params();
  }
  for (const auto& t : tests_) j["test"][t.name] = t.task->params();
  return j;
}

std::string held_out_label(const data::TaskInfo& info) { return "held-out " + data::describe_set(info); }

std::map<std::string, std::string> held_out_labels(const nlohmann::json& data_section) {
  std::map<std::string, std::string> out;
  if (!data_section.is_object() || data_section.value("kind", std::string()) != "task") return out;
  try {
    const project::DataSpec spec = project::DataSpec::from_json(data_section, "data");
    for (const auto& [name, config] : spec.test_tasks) out[name] = held_out_label(data::make_task(config)->info());
  } catch (const core::Error&) {
    out.clear();  // a run recorded by a version whose data section this one no longer reads: no labels
  }
  return out;
}

}  // namespace pha::runtime
