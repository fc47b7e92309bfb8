// Preset table. Budgets were met by depth at fixed widths (d = 768, 12 query / 4 KV heads of
// 64, d_ff 2048, F 1536, H 256): each paper-scale preset lands within 3% of its name, which
// test_presets checks with the analytic count (and, where the model exists, the module count).
#include "model/presets.h"

#include <sstream>

#include "core/error.h"
#include "model/variants.h"

namespace pha::model {

namespace {

struct PresetDef {
  const char* name;
  const char* variant;
  int vocab, d_model, n_layers, heads, kv_heads, d_ff, gss_expanded, gss_reduced, gss_state, context;
  const char* purpose;
};

// name, variant, V, d, L, Hq, G, d_ff, F, H, N, context, purpose
const PresetDef kPresets[] = {
    {"pha-90m", "pha", kGpt2VocabSize, 768, 6, 12, 4, 2048, 1536, 256, 256, 1024, "paper scale"},
    {"pha-125m", "pha", kGpt2VocabSize, 768, 10, 12, 4, 2048, 1536, 256, 256, 1024, "paper scale"},
    {"pha-180m", "pha", kGpt2VocabSize, 768, 16, 12, 4, 2048, 1536, 256, 512, 1024, "paper scale"},
    {"sequential-90m", "sequential", kGpt2VocabSize, 768, 6, 12, 4, 2048, 1536, 256, 256, 1024,
     "parallel-vs-sequential baseline"},
    {"sequential-125m", "sequential", kGpt2VocabSize, 768, 10, 12, 4, 2048, 1536, 256, 256, 1024,
     "parallel-vs-sequential baseline"},
    {"sequential-180m", "sequential", kGpt2VocabSize, 768, 16, 12, 4, 2048, 1536, 256, 512, 1024,
     "parallel-vs-sequential baseline"},
    {"transformer-90m", "transformer", kGpt2VocabSize, 768, 9, 12, 4, 2048, 1536, 256, 256, 1024,
     "attention-only baseline"},
    {"transformer-125m", "transformer", kGpt2VocabSize, 768, 16, 12, 4, 2048, 1536, 256, 256, 1024,
     "attention-only baseline"},
    {"transformer-180m", "transformer", kGpt2VocabSize, 768, 26, 12, 4, 2048, 1536, 256, 256, 1024,
     "attention-only baseline"},
    {"gss-only-90m", "gss-only", kGpt2VocabSize, 768, 7, 12, 4, 2048, 1536, 256, 256, 1024, "GSS-only baseline"},
    {"gss-only-125m", "gss-only", kGpt2VocabSize, 768, 12, 12, 4, 2048, 1536, 256, 256, 1024, "GSS-only baseline"},
    {"gss-only-180m", "gss-only", kGpt2VocabSize, 768, 20, 12, 4, 2048, 1536, 256, 256, 1024, "GSS-only baseline"},
    // CPU scale: the widths of docs/performance-anchors (d_ff 4d, F 2d, H d/2, N 64).
    {"pha-tiny", "pha", kByteVocabSize, 128, 4, 4, 2, 512, 256, 64, 64, 512, "CPU quickstart and tests"},
    {"pha-uniform-tiny", "pha-uniform", kByteVocabSize, 128, 4, 4, 2, 512, 256, 64, 64, 512,
     "ablation: fixed mixing w = 1/3"},
    {"pha-no-gss-tiny", "pha-no-gss", kByteVocabSize, 128, 4, 4, 2, 512, 256, 64, 64, 512, "ablation: no GSS branch"},
    {"pha-no-attn-tiny", "pha-no-attn", kByteVocabSize, 128, 4, 4, 2, 512, 256, 64, 64, 512,
     "ablation: no attention branch"},
    {"pha-no-ffn-tiny", "pha-no-ffn", kByteVocabSize, 128, 4, 4, 2, 512, 256, 64, 64, 512, "ablation: no FFN branch"},
    {"transformer-tiny", "transformer", kByteVocabSize, 128, 4, 4, 2, 512, 256, 64, 64, 512,
     "attention-only baseline"},
    {"sequential-tiny", "sequential", kByteVocabSize, 128, 4, 4, 2, 512, 256, 64, 64, 512,
     "parallel-vs-sequential baseline"},
    {"gss-only-tiny", "gss-only", kByteVocabSize, 128, 4, 4, 2, 512, 256, 64, 64, 512, "GSS-only baseline"},
    {"pha-d512", "pha", kByteVocabSize, 512, 4, 8, 4, 2048, 1024, 256, 64, 512, "CPU benchmark width"},
};

const PresetDef* find(const std::string& name) {
  for (const auto& p : kPresets) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& p : kPresets) names.emplace_back(p.name);
  return names;
}

ModelConfig preset(const std::string& name) {
  const PresetDef* p = find(name);
  if (!p) {
    std::string list;
    for (const auto& n : preset_names()) list += (list.empty() ? "" : ", ") + n;
    throw Error("preset", "unknown preset \"" + name + "\"; allowed: " + list);
  }
  ModelConfig c;
  c.name = p->name;
  c.variant = p->variant;
  c.vocab_size = p->vocab;
  c.d_model = p->d_model;
  c.n_layers = p->n_layers;
  c.context = p->context;
  c.mixer = c.variant == "pha-uniform" ? MixerMode::Uniform : MixerMode::Learned;
  c.attention.heads = p->heads;
  c.attention.kv_heads = p->kv_heads;
  c.ffn.d_ff = p->d_ff;
  c.gss.expanded = p->gss_expanded;
  c.gss.reduced = p->gss_reduced;
  c.gss.state = p->gss_state;
  c.tie_embeddings = true;
  c.layers = expand_variant(c.variant, c.n_layers);
  validate_model_config(c, "preset " + name);
  return c;
}

std::string preset_description(const std::string& name) {
  const ModelConfig c = preset(name);
  const PresetDef* p = find(name);
  bool gss = false, attn = false, ffn = false;
  for (const auto& l : c.layers) {
    for (const auto& s : l.sublayers) {
      for (Branch b : s.branches) (b == Branch::Gss ? gss : b == Branch::Attention ? attn : ffn) = true;
    }
  }
  std::ostringstream os;  // only the widths of the branches the preset has
  os << c.variant << ", " << c.n_layers << " x d=" << c.d_model;
  if (attn) os << ", heads " << c.attention.heads << "/" << c.attention.kv_heads;
  if (ffn) os << ", d_ff " << c.d_ff();
  if (gss) os << ", GSS F " << c.gss_expanded() << " H " << c.gss.reduced << " N " << c.gss.state;
  os << ", V " << c.vocab_size << " (" << p->purpose << ")";
  return os.str();
}

}  // namespace pha::model
