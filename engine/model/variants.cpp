// Variant and layer-pattern expansion into ModelConfig::layers.
#include "model/variants.h"

#include <algorithm>
#include <sstream>

#include "core/config_reader.h"
#include "core/error.h"

namespace pha::model {
namespace {

SubLayer sub(std::vector<Branch> b) { return SubLayer{std::move(b)}; }

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

const std::vector<std::string>& known_variants() {
  static const std::vector<std::string> names = {"pha",        "pha-uniform", "pha-no-gss",
                                                 "pha-no-attn", "pha-no-ffn", "sequential",
                                                 "transformer", "gss-only",   "transformerpp",
                                                 "gpt2",        "mamba",      "pha-s6",
                                                 "sequential-s6"};
  return names;
}

LayerSpec expand_block_kind(BlockKind kind) {
  LayerSpec spec;
  spec.kind = kind;
  switch (kind) {
    case BlockKind::Parallel:
      spec.sublayers = {sub({Branch::Gss, Branch::Attention, Branch::Ffn})};
      break;
    case BlockKind::Sequential:
      spec.sublayers = {sub({Branch::Gss}), sub({Branch::Attention}), sub({Branch::Ffn})};
      break;
    case BlockKind::Transformer:
      spec.sublayers = {sub({Branch::Attention}), sub({Branch::Ffn})};
      break;
    case BlockKind::GssOnly:
      spec.sublayers = {sub({Branch::Gss}), sub({Branch::Ffn})};
      break;
  }
  return spec;
}

BlockKind parse_block_kind(const std::string& name, const std::string& field) {
  if (name == "parallel") return BlockKind::Parallel;
  if (name == "sequential") return BlockKind::Sequential;
  if (name == "attn") return BlockKind::Transformer;
  if (name == "gss") return BlockKind::GssOnly;
  throw core::Error(field, "unknown block kind '" + name + "'; allowed: parallel, sequential, attn, gss");
}

std::vector<LayerSpec> expand_variant(const std::string& variant, int n_layers) {
  if (n_layers < 1) throw core::Error("model.n_layers", "must be >= 1, got " + std::to_string(n_layers));
  LayerSpec spec;
  if (variant == "pha" || variant == "pha-uniform" || variant == "pha-s6") {
    spec = expand_block_kind(BlockKind::Parallel);
  } else if (variant == "pha-no-gss" || variant == "pha-no-attn" || variant == "pha-no-ffn") {
    const Branch removed = variant == "pha-no-gss"    ? Branch::Gss
                           : variant == "pha-no-attn" ? Branch::Attention
                                                      : Branch::Ffn;
    spec = expand_block_kind(BlockKind::Parallel);
    auto& b = spec.sublayers[0].branches;
    b.erase(std::remove(b.begin(), b.end(), removed), b.end());
  } else if (variant == "sequential" || variant == "sequential-s6") {
    spec = expand_block_kind(BlockKind::Sequential);
  } else if (variant == "transformer" || variant == "transformerpp" || variant == "gpt2") {
    spec = expand_block_kind(BlockKind::Transformer);
  } else if (variant == "gss-only" || variant == "mamba") {
    spec = expand_block_kind(BlockKind::GssOnly);
  } else {
    std::vector<std::string> names = known_variants();
    names.push_back("pattern");
    const std::string near = core::nearest_name(variant, names, /*max_edits=*/2);
    throw core::Error("model.variant", "unknown variant '" + variant + "'; " +
                                     (near.empty() ? "" : "did you mean \"" + near + "\"? ") + "allowed: " +
                                     join_names(known_variants()) + ", pattern");
  }
  return std::vector<LayerSpec>(static_cast<size_t>(n_layers), spec);
}

std::vector<LayerSpec> expand_pattern(const std::vector<std::string>& kinds) {
  if (kinds.empty()) throw core::Error("model.layers", "a layer pattern needs at least one entry");
  std::vector<LayerSpec> layers;
  for (size_t i = 0; i < kinds.size(); ++i) {
    layers.push_back(expand_block_kind(parse_block_kind(kinds[i], "model.layers[" + std::to_string(i) + "]")));
  }
  return layers;
}

MixerMode variant_mixer(const std::string& variant) {
  return variant == "pha-uniform" ? MixerMode::Uniform : MixerMode::Learned;
}

bool selective_variant(const std::string& variant) {
  return variant == "mamba" || variant == "pha-s6" || variant == "sequential-s6";
}

void apply_variant_defaults(ModelConfig& cfg) {
  if (selective_variant(cfg.variant)) cfg.ssm = "s6";  // the selective SSM in the SSM slot
  if (cfg.variant != "transformerpp" && cfg.variant != "gpt2") return;
  const bool llama = cfg.variant == "transformerpp";
  cfg.norm_placement = "pre";
  cfg.norm = llama ? "rmsnorm" : "layernorm";
  cfg.positions = llama ? "rope" : "learned";
  cfg.attention.kind = "softmax";
  cfg.attention.bias = !llama;
  cfg.ffn.kind = llama ? "swiglu" : "gelu";
  cfg.ffn.bias = !llama;
  cfg.ffn.aux_ratio = 0.0;
  cfg.branch_norm = "mixed";  // a standard block: the branch output enters the residual as it is
  cfg.embed_scale = "none";
  cfg.deepnorm = false;
  cfg.norm_eps = llama ? 1e-6 : 1e-5;
}

void apply_variant(ModelConfig& cfg) {
  if (cfg.variant == "pattern") {
    if (cfg.layers.empty()) throw core::Error("model.layers", "variant 'pattern' needs a non-empty layer list");
    cfg.n_layers = static_cast<int>(cfg.layers.size());
    return;
  }
  cfg.layers = expand_variant(cfg.variant, cfg.n_layers);
  cfg.mixer = variant_mixer(cfg.variant);
}

ModelConfig make_variant_config(const std::string& variant, int vocab, int d, int n_layers) {
  ModelConfig cfg;
  cfg.name = variant;
  cfg.vocab_size = vocab;
  cfg.d_model = d;
  cfg.attention.heads = std::max(1, d / 32);
  cfg.attention.kv_heads = cfg.attention.heads % 2 == 0 ? cfg.attention.heads / 2 : cfg.attention.heads;
  cfg.gss.expanded = 2 * d;
  cfg.gss.reduced = std::max(1, d / 2);
  cfg.gss.state = 64;
  cfg.ffn.d_ff = 4 * d;
  if (variant.find(',') != std::string::npos) {
    std::vector<std::string> kinds;
    std::stringstream ss(variant);
    for (std::string item; std::getline(ss, item, ',');) kinds.push_back(item);
    cfg.variant = "pattern";
    cfg.layers = expand_pattern(kinds);
  } else {
    cfg.variant = variant;
    cfg.n_layers = n_layers;
    apply_variant_defaults(cfg);
  }
  apply_variant(cfg);
  return cfg;
}

}  // namespace pha::model
