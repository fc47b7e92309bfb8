// Variant expansion: turns a variant name or a per-layer pattern into the per-layer structure
// ModelConfig::layers (plain data, no torch). The JSON loader and the presets call these; the
// model builder only reads cfg.layers.
//
//   pha, pha-uniform           [{gss, attn, ffn}]        (pha-uniform also sets MixerMode::Uniform)
//   pha-no-gss|-no-attn|-no-ffn the parallel block without that branch
//   sequential                 [{gss}, {attn}, {ffn}]
//   transformer                [{attn}, {ffn}]
//   transformerpp, gpt2        [{attn}, {ffn}] with their own settings (apply_variant_defaults)
//   gss-only                   [{gss}, {ffn}]
//   mamba, pha-s6, sequential-s6 the layers of gss-only, pha and sequential with ssm "s6" (the
//                              selective SSM fills the SSM slot; apply_variant_defaults)
//   pattern kinds              "parallel" | "sequential" | "attn" | "gss" per layer
#pragma once

#include <string>
#include <vector>

#include "model/model_config.h"

namespace pha::model {

// Names accepted by expand_variant (every variant but "pattern").
const std::vector<std::string>& known_variants();

// The layer structure of one block kind (Parallel: all three branches).
LayerSpec expand_block_kind(BlockKind kind);

// BlockKind from a pattern entry ("parallel", "sequential", "attn", "gss"); throws core::Error
// naming `field` and the allowed names otherwise.
BlockKind parse_block_kind(const std::string& name, const std::string& field = "model.layers");

// n_layers copies of the variant's layer; throws core::Error(field "model.variant") for an
// unknown name or n_layers < 1.
std::vector<LayerSpec> expand_variant(const std::string& variant, int n_layers);

// One layer per entry of `kinds`.
std::vector<LayerSpec> expand_pattern(const std::vector<std::string>& kinds);

// Mixer mode a variant implies (Uniform for pha-uniform, else Learned).
MixerMode variant_mixer(const std::string& variant);

// The settings a variant implies beyond its layers: transformerpp (pre-norm RMSNorm, RoPE,
// softmax attention, SwiGLU with d_aux 0, no biases) and gpt2 (pre-norm LayerNorm, learned
// absolute positions, softmax attention with biases, GELU MLP with d_aux 0), both with
// branch_norm "mixed", embed_scale "none" and deepnorm off; mamba, pha-s6 and sequential-s6:
// ssm "s6" (selective_variant). Other variants: unchanged. The JSON
// loader applies it right after reading `variant`, so explicit keys override it.
void apply_variant_defaults(ModelConfig& cfg);

// True for the variants whose SSM is the selective one (mamba, pha-s6, sequential-s6).
bool selective_variant(const std::string& variant);

// Sets cfg.layers (and cfg.mixer) from cfg.variant and cfg.n_layers. For variant "pattern"
// cfg.layers must already be filled (kept, n_layers set to its size).
void apply_variant(ModelConfig& cfg);

// A complete small config for tests and benches: widths from d (heads = max(1, d/32) query
// heads, kv_heads = heads/2 when even, F = 2d, H = d/2, N = 64, d_ff = 4d), variant expanded.
// `variant` may also be a comma-separated pattern, e.g. "gss,gss,attn" (then L = its length).
ModelConfig make_variant_config(const std::string& variant, int vocab, int d, int n_layers);

}  // namespace pha::model
