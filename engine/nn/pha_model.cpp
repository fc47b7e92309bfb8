#include "nn/pha_model.h"

#include <cmath>
#include <limits>

#include <c10/util/Exception.h>
#include <torch/types.h>

#include "core/error.h"
#include "nn/internal/cast_linear.h"
#include "nn/internal/deepnorm_init.h"

namespace pha::nn {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

ParamRole role_of(const std::string& name) {
  if (name == "embed.weight" || name == "pos_embed.weight") return ParamRole::Embedding;
  if (ends_with(name, ".bias")) return ParamRole::Bias;
  if (ends_with(name, "mixer.p")) return ParamRole::Mixer;
  if (ends_with(name, "attn.log_scale")) return ParamRole::AttentionScale;
  // the SSM's own dynamics: DSS-EXP's kernel parameters, S6's A_log and D (no weight decay, dss_lr)
  for (const char* p : {"gss.lre", "gss.lim", "gss.cre", "gss.cim", "gss.d", "s6.A_log", "s6.D"}) {
    if (ends_with(name, p)) return ParamRole::DssKernel;
  }
  if (name.find("norm") != std::string::npos) return ParamRole::Norm;
  return ParamRole::Matrix;
}

int branch_index_of(const std::string& local_name) {  // "sub.0.gss.w_g.weight" -> 0
  if (local_name.find(".s6.") != std::string::npos) return static_cast<int>(model::Branch::Gss);  // the SSM slot
  for (int b = 0; b < model::kNumBranches; ++b) {
    const std::string tag = std::string(".") + model::branch_name(static_cast<model::Branch>(b)) + ".";
    if (local_name.find(tag) != std::string::npos) return b;
  }
  return -1;
}

}  // namespace

const char* param_role_name(ParamRole r) {
  switch (r) {
    case ParamRole::Embedding: return "embedding";
    case ParamRole::Matrix: return "matrix";
    case ParamRole::Bias: return "bias";
    case ParamRole::Norm: return "norm";
    case ParamRole::Mixer: return "mixer";
    case ParamRole::DssKernel: return "dss_kernel";
    case ParamRole::AttentionScale: return "attention_scale";
  }
  return "?";
}

PhaModelImpl::PhaModelImpl(model::ModelConfig cfg) : cfg_(std::move(cfg)) {
  if (cfg_.vocab_size < 1) throw core::Error("model.vocab_size", "must be >= 1");
  if (cfg_.d_model < 1) throw core::Error("model.d_model", "must be >= 1");
  if (cfg_.layers.empty()) throw core::Error("model.layers", "is empty: expand the variant first (apply_variant)");
  if (static_cast<int>(cfg_.layers.size()) != cfg_.n_layers) {
    throw core::Error("model.layers", "has " + std::to_string(cfg_.layers.size()) + " entries, n_layers is " +
                                    std::to_string(cfg_.n_layers));
  }
  embed = register_module("embed", torch::nn::Embedding(cfg_.vocab_size, cfg_.d_model));
  layers_ = register_module("layers", torch::nn::ModuleList());
  for (const model::LayerSpec& spec : cfg_.layers) {
    blocks_.emplace_back(cfg_, spec);
    layers_->push_back(blocks_.back());
  }
  if (cfg_.positions == "learned")
    pos_embed = register_module("pos_embed", torch::nn::Embedding(cfg_.context, cfg_.d_model));
  if (cfg_.norm == "rmsnorm") {
    final_rms = register_module("final_norm", RMSNorm(cfg_.d_model, cfg_.norm_eps));
  } else {
    // Post-norm models keep the LayerNorm eps they were built with (1e-5); pre-norm: norm_eps.
    const double eps = cfg_.pre_norm() ? cfg_.norm_eps : 1e-5;
    final_norm = register_module("final_norm",
                                 torch::nn::LayerNorm(torch::nn::LayerNormOptions({cfg_.d_model}).eps(eps)));
  }
  if (!cfg_.tie_embeddings) {
    head = register_module(
        "head", torch::nn::Linear(torch::nn::LinearOptions(cfg_.d_model, cfg_.vocab_size).bias(false)));
  }
  reset_parameters();
}

void PhaModelImpl::reset_parameters() { apply_deepnorm_init(*this); }

at::Tensor PhaModelImpl::check_tokens(const at::Tensor& tokens, int64_t dims) const {
  TORCH_CHECK(tokens.dim() == dims, "PhaModel: tokens must have ", dims, " dims, got ", tokens.sizes());
  TORCH_CHECK(tokens.scalar_type() == at::kLong || tokens.scalar_type() == at::kInt,
              "PhaModel: tokens must be int64 or int32, got ", tokens.scalar_type());
  return tokens.scalar_type() == at::kLong ? tokens : tokens.to(at::kLong);
}

at::Tensor PhaModelImpl::embed_tokens(const at::Tensor& tokens, int64_t pos0) {
  const double m = cfg_.embed_multiplier();
  at::Tensor e = m == 1.0 ? embed(tokens) : embed(tokens) * m;  // model_config.h: embed_scale
  if (pos_embed) {
    const int64_t T = tokens.size(-1);
    if (pos0 + T > cfg_.context)
      throw core::Error("model.context", "positions " + std::to_string(pos0) + ".." + std::to_string(pos0 + T - 1) +
                                       " are beyond the learned position embedding of " +
                                       std::to_string(cfg_.context) +
                                       " positions (model.positions \"learned\"); use sequences of at most " +
                                       std::to_string(cfg_.context) + " tokens or a larger model.context");
    e = e + pos_embed(at::arange(pos0, pos0 + T, tokens.options().dtype(at::kLong)));
  }
  // embed_scale "norm": RMS 1 per element, no gain (model_config.h); in the master dtype.
  if (cfg_.embed_scale == "norm") e = e * at::rsqrt(e.pow(2).mean(-1, true) + cfg_.norm_eps);
  return e;
}

at::Tensor PhaModelImpl::apply_final_norm(const at::Tensor& h) { return final_rms ? final_rms(h) : final_norm(h); }

at::Tensor PhaModelImpl::logits_from_hidden(const at::Tensor& h) {
  const at::Tensor hc = compute_ ? as_dtype(h, *compute_) : h;  // the head GEMM in the compute dtype
  const at::Tensor logits = cfg_.tie_embeddings ? at::linear(hc, as_dtype(embed->weight, hc.scalar_type()))
                                                : cast_linear(hc, head);
  return as_dtype(logits, h.scalar_type());  // (B, T, V) in the master dtype: the loss runs in fp32
}

void PhaModelImpl::set_compute_dtype(std::optional<at::ScalarType> dtype) {
  TORCH_CHECK(!dtype || *dtype == at::kBFloat16 || *dtype == at::kFloat || *dtype == at::kDouble,
              "PhaModel: compute dtype must be bf16, fp32 or fp64, got ", *dtype);
  compute_ = dtype;
  for (auto& block : blocks_) {
    for (const auto& s : block->sublayers()) s.ptr()->set_compute_dtype(dtype);
  }
}

at::Tensor PhaModelImpl::hidden(const at::Tensor& tokens) {
  at::Tensor h = embed_tokens(check_tokens(tokens, 2), 0);  // (B, T, d)
  for (auto& block : blocks_) h = block(h);
  return apply_final_norm(h);
}

at::Tensor PhaModelImpl::forward(const at::Tensor& tokens) { return logits_from_hidden(hidden(tokens)); }

DecodeState PhaModelImpl::new_state(int64_t batch, int64_t reserve_tokens) const {
  DecodeState s;
  s.batch = batch;
  for (const auto& block : blocks_) {
    s.layers.emplace_back(block->sublayers().size());
    for (auto& sub : s.layers.back()) sub.kv.reserve = reserve_tokens;
  }
  return s;
}

at::Tensor PhaModelImpl::prefill(const at::Tensor& tokens, DecodeState& state, bool last_only) {
  const at::Tensor t = check_tokens(tokens, 2);
  TORCH_CHECK(state.empty(), "PhaModel::prefill: the decode state must be empty (position ", state.position, ")");
  TORCH_CHECK(state.layers.size() == blocks_.size(), "PhaModel::prefill: state is for another model");
  TORCH_CHECK(state.batch == t.size(0), "PhaModel::prefill: state batch ", state.batch, " != ", t.size(0));
  at::Tensor h = embed_tokens(t, 0);  // (B, T, d)
  for (size_t l = 0; l < blocks_.size(); ++l) h = blocks_[l]->prefill(h, state.layers[l]);
  state.position += t.size(1);
  if (last_only) h = h.narrow(1, h.size(1) - 1, 1);
  return logits_from_hidden(apply_final_norm(h));  // (B, T, V), or (B, 1, V)
}

at::Tensor PhaModelImpl::step(const at::Tensor& tokens, DecodeState& state) {
  const at::Tensor t = check_tokens(tokens, 1);
  TORCH_CHECK(state.layers.size() == blocks_.size(), "PhaModel::step: state is for another model");
  TORCH_CHECK(state.batch == t.size(0), "PhaModel::step: state batch ", state.batch, " != ", t.size(0));
  at::Tensor h = embed_tokens(t.unsqueeze(1), state.position);  // (B, 1, d)
  for (size_t l = 0; l < blocks_.size(); ++l) h = blocks_[l]->step(h, state.layers[l]);
  state.position += 1;
  return logits_from_hidden(apply_final_norm(h)).squeeze(1);  // (B, V)
}

void PhaModelImpl::set_record_stats(bool on) {
  for (auto& block : blocks_) {
    for (const auto& s : block->sublayers()) s.ptr()->set_record_stats(on);
  }
}

model::ModelIntrospection PhaModelImpl::introspect() const {
  torch::NoGradGuard no_grad;
  model::ModelIntrospection out;
  const int L = static_cast<int>(blocks_.size());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  out.branch_names = {"gss", "attn", "ffn"};
  out.mixer_weights = {L, model::kNumBranches, std::vector<float>(static_cast<size_t>(L) * model::kNumBranches, nan)};
  out.branch_rms = {L, model::kNumBranches, std::vector<float>(static_cast<size_t>(L) * model::kNumBranches, nan)};
  for (int l = 0; l < L; ++l) {
    for (const auto& s : blocks_[l]->sublayers()) {
      if (s->mixed()) {
        const at::Tensor w = s->mixer_weights_canonical().to(at::kFloat).contiguous();
        for (int b = 0; b < model::kNumBranches; ++b) out.mixer_weights.values[l * model::kNumBranches + b] = w[b].item<float>();
      }
      for (int b = 0; b < model::kNumBranches; ++b) {
        if (s->last_rms()[b].defined()) out.branch_rms.values[l * model::kNumBranches + b] = s->last_rms()[b].item<float>();
      }
    }
    model::LayerParamCount count;
    for (const auto& p : blocks_[l]->named_parameters()) {
      const int b = branch_index_of("." + p.key());
      (b >= 0 ? count.branch[b] : count.norms_and_mixer) += p.value().numel();
      count.total += p.value().numel();
    }
    out.layer_params.push_back(count);
  }
  out.embedding_params = embed->weight.numel() + (pos_embed ? pos_embed->weight.numel() : 0);
  out.head_params = head ? head->weight.numel() : 0;
  for (const auto& p : (final_rms ? final_rms->parameters() : final_norm->parameters()))
    out.final_norm_params += p.numel();
  out.total_params = num_parameters();
  return out;
}

std::vector<ParamInfo> PhaModelImpl::parameter_info() const {
  std::vector<ParamInfo> out;
  for (const auto& p : named_parameters()) {
    ParamInfo info;
    info.name = p.key();
    info.role = role_of(info.name);
    info.shape = p.value().sizes().vec();
    info.numel = p.value().numel();
    info.weight_decay = info.role == ParamRole::Matrix || info.role == ParamRole::Embedding;
    out.push_back(std::move(info));
  }
  return out;
}

int64_t PhaModelImpl::num_parameters() const {
  int64_t n = 0;
  for (const auto& p : parameters()) n += p.numel();
  return n;
}

}  // namespace pha::nn
