// The hybrid lens's passes through a PhaModel (docs/lens.md): one no-grad forward with branch
// knock-outs, per-token probes and one attention head's weights (lens_types.h), and the GSS
// branches' impulse responses. Used only by runtime::Trainer (a run's checkpoint, never during
// training).
#pragma once

#include <vector>

#include <ATen/ATen.h>

#include "model/lens_types.h"
#include "nn/pha_model.h"

namespace pha::nn {

// tokens, targets (B, T) int64 on the model's device (targets: data::kIgnore where not
// counted). Throws core::Error naming the layer, branch or head that the model does not have.
model::LensPassResult lens_pass(PhaModelImpl& model, const at::Tensor& tokens, const at::Tensor& targets,
                         const model::LensPassRequest& request);

// Per layer: the impulse response of the layer's first GSS branch's DSS convolution over lags
// 0 .. T-1, (H, T) (lag 0 includes the skip D: the branch's y for z = an impulse), or an empty
// matrix (rows 0) for a layer without GSS.
std::vector<model::FloatMatrix> gss_impulse_responses(const PhaModelImpl& model, int64_t T);

}  // namespace pha::nn
