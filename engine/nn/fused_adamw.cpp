// fused_adamw_step (fused_adamw.h): gathers each group's parameters with their state (created
// as torch::optim::AdamW creates it) and runs one multi-tensor update per group.
#include "nn/fused_adamw.h"

#include <torch/types.h>

#include "adamw/adamw.h"
#include "nn/internal/optimizer_state_key.h"

namespace pha::nn {

void fused_adamw_step(torch::optim::AdamW& optimizer) {
  bool own_step = false;
  for (const auto& group : optimizer.param_groups()) {
    const auto& o = static_cast<const torch::optim::AdamWOptions&>(group.options());
    own_step = own_step || o.amsgrad();
    for (const auto& p : group.params()) own_step = own_step || !p.device().is_cpu();
  }
  if (own_step) {
    optimizer.step();
    return;
  }
  torch::NoGradGuard no_grad;
  auto& states = optimizer.state();
  for (auto& group : optimizer.param_groups()) {
    const auto& o = static_cast<const torch::optim::AdamWOptions&>(group.options());
    std::vector<pha::kernels::AdamWTensors> tensors;
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& slot = states[optimizer_state_key(states, p)];
      if (!slot) {
        auto s = std::make_unique<torch::optim::AdamWParamState>();
        s->step(0);
        s->exp_avg(at::zeros_like(p, at::MemoryFormat::Preserve));
        s->exp_avg_sq(at::zeros_like(p, at::MemoryFormat::Preserve));
        slot = std::move(s);
      }
      auto& s = static_cast<torch::optim::AdamWParamState&>(*slot);
      s.step(s.step() + 1);
      tensors.push_back({p, p.grad(), s.exp_avg(), s.exp_avg_sq(), s.step()});
    }
    pha::kernels::AdamWHyper h;
    h.lr = o.lr();
    h.beta1 = std::get<0>(o.betas());
    h.beta2 = std::get<1>(o.betas());
    h.eps = o.eps();
    h.weight_decay = o.weight_decay();
    pha::kernels::adamw_step(tensors, h);
  }
}

}  // namespace pha::nn
