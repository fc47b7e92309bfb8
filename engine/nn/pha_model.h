// PhaModel: the one model of the PHA family. Token embedding -> cfg.layers (one HybridBlock
// per LayerSpec) -> final LayerNorm -> LM head (tied to the embedding unless
// cfg.tie_embeddings is false). No positional embedding (RoPE and the SSM carry position)
// unless positions is "learned" (GPT-2): pos_embed.weight (context, d) added to the tokens'.
// The final norm is an RMSNorm for norm "rmsnorm".
// Built from a ModelConfig whose `layers` is filled (variants.h: apply_variant).
// Mixed precision: set_compute_dtype(bf16) runs the weight GEMMs (and the elementwise work
// between them) in bf16 against fp32 master weights; the residual stream, norms, mixer, DSS
// convolution, attention core and the logits that leave the model stay fp32 (docs/model.md).
//
// Parameter names (named_parameters(), the safetensors names):
//   embed.weight (V, d); layers.<l>.sub.<s>.<sublayer parameter> (see sublayer.h and the
//   branch headers); final_norm.weight, final_norm.bias; head.weight (V, d) when untied.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include "nn/decode_state.h"
#include "nn/internal/hybrid_block.h"
#include "model/model_config.h"
#include "model/model_introspection.h"
#include "nn/internal/rms_norm.h"

namespace pha::nn {

// What a parameter is, for optimizer groups: weight decay applies to Matrix and Embedding only
// (spec §7: none for norms, biases, mixer p, DSS kernel parameters; the attention log-scale is a
// per-head scalar like p and gets none either). DssKernel parameters train with lr 1e-3.
enum class ParamRole { Embedding, Matrix, Bias, Norm, Mixer, DssKernel, AttentionScale };
const char* param_role_name(ParamRole r);

struct ParamInfo {
  std::string name;
  ParamRole role;
  std::vector<int64_t> shape;
  int64_t numel = 0;
  bool weight_decay = false;
};

class PhaModelImpl : public torch::nn::Module {
 public:
  explicit PhaModelImpl(model::ModelConfig cfg);

  // tokens (B, T) int64 in [0, V) -> logits (B, T, V), in the parameters' dtype
  at::Tensor forward(const at::Tensor& tokens);
  // tokens (B, T) -> final hidden states after the final LayerNorm (B, T, d)
  at::Tensor hidden(const at::Tensor& tokens);
  // embedding x embed_multiplier(), plus the learned positions pos0 .. pos0 + T - 1 (positions
  // "learned"; beyond model.context: core::Error)
  at::Tensor embed_tokens(const at::Tensor& tokens, int64_t pos0);
  at::Tensor apply_final_norm(const at::Tensor& h);
  at::Tensor logits_from_hidden(const at::Tensor& h);  // (B, T, d) -> (B, T, V)

  // Incremental decoding. new_state(B) gives an empty state; prefill(tokens (B, T), state) runs
  // the prompt and returns its logits (B, T, V); step(tokens (B), state) feeds one token per
  // sequence and returns the next-token logits (B, V). prefill needs an empty state; step works
  // on an empty one too (token by token from the start).
  // reserve_tokens > 0: every KV cache is allocated once for that many tokens (the prompt plus
  // what will be generated), at exactly model::decode_memory's size.
  DecodeState new_state(int64_t batch, int64_t reserve_tokens = 0) const;
  // last_only: only the last position's logits (B, 1, V), what generation needs.
  at::Tensor prefill(const at::Tensor& tokens, DecodeState& state, bool last_only = false);
  at::Tensor step(const at::Tensor& tokens, DecodeState& state);

  model::ModelIntrospection introspect() const;
  std::vector<ParamInfo> parameter_info() const;
  int64_t num_parameters() const;
  void set_record_stats(bool on);
  // The dtype the branches and the head compute in: kBFloat16 for mixed precision, nullopt
  // (default) for the parameters' own dtype.
  void set_compute_dtype(std::optional<at::ScalarType> dtype);

  // Re-initialises every parameter (DeepNorm init, see deepnorm_init.h); the constructor calls it.
  void reset_parameters();

  const model::ModelConfig& config() const { return cfg_; }
  const std::vector<HybridBlock>& blocks() const { return blocks_; }

  torch::nn::Embedding embed{nullptr};
  torch::nn::LayerNorm final_norm{nullptr};  // norm "layernorm"
  RMSNorm final_rms{nullptr};                // norm "rmsnorm" (also named "final_norm")
  torch::nn::Embedding pos_embed{nullptr};   // positions "learned": (context, d)
  torch::nn::Linear head{nullptr};  // only when not tied

 private:
  at::Tensor check_tokens(const at::Tensor& tokens, int64_t dims) const;

  model::ModelConfig cfg_;
  std::optional<at::ScalarType> compute_;
  torch::nn::ModuleList layers_{nullptr};
  std::vector<HybridBlock> blocks_;
};
TORCH_MODULE(PhaModel);

}  // namespace pha::nn
