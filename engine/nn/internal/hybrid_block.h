// HybridBlock: one layer of the model, running its LayerSpec (a list of sublayers, each a set
// of branches) in order. Every variant is this one class with a different LayerSpec.
// Parameter names: sub.<i>.<sublayer parameter>.
#pragma once

#include <vector>

#include <ATen/ATen.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include "nn/decode_state.h"
#include "model/model_config.h"
#include "nn/internal/sublayer.h"

namespace pha::nn {

class HybridBlockImpl : public torch::nn::Module {
 public:
  HybridBlockImpl(const model::ModelConfig& cfg, const model::LayerSpec& spec);

  at::Tensor forward(const at::Tensor& x);  // (B, T, d) -> (B, T, d)
  at::Tensor prefill(const at::Tensor& x, std::vector<SublayerState>& states);
  at::Tensor step(const at::Tensor& x, std::vector<SublayerState>& states);  // (B, 1, d)

  const std::vector<Sublayer>& sublayers() const { return sublayers_; }
  model::BlockKind kind() const { return kind_; }

 private:
  torch::nn::ModuleList sub_{nullptr};
  std::vector<Sublayer> sublayers_;
  model::BlockKind kind_;
};
TORCH_MODULE(HybridBlock);

}  // namespace pha::nn
