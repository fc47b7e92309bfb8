// Writes the binary seed files of the fuzz corpora (tests/fuzz/<target>/) with the engine's own
// writers, so the valid seeds are exactly what the workbench writes; the edge cases are cut or
// patched from them. The text seeds (project/, bpe/) are written by hand. Usage (docs/testing.md):
//   build/fuzz/tests/fuzz/fuzz_write_seeds tests/fuzz
#include <torch/nn/modules/linear.h>
#include <torch/optim/adamw.h>

#include <cstdio>

#include "core/error.h"
#include "data/bpe_trainer.h"
#include "data/file_io.h"
#include "data/token_cache.h"
#include "fuzz_support.h"
#include "nn/checkpoint.h"

namespace fs = std::filesystem;
using namespace pha;

namespace {

std::string le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[static_cast<size_t>(i)] = static_cast<char>(v >> (8 * i));
  return s;
}

void safetensors_seeds(const fs::path& dir) {
  fs::create_directories(dir);
  at::manual_seed(1);
  pha::nn::TensorMap t;
  t["f32"] = at::randn({2, 3});
  t["f64"] = at::randn({2}, at::kDouble);
  t["f16"] = at::randn({3}).to(at::kHalf);
  t["bf16"] = at::randn({1, 2}).to(at::kBFloat16);
  t["i64"] = at::arange(3, at::kLong);
  t["i32"] = at::arange(2, at::kInt);
  t["i16"] = at::arange(2, at::kShort);
  t["i8"] = at::arange(-1, 2, at::kChar);
  t["u8"] = at::arange(4, at::kByte);
  t["bool"] = at::arange(2, at::kInt).eq(1);  // at::tensor has no bool overload in 1.13
  pha::nn::save_safetensors((dir / "every-dtype.safetensors").string(), t, {{"format", "pt"}});
  pha::nn::save_safetensors((dir / "scalar-and-empty.safetensors").string(),
                          {{"scalar", at::scalar_tensor(2.5)}, {"empty", at::zeros({0, 4})}});
  pha::nn::save_safetensors((dir / "no-tensors.safetensors").string(), {}, {{"k", "v"}});
  const std::string good = data::read_file(dir / "every-dtype.safetensors");
  pha::fuzz::write_file(dir / "truncated-data.safetensors", good.substr(0, good.size() - 3));
  pha::fuzz::write_file(dir / "header-length-too-big.safetensors", le64(1ull << 40) + good.substr(8));
  const std::string dup = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
  pha::fuzz::write_file(dir / "duplicate-key.safetensors", le64(dup.size()) + dup + "x");
  const std::string gap = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})";
  pha::fuzz::write_file(dir / "offsets-gap.safetensors", le64(gap.size()) + gap + "xy");
}

// The module of fuzz_checkpoint.cpp: Linear(2 -> 3) and its AdamW after one step.
void checkpoint_seeds(const fs::path& dir) {
  fs::create_directories(dir);
  at::manual_seed(3);
  torch::nn::Linear lin(2, 3);
  torch::optim::AdamW opt(lin->parameters(), torch::optim::AdamWOptions(1e-3));
  pha::nn::TrainingCheckpoint ck;
  ck.model = pha::nn::module_state(*lin);
  ck.step = 0;
  ck.config = {{"variant", "linear"}};
  pha::nn::save_checkpoint((dir / "before-first-step.safetensors").string(), ck);
  lin->forward(at::randn({4, 2})).sum().backward();
  opt.step();
  ck.model = pha::nn::module_state(*lin);
  ck.optimizer = pha::nn::adamw_state(opt, *lin);
  ck.step = 1;
  ck.rng_state = pha::nn::default_rng_state();
  ck.metadata = {{"run", "seed"}};
  pha::nn::save_checkpoint((dir / "after-one-step.safetensors").string(), ck);
  pha::nn::save_safetensors((dir / "not-a-checkpoint.safetensors").string(), {{"model.weight", at::zeros({3, 2})}});
}

// The key of fuzz_token_cache.cpp.
void token_cache_seeds(const fs::path& dir) {
  fs::create_directories(dir);
  const nlohmann::json key = {{"fuzz", "token_cache"}, {"tokenizer", {{"kind", "byte"}}}};
  const data::TokenCache cache(dir);
  cache.write(dir / "width2.tok", key, {72, 105, 33, 256, 0}, 257, 4);
  cache.write(dir / "width4.tok", key, {0, 65536, 69999}, 70000, 9);
  cache.write(dir / "no-ids.tok", key, {}, 257, 0);
  cache.write(dir / "other-key.tok", {{"fuzz", "other"}}, {1, 2, 3}, 257, 3);
  const std::string good = data::read_file(dir / "width2.tok");
  pha::fuzz::write_file(dir / "truncated.tok", good.substr(0, 40));
}

void bpe_files_seeds(const fs::path& dir) {
  fs::create_directories(dir);
  const fs::path tmp = dir / "tmp";
  data::BpeTrainer trainer({/*vocab_size=*/300, /*min_frequency=*/1, {"<|endoftext|>"}});
  trainer.add_text("the cat sat on the mat; the hat is flat. It's 42, isn't it?");
  trainer.train_and_write(tmp);
  const std::string enc = data::read_file(tmp / "encoder.json"), bpe = data::read_file(tmp / "vocab.bpe");
  fs::remove_all(tmp);
  pha::fuzz::write_file(dir / "trained-300.bin", enc + '\0' + bpe);
  pha::fuzz::write_file(dir / "no-merges.bin", enc + '\0' + "#version: 0.2\n");
  pha::fuzz::write_file(dir / "bad-merge-line.bin", enc + '\0' + "#version: 0.2\nt h e\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <tests/fuzz folder>\n", argv[0]);
    return 2;
  }
  try {
    const fs::path root = argv[1];
    safetensors_seeds(root / "safetensors");
    checkpoint_seeds(root / "checkpoint");
    token_cache_seeds(root / "token_cache");
    bpe_files_seeds(root / "bpe_files");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
