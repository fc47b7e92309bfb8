#include "gui/config/model_field_specs.h"

#include "model/variants.h"

namespace pha::gui {

namespace {

std::vector<std::string> variants() {
  std::vector<std::string> out = model::known_variants();
  out.push_back("pattern");
  return out;
}

}  // namespace

std::vector<ModelFieldSpec> modelFieldSpecs() {
  using K = ModelFieldSpec::Kind;
  std::vector<ModelFieldSpec> out;
  const auto add = [&](K kind, const char* key, const char* label, const char* help) -> ModelFieldSpec& {
    ModelFieldSpec f;
    f.kind = kind;
    f.key = key;
    f.label = label;
    f.help = help;
    out.push_back(std::move(f));
    return out.back();
  };
  const auto section = [&](const char* title) { add(K::Section, "", title, ""); };
  const auto integer = [&](const char* key, const char* label, int min, int max, const char* zero, const char* help) {
    ModelFieldSpec& f = add(K::Int, key, label, help);
    f.min = min;
    f.max = max;
    f.zero_text = zero;
  };
  const auto decimal = [&](const char* key, const char* label, double min, double max, int decimals, double step,
                           const char* help) {
    ModelFieldSpec& f = add(K::Double, key, label, help);
    f.dmin = min;
    f.dmax = max;
    f.decimals = decimals;
    f.step = step;
  };
  const auto boolean = [&](const char* key, const char* label, const char* help) { add(K::Bool, key, label, help); };
  const auto choice = [&](const char* key, const char* label, std::vector<std::string> choices, const char* help) {
    add(K::Choice, key, label, help).choices = std::move(choices);
  };
  const auto text = [&](const char* key, const char* label, const char* help) { add(K::Text, key, label, help); };
  const auto pattern = [&](const char* key, const char* label, const char* placeholder, const char* help) {
    ModelFieldSpec& f = add(K::Text, key, label, help);
    f.layer_pattern = true;
    f.placeholder = placeholder;
  };

  section("Model");
  text("name", "Name", "A label for this model, recorded with the run");
  choice("variant", "Variant", variants(),
         "The architecture: pha = GSS, attention and FFN in parallel in every layer, mixed by "
                              "learned weights; pha-uniform = the same with a fixed equal mix; pha-no-gss / -no-attn / "
                              "-no-ffn = one branch removed; sequential = the branches one after another; transformer = "
                              "attention and FFN (PHA's post-norm block); gss-only; transformerpp = a standard "
                              "Llama-style Transformer++; gpt2 = a standard GPT-2; pattern = your own list of layer kinds");
  pattern("layers", "Layer pattern", "gss, gss, attn (variant \"pattern\")",
          "One block kind per layer: parallel, sequential, attn, gss. Editable with "
                    "variant \"pattern\"; layers with custom sublayers (kind*) are edited in the JSON.");
  integer("n_layers", "Layers", 1, 1024, "",
          "Number of layers (blocks), input side first");
  integer("d_model", "Width d_model", 1, 1 << 16, "",
          "Width of the residual stream and the embeddings");
  integer("vocab_size", "Vocabulary", 1, 1 << 24, "",
          "Token ids the embedding and the output head hold; at least the tokenizer's "
                                 "vocabulary (a project sets it from its data when left out)");
  integer("context", "Context", 1, 1 << 24, "",
          "The training context length; RoPE and GSS also run beyond it. The size and cost "
                              "figures below use it as T by default");
  section("Attention");
  integer("attention.heads", "Query heads", 1, 1024, "",
          "Query heads of the attention branch; must divide d_model when head dim is auto");
  integer("attention.kv_heads", "KV heads", 1, 1024, "",
          "Key/value heads (grouped-query attention): must divide the query heads; equal "
                                         "to them is multi-head attention, 1 is multi-query");
  integer("attention.head_dim", "Head dim", 0, 1 << 14, "auto (d_model / heads)",
          "Width of each head; 0 = d_model / heads; must be even (RoPE rotates pairs)");
  choice("attention.kind", "Attention kind", {"cosine", "softmax"},
         "cosine: PHA's scaled cosine attention with a learnable per-head scale; softmax: "
                                     "standard q·k / sqrt(head dim)");
  boolean("attention.bias", "Attention biases",
          "Biases on the attention projections (GPT-2)");
  choice("positions", "Positions", {"rope", "learned"},
         "rope: rotary positions in attention; learned: a learned position embedding of "
                                "`context` positions added to the tokens (GPT-2), longer sequences refused");
  section("GSS");
  integer("gss.expanded", "Expanded F", 0, 1 << 20, "auto (4 × d_model)",
          "F: the GSS branch's expanded (gated) width; 0 = 4 × d_model");
  integer("gss.reduced", "Reduced H", 1, 1 << 16, "",
          "H: the width the state-space (DSS) convolution runs at");
  integer("gss.state", "State N", 1, 1 << 16, "",
          "N: the state size of each diagonal state-space kernel");
  boolean("gss.inner_norm", "Inner LayerNorm",
          "A LayerNorm on v before the DSS convolution");
  section("FFN");
  integer("ffn.d_ff", "d_ff", 0, 1 << 20, "auto (4 × d_model)",
          "Hidden width of the feed-forward network; 0 = 4 × d_model");
  decimal("ffn.aux_ratio", "Aux ratio", 0.0, 1.0, 3, 0.05,
          "Width of the auxiliary FFN as a fraction of d_ff (d_aux = round(ratio × d_ff)); 0 "
                                    "removes it");
  choice("ffn.kind", "FFN kind", {"gelu", "swiglu"},
         "gelu: down(gelu(up x)); swiglu: down(silu(gate x) × value x) (Llama)");
  boolean("ffn.bias", "FFN biases",
          "Biases on the FFN's matrices");
  section("Mixing and norms");
  choice("mixer", "Mixer", {"learned", "uniform"},
         "How a layer mixes its parallel branches: learned (softplus weights of learnable logits, "
                            "starting equal) or uniform (1/branches, no parameters)");
  boolean("tie_embeddings", "Tied embeddings",
          "The output head shares the embedding matrix (fewer parameters)");
  boolean("deepnorm", "DeepNorm",
          "DeepNorm residual scaling: alpha = (2L)^(1/4), beta = (8L)^(-1/4); off: 1 and 1");
  choice("norm_placement", "Norm placement", {"post", "pre"},
         "post: LayerNorm(alpha·x + f(x)) after each sub-layer (DeepNorm, PHA); pre: "
                                     "x + f(Norm(x)) with the GPT-2 initialisation (Transformer++, GPT-2)");
  choice("norm", "Residual norm", {"layernorm", "rmsnorm"},
         "The residual stream's norms in pre-norm models and the final norm: LayerNorm or RMSNorm");
  choice("branch_norm", "Branch norms", {"all", "mixed"},
         "all: every sub-layer RMS-normalises its branch outputs, one branch or several; "
                                  "mixed: only parallel mixes (runs saved before step 13)");
  return out;
}

std::vector<std::pair<std::string, std::string>> modelJsonOnlyKeys() {
  const char* const init = "an initialisation or numerics setting of the paper's recipe, rarely changed: edited in the JSON";
  return {
      {"attention.rope_theta", init},
      {"attention.scale_init", init},
      {"attention.scale_max", init},
      {"norm_eps", init},
      {"embed_scale", init},
      {"ssm", "the SSM slot's kind (gss, or s6 for the selective SSM presets mamba, pha-s6, sequential-s6): chosen "
              "with a preset, edited in the JSON"},
      {"selective.*", "the selective SSM's settings (only with ssm s6): edited in the JSON (docs/model-config.md)"},
  };
}

}  // namespace pha::gui
