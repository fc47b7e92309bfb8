#include "nn/internal/mixer.h"

#include <c10/util/Exception.h>

namespace pha::nn {

MixerImpl::MixerImpl(int64_t n_branches, model::MixerMode mode) : n_(n_branches), mode_(mode) {
  TORCH_CHECK(n_branches >= 2, "Mixer: needs at least two branches, got ", n_branches);
  if (mode_ == model::MixerMode::Learned) {
    p = register_parameter("p", at::zeros({n_branches}, at::kFloat));
  }
}

at::Tensor MixerImpl::weights(at::ScalarType dtype) const {
  const at::ScalarType compute = dtype == at::kDouble ? at::kDouble : at::kFloat;  // never below fp32
  if (mode_ == model::MixerMode::Uniform) return at::full({n_}, 1.0 / static_cast<double>(n_), compute);
  const at::Tensor sp = at::softplus(p.to(compute));
  return sp / sp.sum();  // (n_branches)
}

}  // namespace pha::nn
