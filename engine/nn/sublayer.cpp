#include "nn/internal/sublayer.h"

#include <algorithm>

#include <c10/util/Exception.h>
#include <torch/types.h>

#include "core/error.h"
#include "mix_norm/mix_norm.h"
#include "nn/internal/cast_linear.h"

namespace pha::nn {

SublayerImpl::SublayerImpl(const model::ModelConfig& cfg, const model::SubLayer& spec)
    : branches_(spec.branches),
      normed_(spec.branches.size() > 1 || cfg.branch_norm == "all"),
      pre_(cfg.pre_norm()),
      alpha_(cfg.deepnorm_alpha()),
      rms_eps_(cfg.norm_eps) {
  if (branches_.empty()) throw core::Error("model.layers", "a sublayer needs at least one branch");
  for (size_t i = 1; i < branches_.size(); ++i) {
    if (static_cast<int>(branches_[i]) <= static_cast<int>(branches_[i - 1])) {
      throw core::Error("model.layers", "sublayer branches must be distinct, in the order gss, attn, ffn");
    }
  }
  for (model::Branch b : branches_) {
    switch (b) {
      case model::Branch::Gss:
        if (cfg.selective_ssm()) s6 = register_module("s6", SelectiveSsmBranch(cfg));
        else gss = register_module("gss", GssBranch(cfg));
        break;
      case model::Branch::Attention: attn = register_module("attn", AttentionBranch(cfg)); break;
      case model::Branch::Ffn: ffn = register_module("ffn", DualFfn(cfg)); break;
    }
    if (normed_) {
      norms[static_cast<int>(b)] = register_module(std::string("norm_") + model::branch_name(b),
                                                   RMSNorm(cfg.d_model, cfg.norm_eps));
    }
  }
  if (mixed()) mixer = register_module("mixer", Mixer(static_cast<int64_t>(branches_.size()), cfg.mixer));
  if (!pre_) {
    post_norm = register_module(
        "post_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({cfg.d_model}).eps(1e-5)));
  } else if (cfg.norm == "rmsnorm") {
    pre_rms = register_module("norm", RMSNorm(cfg.d_model, cfg.norm_eps));
  } else {
    pre_ln = register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({cfg.d_model}).eps(cfg.norm_eps)));
  }
}

bool SublayerImpl::has(model::Branch b) const {
  return std::find(branches_.begin(), branches_.end(), b) != branches_.end();
}

at::Tensor SublayerImpl::mixer_weights_canonical() const {
  if (!mixed()) return at::Tensor();
  const at::Tensor w = mixer->weights();  // (n_branches)
  at::Tensor out = at::zeros({model::kNumBranches}, w.options());
  for (size_t i = 0; i < branches_.size(); ++i) out[static_cast<int>(branches_[i])] = w[i];
  return out;
}

at::Tensor SublayerImpl::run_branch(model::Branch b, const at::Tensor& x, Mode mode, SublayerState* state) {
  switch (b) {
    case model::Branch::Gss:
      if (s6)
        return mode == Mode::Forward ? s6(x) : mode == Mode::Prefill ? s6->prefill(x, state->s6)
                                                                     : s6->step(x, state->s6);
      return mode == Mode::Forward ? gss(x) : mode == Mode::Prefill ? gss->prefill(x, state->gss)
                                                                    : gss->step(x, state->gss);
    case model::Branch::Attention:
      return mode == Mode::Forward ? attn(x) : mode == Mode::Prefill ? attn->prefill(x, state->kv)
                                                                     : attn->step(x, state->kv);
    case model::Branch::Ffn:
      return ffn(x);
  }
  TORCH_CHECK(false, "Sublayer: unknown branch");
}

void SublayerImpl::set_compute_dtype(std::optional<at::ScalarType> dtype) {
  TORCH_CHECK(!dtype || *dtype == at::kBFloat16 || *dtype == at::kFloat || *dtype == at::kDouble,
              "Sublayer: compute dtype must be bf16, fp32 or fp64, got ", *dtype);
  compute_ = dtype;
}

void SublayerImpl::apply_lens(std::vector<at::Tensor>& ys, const at::Tensor& mix, at::ScalarType master) {
  if (!lens_) return;
  for (size_t i = 0; i < ys.size(); ++i) {
    const int b = static_cast<int>(branches_[i]);
    if (lens_->knockout[b]) ys[i] = at::zeros_like(ys[i]);
    if (!lens_->probe) continue;
    torch::NoGradGuard no_grad;
    const at::Tensor y = ys[i].to(master);  // the norms run in the master dtype, as in the fused op
    const at::Tensor normed = normed_ ? norms[b](y) : y;  // g * y / rms(y): the plain form of the fused norm
    const at::Tensor term = mix.defined() ? normed * mix[static_cast<int64_t>(i)] : normed;
    lens_->contribution[b] = term.norm(2, {-1}).to(at::kFloat);   // (B, T)
    lens_->normed_ms[b] = normed.pow(2).mean({-1}).to(at::kFloat);  // (B, T)
  }
}

at::Tensor SublayerImpl::run_pre(const at::Tensor& x, Mode mode, SublayerState* state) {
  // x + f(Norm(x)): the norm in the master dtype, the branches in the compute dtype, f added
  // back in the master dtype (plain ATen: the fused kernel is the post-norm end).
  const at::Tensor h = pre_rms ? pre_rms(x) : pre_ln(x);
  const at::Tensor hc = compute_ ? as_dtype(h, *compute_) : h;
  std::vector<at::Tensor> ys;
  for (model::Branch b : branches_) ys.push_back(run_branch(b, hc, mode, state));
  at::Tensor f;
  const at::Tensor w = mixed() ? mixer->weights(x.scalar_type()) : at::Tensor();
  apply_lens(ys, w, x.scalar_type());
  for (size_t i = 0; i < ys.size(); ++i) {
    at::Tensor y = as_dtype(ys[i], x.scalar_type());
    if (normed_) y = norms[static_cast<int>(branches_[i])](y);
    if (w.defined()) y = y * w[static_cast<int64_t>(i)];
    f = f.defined() ? f + y : y;
  }
  if (record_stats_) {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < ys.size(); ++i)
      last_rms_[static_cast<int>(branches_[i])] = ys[i].to(at::kFloat).pow(2).mean().sqrt();
  }
  return x + f;
}

at::Tensor SublayerImpl::run(const at::Tensor& x, Mode mode, SublayerState* state) {
  TORCH_CHECK(x.dim() == 3, "Sublayer: x must be (B, T, d), got ", x.sizes());
  if (pre_) return run_pre(x, mode, state);
  // The branches run in the compute dtype (their GEMMs); the residual stream x stays in the
  // master dtype, and so do the norms, the mixer and the residual sum (one fused op).
  const at::Tensor xc = compute_ ? as_dtype(x, *compute_) : x;
  pha::kernels::MixNormInputs in;
  for (model::Branch b : branches_) {
    in.ys.push_back(run_branch(b, xc, mode, state));  // (B, T, d)
    if (normed_) in.gains.push_back(norms[static_cast<int>(b)]->weight);
  }
  if (mixed()) in.mix = mixer->weights(x.scalar_type());  // (n_branches) fp32 or fp64
  apply_lens(in.ys, in.mix, x.scalar_type());
  in.x = x;
  in.alpha = alpha_;
  in.ln_weight = post_norm->weight;
  in.ln_bias = post_norm->bias;
  in.rms_eps = rms_eps_;
  in.ln_eps = post_norm->options.eps();
  const pha::kernels::MixNormOut out = pha::kernels::mix_residual_norm(in);  // LayerNorm(alpha * x + f)
  if (record_stats_) {
    torch::NoGradGuard no_grad;
    const at::Tensor rms = out.ms.mean(1).sqrt().to(at::kFloat);  // (n_branches) RMS of each branch output
    for (size_t i = 0; i < branches_.size(); ++i) last_rms_[static_cast<int>(branches_[i])] = rms[static_cast<int64_t>(i)];
  }
  return out.out;
}

at::Tensor SublayerImpl::forward(const at::Tensor& x) { return run(x, Mode::Forward, nullptr); }

at::Tensor SublayerImpl::prefill(const at::Tensor& x, SublayerState& state) {
  return run(x, Mode::Prefill, &state);
}

at::Tensor SublayerImpl::step(const at::Tensor& x, SublayerState& state) {
  return run(x, Mode::Step, &state);
}

}  // namespace pha::nn
