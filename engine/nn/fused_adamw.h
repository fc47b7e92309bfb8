// One AdamW step of a torch::optim::AdamW through the multi-tensor kernel (kernels/adamw):
// same arithmetic and the same per-parameter state objects (step, exp_avg, exp_avg_sq), so
// checkpoints written and read through the optimizer's state are unchanged. Parameters on
// other devices, or with amsgrad, take the optimizer's own step().
#pragma once

#include <torch/optim/adamw.h>

namespace pha::nn {

void fused_adamw_step(torch::optim::AdamW& optimizer);

}  // namespace pha::nn
