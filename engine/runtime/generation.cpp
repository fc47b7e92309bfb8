#include "runtime/generation.h"

#include <chrono>

#include "core/error.h"
#include "data/tokenizer.h"
#include "store/store.h"

namespace pha::runtime {

using nlohmann::json;

GenerationResult generate_from_run(const std::string& store_path, std::int64_t run_id, const std::string& prompt,
                                   int max_new_tokens, const SamplingSettings& sampling, const std::string& checkpoint) {
  if (max_new_tokens < 1) throw core::Error("tokens", "must be at least 1, got " + std::to_string(max_new_tokens));
  auto store = store::Store::open(store_path);
  const auto run = store.get_run(run_id);
  if (!run) throw core::Error(store_path, "no run with id " + std::to_string(run_id));
  GenerationResult out;
  out.checkpoint = checkpoint;
  if (out.checkpoint.empty()) {
    for (const auto& c : store.checkpoints(run_id)) {
      out.checkpoint = c.path;
      out.step = c.step;
    }
  }
  if (out.checkpoint.empty()) throw core::Error(store_path, "run " + std::to_string(run_id) + " has no checkpoint yet");
  const json run_cfg = json::parse(run->config_json, nullptr, false);
  const json data = run_cfg.is_object() ? run_cfg.value("data", json::object()) : json::object();
  if (data.value("kind", std::string()) == "task")
    throw core::Error(out.checkpoint, "generation needs a run trained on text, not on a synthetic task");
  auto tokenizer = data::make_tokenizer(data.value("tokenizer", json{{"kind", "byte"}}), "data.tokenizer");
  const json cfg = checkpoint_config(out.checkpoint);
  project::TrainingConfig tc;
  tc.device = "cpu";
  Trainer trainer(model::model_config_from_json(cfg.at("model")), tc, "cpu");
  trainer.load_weights(out.checkpoint);
  const auto t0 = std::chrono::steady_clock::now();
  SamplingSettings within_tokenizer = sampling;
  within_tokenizer.vocab_limit = tokenizer->vocab_size();
  const auto ids = trainer.generate(tokenizer->encode(prompt), max_new_tokens, within_tokenizer);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.tokens = static_cast<int>(ids.size());
  out.text = tokenizer->decode(ids);
  return out;
}

}  // namespace pha::runtime
