// Full training checkpoints: model weights, optimizer state, step, the default CPU generator's
// RNG state, the config JSON and free-form metadata, in one safetensors file written
// atomically (a crash leaves the previous checkpoint or the new one, never half of one).
// Tensor names and metadata keys: docs/safetensors.md.
//
//   model.<parameter or buffer name>        e.g. model.layers.0.sub.0.gss.w_uv.weight
//   optimizer.<name>                        e.g. optimizer.embed.weight.exp_avg
//   rng.cpu                                 U8, torch's default CPU generator state
//   __metadata__: pha.format, pha.step, pha.config (JSON), pha.torch_version, meta.<key>
#pragma once

#include <cstdint>
#include <string>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>
#include <torch/nn/module.h>
#include <torch/optim/adamw.h>

#include "nn/safetensors.h"

namespace pha::nn {

constexpr const char* kCheckpointFormat = "pha-checkpoint/1";

struct TrainingCheckpoint {
  TensorMap model;         // parameter and buffer names -> tensors
  TensorMap optimizer;     // optimizer state by name (adamw_state gives "<param>.exp_avg", ...)
  int64_t step = 0;
  at::Tensor rng_state;    // U8; default_rng_state(); undefined: not saved
  nlohmann::json config;   // the model config (to_json) and whatever the trainer adds
  Metadata metadata;       // free-form strings
};

void save_checkpoint(const std::string& path, const TrainingCheckpoint& checkpoint);
// Errors (not a checkpoint, wrong format version, corrupt file) name the file.
TrainingCheckpoint load_checkpoint(const std::string& path);

// Parameters and buffers of a module, detached (shared storage: save before the next step).
TensorMap module_state(const torch::nn::Module& module);
// Copies `state` into the module's parameters and buffers. Every name must match both ways
// and every shape must agree; errors name the tensor and `source` (the file).
void load_module_state(torch::nn::Module& module, const TensorMap& state, const std::string& source);

// AdamW state by parameter name: "<name>.exp_avg", "<name>.exp_avg_sq", "<name>.step" (I64
// scalar) and, with amsgrad, "<name>.max_exp_avg_sq". Parameters without state yet (before the
// first step) are left out. `module` gives the names of the optimizer's parameters.
TensorMap adamw_state(const torch::optim::AdamW& optimizer, const torch::nn::Module& module);
// Restores that state (replacing any existing one). Errors name the tensor and `source`.
void load_adamw_state(torch::optim::AdamW& optimizer, const torch::nn::Module& module, const TensorMap& state,
                      const std::string& source);

// torch's default CPU generator (torch::manual_seed, randn, dropout, ...).
at::Tensor default_rng_state();
void set_default_rng_state(const at::Tensor& state);

}  // namespace pha::nn
