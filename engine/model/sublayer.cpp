#include "model/sublayer.h"

#include <algorithm>

#include <c10/util/Exception.h>
#include <torch/types.h>

#include "core/error.h"

namespace pha::model {

SublayerImpl::SublayerImpl(const ModelConfig& cfg, const SubLayer& spec)
    : branches_(spec.branches), alpha_(cfg.deepnorm_alpha()) {
  if (branches_.empty()) throw Error("model.layers", "a sublayer needs at least one branch");
  for (size_t i = 1; i < branches_.size(); ++i) {
    if (static_cast<int>(branches_[i]) <= static_cast<int>(branches_[i - 1])) {
      throw Error("model.layers", "sublayer branches must be distinct, in the order gss, attn, ffn");
    }
  }
  for (Branch b : branches_) {
    switch (b) {
      case Branch::Gss: gss = register_module("gss", GssBranch(cfg)); break;
      case Branch::Attention: attn = register_module("attn", AttentionBranch(cfg)); break;
      case Branch::Ffn: ffn = register_module("ffn", DualFfn(cfg)); break;
    }
    if (mixed()) {
      norms[static_cast<int>(b)] = register_module(std::string("norm_") + branch_name(b),
                                                   RMSNorm(cfg.d_model, cfg.norm_eps));
    }
  }
  if (mixed()) mixer = register_module("mixer", Mixer(static_cast<int64_t>(branches_.size()), cfg.mixer));
  post_norm = register_module(
      "post_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({cfg.d_model}).eps(1e-5)));
}

bool SublayerImpl::has(Branch b) const {
  return std::find(branches_.begin(), branches_.end(), b) != branches_.end();
}

at::Tensor SublayerImpl::mixer_weights_canonical() const {
  if (!mixed()) return at::Tensor();
  const at::Tensor w = mixer->weights();  // (n_branches)
  at::Tensor out = at::zeros({kNumBranches}, w.options());
  for (size_t i = 0; i < branches_.size(); ++i) out[static_cast<int>(branches_[i])] = w[i];
  return out;
}

at::Tensor SublayerImpl::run_branch(Branch b, const at::Tensor& x, Mode mode, SublayerState* state) {
  switch (b) {
    case Branch::Gss:
      return mode == Mode::Forward ? gss(x) : mode == Mode::Prefill ? gss->prefill(x, state->gss)
                                                                    : gss->step(x, state->gss);
    case Branch::Attention:
      return mode == Mode::Forward ? attn(x) : mode == Mode::Prefill ? attn->prefill(x, state->kv)
                                                                     : attn->step(x, state->kv);
    case Branch::Ffn:
      return ffn(x);
  }
  TORCH_CHECK(false, "Sublayer: unknown branch");
}

at::Tensor SublayerImpl::run(const at::Tensor& x, Mode mode, SublayerState* state) {
  TORCH_CHECK(x.dim() == 3, "Sublayer: x must be (B, T, d), got ", x.sizes());
  at::Tensor f;  // (B, T, d)
  if (!mixed()) {
    const Branch b = branches_[0];
    f = run_branch(b, x, mode, state);
    if (record_stats_) {
      torch::NoGradGuard no_grad;
      last_rms_[static_cast<int>(b)] = f.detach().pow(2).mean().sqrt().to(at::kFloat);
    }
  } else {
    const at::Tensor w = mixer->weights(x.scalar_type());  // (n_branches) fp32 or fp64
    for (size_t i = 0; i < branches_.size(); ++i) {
      const Branch b = branches_[i];
      const at::Tensor y = run_branch(b, x, mode, state);       // (B, T, d)
      const at::Tensor ms = y.pow(2).mean(-1, /*keepdim=*/true);  // (B, T, 1)
      const at::Tensor term = norms[static_cast<int>(b)]->normalize(y, ms, w[i]);
      f = f.defined() ? f + term : term;
      if (record_stats_) {
        torch::NoGradGuard no_grad;
        last_rms_[static_cast<int>(b)] = ms.detach().mean().sqrt().to(at::kFloat);
      }
    }
  }
  return post_norm(at::add(f, x, alpha_));  // LayerNorm(alpha * x + f)
}

at::Tensor SublayerImpl::forward(const at::Tensor& x) { return run(x, Mode::Forward, nullptr); }

at::Tensor SublayerImpl::prefill(const at::Tensor& x, SublayerState& state) {
  return run(x, Mode::Prefill, &state);
}

at::Tensor SublayerImpl::step(const at::Tensor& x, SublayerState& state) {
  return run(x, Mode::Step, &state);
}

}  // namespace pha::model
