#include "nn/internal/hybrid_block.h"

#include <c10/util/Exception.h>

#include "core/error.h"

namespace pha::nn {

HybridBlockImpl::HybridBlockImpl(const model::ModelConfig& cfg, const model::LayerSpec& spec) : kind_(spec.kind) {
  if (spec.sublayers.empty()) throw core::Error("model.layers", "a layer needs at least one sublayer");
  sub_ = register_module("sub", torch::nn::ModuleList());
  for (const model::SubLayer& s : spec.sublayers) {
    sublayers_.emplace_back(cfg, s);
    sub_->push_back(sublayers_.back());
  }
}

at::Tensor HybridBlockImpl::forward(const at::Tensor& x) {
  at::Tensor h = x;
  for (auto& s : sublayers_) h = s(h);
  return h;
}

at::Tensor HybridBlockImpl::prefill(const at::Tensor& x, std::vector<SublayerState>& states) {
  TORCH_CHECK(states.size() == sublayers_.size(), "HybridBlock::prefill: state has ", states.size(),
              " sublayers, block has ", sublayers_.size());
  at::Tensor h = x;
  for (size_t i = 0; i < sublayers_.size(); ++i) h = sublayers_[i]->prefill(h, states[i]);
  return h;
}

at::Tensor HybridBlockImpl::step(const at::Tensor& x, std::vector<SublayerState>& states) {
  TORCH_CHECK(states.size() == sublayers_.size(), "HybridBlock::step: state has ", states.size(),
              " sublayers, block has ", sublayers_.size());
  at::Tensor h = x;
  for (size_t i = 0; i < sublayers_.size(); ++i) h = sublayers_[i]->step(h, states[i]);
  return h;
}

}  // namespace pha::nn
