// The key torch's optimizers index their per-parameter state by: a string of the TensorImpl
// address in LibTorch 1.x, the address itself in 2.x. Used by the checkpoint code and by the
// fused AdamW step, which both read and write torch::optim::AdamW's state map.
#pragma once

#include <sstream>
#include <string>
#include <type_traits>

#include <ATen/ATen.h>

namespace pha::nn {

template <typename Map>
typename Map::key_type optimizer_state_key(const Map&, const at::Tensor& p) {
  using Key = typename Map::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream os;
    os << static_cast<const void*>(p.unsafeGetTensorImpl());
    return os.str();
  } else {
    return static_cast<Key>(p.unsafeGetTensorImpl());
  }
}

}  // namespace pha::nn
