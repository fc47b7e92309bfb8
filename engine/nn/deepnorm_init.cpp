#include "nn/internal/deepnorm_init.h"

#include <algorithm>
#include <cmath>

#include <c10/util/Exception.h>
#include <torch/nn/init.h>
#include <torch/types.h>

namespace pha::nn {
namespace {

void add_slices(std::vector<InitEntry>& plan, const std::string& prefix,
                const std::vector<WeightSlice>& slices, const torch::nn::Module& branch, double beta) {
  const auto params = branch.named_parameters();
  for (const WeightSlice& s : slices) {
    const at::Tensor* w = params.find(s.param);
    TORCH_CHECK(w != nullptr, "deepnorm_init_plan: no parameter ", prefix, s.param);
    InitEntry e;
    e.name = prefix + s.name;
    e.param = prefix + s.param;
    e.row_begin = s.row_begin;
    e.row_end = s.row_end;
    e.col_begin = s.col_begin;
    e.col_end = s.col_end > 0 ? s.col_end : w->size(1);
    e.fan_out = e.row_end - e.row_begin;
    e.fan_in = e.col_end - e.col_begin;
    e.deepnorm_beta = s.deepnorm_beta;
    e.gain = s.deepnorm_beta ? beta : 1.0;
    plan.push_back(std::move(e));
  }
}

}  // namespace

bool is_residual_output(const InitEntry& e) {
  const auto ends = [&](const std::string& s) {
    return e.name.size() >= s.size() && e.name.compare(e.name.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".w_o") || ends(".main_down") || ends(".aux_down");
}

std::vector<InitEntry> deepnorm_init_plan(const PhaModelImpl& model) {
  const double beta = model.config().deepnorm_beta();
  std::vector<InitEntry> plan;
  const auto& blocks = model.blocks();
  for (size_t l = 0; l < blocks.size(); ++l) {
    const auto& subs = blocks[l]->sublayers();
    for (size_t i = 0; i < subs.size(); ++i) {
      const std::string prefix = "layers." + std::to_string(l) + ".sub." + std::to_string(i) + ".";
      const auto& s = subs[i];
      if (s->gss) add_slices(plan, prefix + "gss.", s->gss->weight_slices(), *s->gss, beta);
      if (s->s6) add_slices(plan, prefix + "s6.", s->s6->weight_slices(), *s->s6, beta);
      if (s->attn) add_slices(plan, prefix + "attn.", s->attn->weight_slices(), *s->attn, beta);
      if (s->ffn) add_slices(plan, prefix + "ffn.", s->ffn->weight_slices(), *s->ffn, beta);
    }
  }
  return plan;
}

std::vector<std::string> deepnorm_beta_weights(const PhaModelImpl& model) {
  std::vector<std::string> names;
  for (const InitEntry& e : deepnorm_init_plan(model)) {
    if (e.deepnorm_beta) names.push_back(e.name);
  }
  return names;
}

void apply_deepnorm_init(PhaModelImpl& model) {
  torch::NoGradGuard no_grad;
  const model::ModelConfig& cfg = model.config();
  // Defaults first: biases 0, norm gains 1, DSS ~ N(0, 1), log-scale ln 10, mixer p 0.
  for (auto& p : model.named_parameters()) {
    const std::string& n = p.key();
    at::Tensor& t = p.value();
    const bool is_bias = n.size() >= 5 && n.compare(n.size() - 5, 5, ".bias") == 0;
    if (is_bias || n.find("mixer.p") != std::string::npos) {
      t.zero_();
    } else if (n.find("norm") != std::string::npos) {
      t.fill_(1.0);
    } else if (n.find("attn.log_scale") != std::string::npos) {
      t.fill_(cfg.attention.scale_init);
    }
  }
  for (const auto& block : model.blocks()) {
    for (const auto& s : block->sublayers()) {
      if (s->gss) s->gss.ptr()->reset_dss_parameters();
      if (s->s6) s->s6.ptr()->reset_ssm_parameters();  // after the loop above zeroed dt_proj.bias
    }
  }
  // Embedding N(0, 1/d^2), i.e. std 1/d (docs/model.md, Initialisation), entering the first
  // block RMS-normalised (model.embed_scale "norm"; "sqrt_d": multiplied by sqrt(d)), so the
  // blocks' input does not depend on this std, while the tied head sees std 1/d. The final LayerNorm
  // output h has norm sqrt(d) and, in a single-branch model, the current token's direction
  // (cos ~1), so the tied head gives that token an excess logit of d * std * cos: ~sqrt(d) with
  // the old N(0, 1/d) (loss 10.5-15.5 instead of ln V), 0.02 d with GPT-2's N(0, 0.02) (15 at
  // d 768), at most 1 with std 1/d at every width.
  const auto params = model.named_parameters();
  if (cfg.pre_norm()) {  // GPT-2 / Transformer++ initialisation (deepnorm_init.h)
    int64_t sublayers = 0;
    for (const auto& block : model.blocks()) sublayers += static_cast<int64_t>(block->sublayers().size());
    const double residual_std = kGpt2InitStd / std::sqrt(static_cast<double>(std::max<int64_t>(1, sublayers)));
    model.embed->weight.normal_(0.0, kGpt2InitStd);
    if (model.pos_embed) model.pos_embed->weight.normal_(0.0, kGpt2InitStd);
    if (model.head) model.head->weight.normal_(0.0, kGpt2InitStd);
    for (const InitEntry& e : deepnorm_init_plan(model)) {
      at::Tensor w = params[e.param];
      w.narrow(0, e.row_begin, e.fan_out).narrow(1, e.col_begin, e.fan_in).normal_(0.0, is_residual_output(e) ? residual_std : kGpt2InitStd);
    }
    return;
  }
  model.embed->weight.normal_(0.0, 1.0 / static_cast<double>(cfg.d_model));
  if (model.head) torch::nn::init::xavier_normal_(model.head->weight);
  for (const InitEntry& e : deepnorm_init_plan(model)) {
    at::Tensor w = params[e.param];
    const double std = e.gain * std::sqrt(2.0 / static_cast<double>(e.fan_in + e.fan_out));
    w.narrow(0, e.row_begin, e.fan_out).narrow(1, e.col_begin, e.fan_in).normal_(0.0, std);
  }
}

}  // namespace pha::nn
