// libFuzzer target: the checkpoint reader (engine/nn/checkpoint.cpp): load_checkpoint on the
// input file, then what resuming does with it: the model tensors into a small module, the
// optimizer tensors into its AdamW, the RNG state into torch's generator. Oracle: only
// core::Error on bad input; an accepted model state is what the module then holds, an accepted
// optimizer state reads back under the same names.
#include <torch/nn/modules/linear.h>
#include <torch/optim/adamw.h>

#include <cstring>
#include <set>

#include "fuzz_support.h"
#include "nn/checkpoint.h"


namespace {

// The module the seeds were written from (tests/fuzz/write_seeds.cpp): Linear(2 -> 3).
struct Target {
  torch::nn::Linear model{2, 3};
  torch::optim::AdamW optimizer{model->parameters(), torch::optim::AdamWOptions(1e-3)};
};

std::set<std::string> names_of(const pha::nn::TensorMap& m) {
  std::set<std::string> out;
  for (const auto& [name, t] : m) out.insert(name);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Target* target = new Target();  // one module for the process: fuzzing stays fast
  pha::fuzz::MemFile file(data, size);
  pha::fuzz::only_pha_errors([&] {
    const pha::nn::TrainingCheckpoint ck = pha::nn::load_checkpoint(file.path());
    pha::fuzz::only_pha_errors([&] {
      pha::nn::load_module_state(*target->model, ck.model, file.path());
      for (const auto& [name, t] : pha::nn::module_state(*target->model)) {
        // Bytes, not values: NaN != NaN, and copy_ converts the dtype exactly like .to().
        const at::Tensor held = t.contiguous(), want = ck.model.at(name).to(t.dtype()).contiguous();
        FUZZ_CHECK(std::memcmp(held.data_ptr(), want.data_ptr(), held.numel() * held.element_size()) == 0);
      }
    });
    pha::fuzz::only_pha_errors([&] {
      pha::nn::load_adamw_state(target->optimizer, *target->model, ck.optimizer, file.path());
      FUZZ_CHECK(names_of(pha::nn::adamw_state(target->optimizer, *target->model)) == names_of(ck.optimizer));
    });
    if (ck.rng_state.defined()) pha::nn::set_default_rng_state(ck.rng_state);
  });
  return 0;
}
