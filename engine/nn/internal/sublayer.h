// Sublayer: one set of branches with its DeepNorm residual x <- LayerNorm(alpha * x + f(x)).
// Several branches (the PHA parallel mix): each branch output goes through its own RMSNorm
// (eps cfg.norm_eps), then f = sum_b w_b * RMSNorm_b(branch_b(x)) with the softplus mixer
// weights w. One branch: f = RMSNorm(branch(x)) with branch_norm "all" (the default), the raw
// branch output with "mixed" (checkpoints from before the rule; model_config.h).
// norm_placement "pre" (Transformer++, GPT-2): x <- x + f(Norm(x)) with Norm a LayerNorm or an
// RMSNorm (model.norm) and f as above.
// Parameter names: gss.* (or s6.* with ssm "s6": the SSM slot's norm keeps the name norm_gss),
// attn.*, ffn.*, norm_gss.weight, norm_attn.weight, norm_ffn.weight,
// mixer.p, post_norm.weight, post_norm.bias (post) or norm.weight (+ norm.bias) (pre).
// The branch norms, the mixer sum, the residual and the LayerNorm run as one fused op
// (kernels/mix_norm) in the master dtype; with a compute dtype set (bf16), x is cast once and
// the branches run their GEMMs in it.
#pragma once

#include <array>
#include <optional>
#include <vector>

#include <ATen/ATen.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include "nn/internal/attention_branch.h"
#include "nn/decode_state.h"
#include "nn/internal/dual_ffn.h"
#include "nn/internal/gss_branch.h"
#include "nn/internal/mixer.h"
#include "model/model_config.h"
#include "nn/internal/rms_norm.h"
#include "nn/internal/selective_ssm_branch.h"

namespace pha::nn {

// The hybrid lens's hooks into one sublayer (nn/lens_probe.h; docs/lens.md). Knock-out: a
// branch's output is replaced by zeros before its RMSNorm, so its term w_b * RMSNorm_b(y_b) is 0
// and the other branches keep their weights (not renormalised). Probe: per token, the L2 norm
// over d of each branch's weighted term w_b * RMSNorm_b(y_b) and the mean over d of its normed
// output squared, (g_b * y_b / rms(y_b))^2, both fp32 (B, T), after any knock-out.
struct SublayerLens {
  std::array<bool, model::kNumBranches> knockout{false, false, false};
  bool probe = false;
  std::array<at::Tensor, model::kNumBranches> contribution;  // (B, T), undefined for an absent branch
  std::array<at::Tensor, model::kNumBranches> normed_ms;     // (B, T)
};

class SublayerImpl : public torch::nn::Module {
 public:
  SublayerImpl(const model::ModelConfig& cfg, const model::SubLayer& spec);

  at::Tensor forward(const at::Tensor& x);                            // (B, T, d)
  at::Tensor prefill(const at::Tensor& x, SublayerState& state);     // forward + state filled
  at::Tensor step(const at::Tensor& x, SublayerState& state);        // (B, 1, d)

  const std::vector<model::Branch>& branches() const { return branches_; }
  bool has(model::Branch b) const;
  bool mixed() const { return branches_.size() > 1; }
  // Mixer weights in canonical order gss, attn, ffn (0 for an absent branch); undefined when
  // the sublayer is not mixed.
  at::Tensor mixer_weights_canonical() const;
  // RMS of each branch output in the last forward (fp32 scalars; undefined if absent / no
  // forward yet), canonical order.
  const std::array<at::Tensor, model::kNumBranches>& last_rms() const { return last_rms_; }
  void set_record_stats(bool on) { record_stats_ = on; }
  // Lens hooks for the next forward passes (nullptr: none, the default). Not owned.
  void set_lens(SublayerLens* lens) { lens_ = lens; }
  // The dtype the branches compute in (bf16 for mixed precision); nullopt: the input's own.
  void set_compute_dtype(std::optional<at::ScalarType> dtype);

  GssBranch gss{nullptr};           // the SSM slot (Branch::Gss) when ssm is "gss"
  SelectiveSsmBranch s6{nullptr};    // ... and when ssm is "s6" (parameter names s6.*)
  AttentionBranch attn{nullptr};
  DualFfn ffn{nullptr};
  std::array<RMSNorm, model::kNumBranches> norms{RMSNorm{nullptr}, RMSNorm{nullptr}, RMSNorm{nullptr}};
  Mixer mixer{nullptr};
  torch::nn::LayerNorm post_norm{nullptr};  // post-norm placement
  torch::nn::LayerNorm pre_ln{nullptr};     // pre-norm, norm "layernorm" (parameter name "norm")
  RMSNorm pre_rms{nullptr};                 // pre-norm, norm "rmsnorm" (parameter name "norm")

 private:
  enum class Mode { Forward, Prefill, Step };
  at::Tensor run(const at::Tensor& x, Mode mode, SublayerState* state);
  at::Tensor run_pre(const at::Tensor& x, Mode mode, SublayerState* state);
  at::Tensor run_branch(model::Branch b, const at::Tensor& x, Mode mode, SublayerState* state);
  void apply_lens(std::vector<at::Tensor>& ys, const at::Tensor& mix, at::ScalarType master);  // knock-outs, then the probe

  std::vector<model::Branch> branches_;
  bool normed_;
  bool pre_;     // norm_placement "pre": x + f(Norm(x)), no alpha, no post-LayerNorm  // branch outputs RMS-normalised (every mix; single branches with branch_norm "all")
  double alpha_;
  double rms_eps_;
  std::optional<at::ScalarType> compute_;
  bool record_stats_ = true;
  SublayerLens* lens_ = nullptr;
  std::array<at::Tensor, model::kNumBranches> last_rms_;
};
TORCH_MODULE(Sublayer);

}  // namespace pha::nn
