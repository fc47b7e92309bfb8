// Preset table. Paper scale: budgets met by depth at fixed widths (d = 768, 12 query / 4 KV
// heads of 64, d_ff 2048, F 1536, H 256), each preset within 3% of its name. CPU scale: every
// companion within 3% of its PHA preset (pha-tiny, pha-small). How each budget was met is data
// in the table (budget, budget_by), shown by `pha model --list` and checked by test_presets.
#include "model/presets.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "core/config_reader.h"
#include "core/error.h"
#include "model/flops.h"
#include "model/variants.h"

namespace pha::model {

namespace {

struct PresetDef {
  const char* name;
  const char* variant;
  int vocab, d_model, n_layers, heads, kv_heads, d_ff, gss_expanded, gss_reduced, gss_state, context;
  const char* budget;     // the parameter count it matches: a preset name, a nominal size, or ""
  const char* budget_by;  // the dimensions scaled from the reference to meet it (or "")
  const char* purpose;
};

constexpr int V2 = kGpt2VocabSize, VB = kByteVocabSize;

// name, variant, V, d, L, Hq, G, d_ff, F, H, N, context, budget, budget_by, purpose.
// Companions (every variant at one width) match their PHA preset within 3% (test_presets):
// depth first, as at paper scale, then the FFN width d_ff (GSS F where there is no FFN) so that
// the same shape serves both CPU widths (tiny and small differ only in d and the widths x2).
const PresetDef kPresets[] = {
    {"pha-90m", "pha", V2, 768, 6, 12, 4, 2048, 1536, 256, 256, 1024, "90M", "depth", "paper scale"},
    {"pha-125m", "pha", V2, 768, 10, 12, 4, 2048, 1536, 256, 256, 1024, "125M", "depth", "paper scale"},
    {"pha-180m", "pha", V2, 768, 16, 12, 4, 2048, 1536, 256, 512, 1024, "180M", "depth, GSS N", "paper scale"},
    {"sequential-90m", "sequential", V2, 768, 6, 12, 4, 2048, 1536, 256, 256, 1024, "90M", "depth",
     "parallel-vs-sequential baseline"},
    {"sequential-125m", "sequential", V2, 768, 10, 12, 4, 2048, 1536, 256, 256, 1024, "125M", "depth",
     "parallel-vs-sequential baseline"},
    {"sequential-180m", "sequential", V2, 768, 16, 12, 4, 2048, 1536, 256, 512, 1024, "180M", "depth, GSS N",
     "parallel-vs-sequential baseline"},
    {"transformer-90m", "transformer", V2, 768, 9, 12, 4, 2048, 1536, 256, 256, 1024, "90M", "depth",
     "attention-only baseline"},
    {"transformer-125m", "transformer", V2, 768, 16, 12, 4, 2048, 1536, 256, 256, 1024, "125M", "depth",
     "attention-only baseline"},
    {"transformer-180m", "transformer", V2, 768, 26, 12, 4, 2048, 1536, 256, 256, 1024, "180M", "depth",
     "attention-only baseline"},
    {"gss-only-90m", "gss-only", V2, 768, 7, 12, 4, 2048, 1536, 256, 256, 1024, "90M", "depth", "GSS-only baseline"},
    {"gss-only-125m", "gss-only", V2, 768, 12, 12, 4, 2048, 1536, 256, 256, 1024, "125M", "depth", "GSS-only baseline"},
    {"gss-only-180m", "gss-only", V2, 768, 20, 12, 4, 2048, 1536, 256, 256, 1024, "180M", "depth", "GSS-only baseline"},
    // Standard attention-only baselines (docs/model.md, "Standard baselines"): Transformer++
    // with PHA's widths (GQA 12/4, SwiGLU d_ff 2048), GPT-2 with its own (MHA 12/12, MLP 4d).
    {"transformerpp-90m", "transformerpp", V2, 768, 8, 12, 4, 2048, 1536, 256, 256, 1024, "90M", "depth",
     "standard Transformer++ baseline"},
    {"transformerpp-125m", "transformerpp", V2, 768, 14, 12, 4, 2048, 1536, 256, 256, 1024, "125M", "depth",
     "standard Transformer++ baseline"},
    {"transformerpp-180m", "transformerpp", V2, 768, 22, 12, 4, 2048, 1536, 256, 256, 1024, "180M", "depth",
     "standard Transformer++ baseline"},
    {"gpt2-90m", "gpt2", V2, 768, 7, 12, 12, 3072, 1536, 256, 256, 1024, "90M", "depth", "standard GPT-2 baseline"},
    {"gpt2-125m", "gpt2", V2, 768, 12, 12, 12, 3072, 1536, 256, 256, 1024, "125M", "depth", "standard GPT-2 baseline"},
    {"gpt2-180m", "gpt2", V2, 768, 20, 12, 12, 3072, 1536, 256, 256, 1024, "180M", "depth", "standard GPT-2 baseline"},
    // CPU scale, d = 128 (the widths of docs/performance-anchors: d_ff 4d, F 2d, H d/2, N 64).
    {"pha-tiny", "pha", VB, 128, 4, 4, 2, 512, 256, 64, 64, 512, "", "", "CPU quickstart and tests"},
    {"pha-uniform-tiny", "pha-uniform", VB, 128, 4, 4, 2, 512, 256, 64, 64, 512, "pha-tiny", "",
     "ablation: fixed mixing w = 1/3"},
    {"pha-no-gss-tiny", "pha-no-gss", VB, 128, 6, 4, 2, 496, 256, 64, 64, 512, "pha-tiny", "depth, d_ff",
     "ablation: no GSS branch"},
    {"pha-no-attn-tiny", "pha-no-attn", VB, 128, 5, 4, 2, 464, 256, 64, 64, 512, "pha-tiny", "depth, d_ff",
     "ablation: no attention branch"},
    {"pha-no-ffn-tiny", "pha-no-ffn", VB, 128, 8, 4, 2, 512, 288, 64, 64, 512, "pha-tiny", "depth, GSS F",
     "ablation: no FFN branch"},
    {"transformer-tiny", "transformer", VB, 128, 6, 4, 2, 496, 256, 64, 64, 512, "pha-tiny", "depth, d_ff",
     "attention-only baseline"},
    {"sequential-tiny", "sequential", VB, 128, 4, 4, 2, 512, 256, 64, 64, 512, "pha-tiny", "",
     "parallel-vs-sequential baseline"},
    {"gss-only-tiny", "gss-only", VB, 128, 5, 4, 2, 464, 256, 64, 64, 512, "pha-tiny", "depth, d_ff",
     "GSS-only baseline"},
    {"transformerpp-tiny", "transformerpp", VB, 128, 6, 4, 4, 368, 256, 64, 64, 512, "pha-tiny", "depth, d_ff, KV heads",
     "standard Transformer++ baseline"},
    {"gpt2-tiny", "gpt2", VB, 128, 6, 4, 4, 512, 256, 64, 64, 512, "pha-tiny", "depth, KV heads",
     "standard GPT-2 baseline"},
    // The selective SSM (Mamba's S6) in the SSM slot, at its defaults (N 16, expand 2, conv 4,
    // dt_rank d/16): the GSS widths F, H, N below are unused (kept equal to the reference's).
    {"mamba-tiny", "mamba", VB, 128, 5, 4, 2, 416, 256, 64, 64, 512, "pha-tiny", "depth, d_ff",
     "selective-SSM (S6) baseline"},
    {"pha-s6-tiny", "pha-s6", VB, 128, 4, 4, 2, 456, 256, 64, 64, 512, "pha-tiny", "d_ff",
     "PHA with the S6 SSM branch"},
    {"sequential-s6-tiny", "sequential-s6", VB, 128, 4, 4, 2, 456, 256, 64, 64, 512, "pha-tiny", "d_ff",
     "serial hybrid with the S6 SSM"},
    // CPU scale, d = 256 (about 5M): the same shapes at twice the width, for trends over size.
    {"pha-small", "pha", VB, 256, 4, 8, 4, 1024, 512, 128, 64, 512, "", "", "second CPU width, for trends"},
    {"pha-uniform-small", "pha-uniform", VB, 256, 4, 8, 4, 1024, 512, 128, 64, 512, "pha-small", "",
     "ablation: fixed mixing w = 1/3"},
    {"pha-no-gss-small", "pha-no-gss", VB, 256, 6, 8, 4, 976, 512, 128, 64, 512, "pha-small", "depth, d_ff",
     "ablation: no GSS branch"},
    {"pha-no-attn-small", "pha-no-attn", VB, 256, 5, 8, 4, 944, 512, 128, 64, 512, "pha-small", "depth, d_ff",
     "ablation: no attention branch"},
    {"pha-no-ffn-small", "pha-no-ffn", VB, 256, 8, 8, 4, 1024, 576, 128, 64, 512, "pha-small", "depth, GSS F",
     "ablation: no FFN branch"},
    {"transformer-small", "transformer", VB, 256, 6, 8, 4, 976, 512, 128, 64, 512, "pha-small", "depth, d_ff",
     "attention-only baseline"},
    {"sequential-small", "sequential", VB, 256, 4, 8, 4, 1024, 512, 128, 64, 512, "pha-small", "",
     "parallel-vs-sequential baseline"},
    {"gss-only-small", "gss-only", VB, 256, 5, 8, 4, 944, 512, 128, 64, 512, "pha-small", "depth, d_ff",
     "GSS-only baseline"},
    {"transformerpp-small", "transformerpp", VB, 256, 6, 8, 8, 736, 512, 128, 64, 512, "pha-small",
     "depth, d_ff, KV heads", "standard Transformer++ baseline"},
    {"gpt2-small", "gpt2", VB, 256, 6, 8, 8, 1024, 512, 128, 64, 512, "pha-small", "depth, KV heads",
     "standard GPT-2 baseline"},
    {"mamba-small", "mamba", VB, 256, 5, 8, 4, 856, 512, 128, 64, 512, "pha-small", "depth, d_ff",
     "selective-SSM (S6) baseline"},
    {"pha-s6-small", "pha-s6", VB, 256, 4, 8, 4, 928, 512, 128, 64, 512, "pha-small", "d_ff",
     "PHA with the S6 SSM branch"},
    {"sequential-s6-small", "sequential-s6", VB, 256, 4, 8, 4, 928, 512, 128, 64, 512, "pha-small", "d_ff",
     "serial hybrid with the S6 SSM"},
    {"pha-d512", "pha", VB, 512, 4, 8, 4, 2048, 1024, 256, 64, 512, "", "", "CPU benchmark width"},
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
    const std::string near = core::nearest_name(name, preset_names(), /*max_edits=*/2);
    throw core::Error("preset", "unknown preset \"" + name + "\"; " + (near.empty() ? "" : "did you mean \"" + near + "\"? ") +
                              "allowed: " + list);
  }
  ModelConfig c;
  c.name = p->name;
  c.variant = p->variant;
  apply_variant_defaults(c);
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

namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) {
    const size_t b = item.find_first_not_of(' ');
    if (b != std::string::npos) out.push_back(item.substr(b));
  }
  return out;
}

int64_t nominal_of(const std::string& budget) {  // "125M" -> 125000000; 0 for a preset name
  if (budget.size() < 2 || budget.back() != 'M') return 0;
  for (size_t i = 0; i + 1 < budget.size(); ++i)
    if (budget[i] < '0' || budget[i] > '9') return 0;
  return std::stoll(budget.substr(0, budget.size() - 1)) * 1000000;
}

}  // namespace

int preset_dimension(const ModelConfig& c, const std::string& dimension) {
  if (dimension == "depth") return c.n_layers;
  if (dimension == "d_ff") return c.d_ff();
  if (dimension == "GSS F") return c.gss_expanded();
  if (dimension == "GSS N") return c.gss.state;
  if (dimension == "KV heads") return c.attention.kv_heads;
  throw core::Error("preset budget",
              "unknown dimension \"" + dimension + "\"; allowed: depth, d_ff, GSS F, GSS N, KV heads");
}

const std::vector<std::string>& preset_dimensions() {
  static const std::vector<std::string> dims = {"depth", "d_ff", "GSS F", "GSS N", "KV heads"};
  return dims;
}

PresetBudget preset_budget(const std::string& name) {
  preset(name);  // unknown names: the listing error
  const PresetDef* p = find(name);
  PresetBudget b;
  b.nominal = nominal_of(p->budget);
  if (b.nominal == 0) b.reference = p->budget;
  b.scaled = split_list(p->budget_by);
  return b;
}

std::string preset_budget_text(const std::string& name) {
  const ModelConfig c = preset(name);
  const PresetBudget b = preset_budget(name);
  if (b.reference.empty() && b.nominal == 0) {
    for (const auto& p : kPresets)  // the PHA preset a companion set is matched to
      if (name == p.budget) return "reference";
    return "-";
  }
  std::optional<ModelConfig> ref;
  if (!b.reference.empty()) ref = preset(b.reference);
  const double target = static_cast<double>(ref ? count_parameters(*ref).total : b.nominal);
  const double own = static_cast<double>(count_parameters(c).total);
  double pct = std::round(1000.0 * (own - target) / target) / 10.0;
  if (pct == 0) pct = 0;  // no "-0.0%"
  char delta[32];
  std::snprintf(delta, sizeof(delta), " %+.1f%%", pct);
  std::string by;
  for (const auto& d : b.scaled) {
    by += (by.empty() ? "" : ", ") + d + " ";
    if (ref) by += std::to_string(preset_dimension(*ref, d)) + "->";
    by += std::to_string(preset_dimension(c, d));
  }
  return std::string(find(name)->budget) + delta + (by.empty() ? ", same widths" : ": " + by);
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
  if (gss && c.selective_ssm())
    os << ", S6 Di " << c.selective_inner() << " N " << c.selective.state << " conv " << c.selective.conv << " dt_rank "
       << c.selective_dt_rank();
  else if (gss)
    os << ", GSS F " << c.gss_expanded() << " H " << c.gss.reduced << " N " << c.gss.state;
  if (c.pre_norm())
    os << ", pre-norm " << c.norm << ", " << (c.positions == "rope" ? "RoPE" : "learned positions") << ", "
       << c.attention.kind << " attention, " << (c.ffn.kind == "swiglu" ? "SwiGLU" : "GELU")
       << (c.attention.bias || c.ffn.bias ? ", biases" : ", no biases");
  os << ", V " << c.vocab_size << " (" << p->purpose << ")";
  return os.str();
}

}  // namespace pha::model
