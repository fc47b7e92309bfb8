// ModelConfig: the one description every PHA-family variant is built from (plain data, no
// torch, so the GUI may include it). A layer is a list of sub-layers; a sub-layer is a set of
// branches. A sub-layer with several branches is the PHA parallel mix (per-branch RMSNorm,
// softplus mixer); with one branch it is a plain sub-layer. Every sub-layer ends with the
// DeepNorm residual x = LayerNorm(alpha * x + f(x)).
//
//   pha          every layer: [{gss, attn, ffn}]          mixer learned
//   pha-uniform  every layer: [{gss, attn, ffn}]          mixer uniform (w = 1/3, no p)
//   pha-no-gss   every layer: [{attn, ffn}]               (likewise -no-attn, -no-ffn)
//   sequential   every layer: [{gss}, {attn}, {ffn}]
//   transformer  every layer: [{attn}, {ffn}]
//   gss-only     every layer: [{gss}, {ffn}]
//   mamba, pha-s6, sequential-s6  gss-only, pha and sequential with ssm "s6": the selective SSM
//                in the SSM slot (variant_defaults)
//   patterns     per-layer block kinds, e.g. ["gss", "gss", "attn"]
//   transformerpp  every layer: [{attn}, {ffn}], Llama-style: pre-norm RMSNorm, RoPE, softmax
//                  attention, SwiGLU, no biases (variant_defaults)
//   gpt2           every layer: [{attn}, {ffn}], GPT-2-style: pre-norm LayerNorm, learned
//                  absolute positions, softmax attention, GELU MLP, biases
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace pha::model {

enum class Branch { Gss = 0, Attention = 1, Ffn = 2 };
constexpr int kNumBranches = 3;
const char* branch_name(Branch b);  // "gss", "attn", "ffn"

// Block kinds a layer pattern names.
enum class BlockKind { Parallel, Sequential, Transformer, GssOnly };
const char* block_kind_name(BlockKind k);  // "parallel", "sequential", "attn", "gss"

struct SubLayer {
  std::vector<Branch> branches;  // in canonical order gss, attn, ffn; size >= 1
};

struct LayerSpec {
  BlockKind kind = BlockKind::Parallel;
  std::vector<SubLayer> sublayers;
};

enum class MixerMode { Learned, Uniform };

struct GssConfig {
  int expanded = 0;       // F (0: 4 * d_model)
  int reduced = 256;      // H
  int state = 512;        // N
  bool inner_norm = true; // LayerNorm before DSS
};

// The selective SSM (Mamba's S6, Gu & Dao 2023) that fills the SSM slot (Branch::Gss) of every
// layer when ModelConfig::ssm is "s6" (engine/nn/selective_ssm_branch.h; docs/model.md,
// "Selective SSM (S6)"). Di = expand * d_model channels, each with its own N-dimensional state.
struct SelectiveConfig {
  int state = 16;        // N
  int expand = 2;        // Di = expand * d_model
  int conv = 4;          // causal depthwise convolution width (1: no mixing over positions)
  int dt_rank = 0;       // R, the rank of Delta's projection; 0: ceil(d_model / 16)
  double dt_min = 1e-3;  // softplus(dt_proj.bias) starts log-uniform in [dt_min, dt_max]
  double dt_max = 0.1;
};

struct AttentionConfig {
  int heads = 8;              // H_q
  int kv_heads = 8;           // G, divides heads
  int head_dim = 0;           // 0: d_model / heads
  double rope_theta = 10000.0;
  double scale_init = 2.302585092994046;  // ln 10
  double scale_max = 4.605170185988092;   // ln 100 (clamp of the learnable log-scale)
  // "cosine": scaled cosine attention (PHA, Swin v2: unit q and k, a learnable per-head
  // log-scale); "softmax": standard dot-product attention, logits q.k / sqrt(head_dim), no
  // log-scale parameter (Transformer++, GPT-2).
  std::string kind = "cosine";
  bool bias = false;  // biases on w_qkv and w_o (GPT-2)
};

struct FfnConfig {
  int d_ff = 0;             // 0: 4 * d_model
  double aux_ratio = 0.25;  // d_aux = round(aux_ratio * d_ff); 0 removes the aux FFN
  // "gelu": down(gelu(up(x))) (the PHA Dual-FFN; GPT-2's MLP with aux_ratio 0); "swiglu":
  // down(silu(gate(x)) * up(x)) with gate and up d -> d_ff (+ d_aux) each (Llama).
  std::string kind = "gelu";
  bool bias = true;  // biases on up and down (and gate)
};

struct ModelConfig {
  std::string name = "custom";
  std::string variant = "pha";   // pha, pha-uniform, pha-no-gss, pha-no-attn, pha-no-ffn,
                                 // sequential, transformer, gss-only, transformerpp, gpt2,
                                 // mamba, pha-s6, sequential-s6, pattern
  int vocab_size = 256;
  int d_model = 128;
  int n_layers = 4;
  int context = 512;             // training context; RoPE and GSS work beyond it
  std::vector<LayerSpec> layers; // expanded per-layer structure (size n_layers)
  MixerMode mixer = MixerMode::Learned;
  GssConfig gss;
  // Which SSM fills the SSM slot (Branch::Gss, "gss" in layer lists, the mixer's first column):
  // "gss" (the GSS branch with its DSS convolution, PHA's own; the default, and what every
  // config and checkpoint saved before the key existed means) or "s6" (the selective SSM,
  // `selective` below). Written to JSON only when "s6", so GSS configs read and hash as before.
  std::string ssm = "gss";
  SelectiveConfig selective;
  AttentionConfig attention;
  FfnConfig ffn;
  double norm_eps = 1e-6;
  bool tie_embeddings = true;
  bool deepnorm = true;          // alpha = (2L)^(1/4), beta = (8L)^(-1/4); off: alpha = beta = 1
  // How the token embedding (plus learned positions) enters the first block: RMS-normalised
  // without a gain ("norm": every element at RMS 1, the scale every later post-norm block's
  // input and every normed branch output has), multiplied by sqrt(d_model) ("sqrt_d", Vaswani et
  // al. 2017, 3.4: unit-norm token vectors with the init std 1/d) or as it is ("none"). "norm" is
  // the default since step 13: with "sqrt_d" the token entered at 1/sqrt(d) of the first
  // sub-layer's normed branch output, and a stack whose first sub-layer is attention (a smooth
  // average over positions) buried it (transformer-tiny stayed at bpb 4.03; docs/model.md,
  // "Embedding scale"). Checkpoints saved before the field existed mean "none".
  std::string embed_scale = "norm";
  // Which sub-layers RMS-normalise their branch outputs before the residual: "all" (every
  // sub-layer, one branch or several: f = g * RMSNorm(branch(x)) for a single branch) or
  // "mixed" (only the parallel mixes; a single branch enters raw). Raw single branches grew to
  // RMS 5-15 within ten steps and swamped the post-LN residual, so transformer, sequential and
  // gss-only models stopped at the byte-unigram level (docs/model.md, "Branch norms").
  // Checkpoints saved before the field existed mean "mixed".
  std::string branch_norm = "all";
  // Where the residual stream is normalised. "post": x <- LayerNorm(alpha * x + f(x)) after
  // every sub-layer (DeepNorm; PHA's own). "pre": x <- x + f(Norm(x)) with one norm before each
  // sub-layer (GPT-2, Llama), the DeepNorm alpha and beta not used and the GPT-2 initialisation
  // (docs/model.md, "Norm placement").
  std::string norm_placement = "post";
  // The residual stream's norms (pre-norm's per-sub-layer norm and the final norm):
  // "layernorm" (weight and bias) or "rmsnorm" (weight only). Post-norm sub-layers keep LayerNorm.
  std::string norm = "layernorm";
  // "rope": rotary positions in the attention branch (and none elsewhere: the GSS branch
  // carries order); "learned": a learned absolute position embedding (context x d) added to the
  // token embedding, no RoPE (GPT-2); sequences longer than `context` are then refused.
  std::string positions = "rope";

  // Derived sizes.
  int gss_expanded() const { return gss.expanded > 0 ? gss.expanded : 4 * d_model; }
  bool selective_ssm() const { return ssm == "s6"; }
  int selective_inner() const { return selective.expand * d_model; }  // Di
  int selective_dt_rank() const { return selective.dt_rank > 0 ? selective.dt_rank : (d_model + 15) / 16; }
  int head_dim() const { return attention.head_dim > 0 ? attention.head_dim : d_model / attention.heads; }
  int d_ff() const { return ffn.d_ff > 0 ? ffn.d_ff : 4 * d_model; }
  int d_aux() const;
  bool pre_norm() const { return norm_placement == "pre"; }
  double deepnorm_alpha() const;  // (2L)^(1/4) with L = n_layers, or 1 (deepnorm off, or pre-norm)
  double deepnorm_beta() const;   // (8L)^(-1/4), or 1
  double embed_multiplier() const;  // sqrt(d_model) or 1 (embed_scale)
};

// JSON form, every key documented in docs/model-config.md (model_config.cpp). `path` prefixes
// the field names errors report ("model.attention.kv_heads: 3 must divide ...").
ModelConfig model_config_from_json(const nlohmann::json& j, const std::string& path = "model");
nlohmann::json to_json(const ModelConfig& config);  // layers written only when the variant
                                                    // does not determine them
// A model config read back from a checkpoint or a stored run: fields added after it was saved
// get the value that reproduces what it was trained with (embed_scale "none" when absent).
void apply_saved_model_defaults(nlohmann::json& model_json);
// Checks a config built in code (presets, GUI edits); throws core::Error naming the field.
void validate_model_config(const ModelConfig& config, const std::string& path = "model");
// Files: the config object itself, or any object with a "model" section (a project file);
// errors name the file.
ModelConfig load_model_config(const std::string& file);
void save_model_config(const std::string& file, const ModelConfig& config);

}  // namespace pha::model
