#include "gui/config/model_fields.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QObject>
#include <QSpinBox>
#include <algorithm>

#include "core/error.h"
#include "gui/config/json_form.h"
#include "model/variants.h"

namespace pha::gui {

using nlohmann::json;

namespace {

QStringList variantChoices() {
  QStringList out;
  for (const auto& v : pha::model::known_variants()) out << QString::fromStdString(v);
  out << QStringLiteral("pattern");
  return out;
}

// The block kind every layer of a single-kind variant has ("" for the pha-no-* ablations).
std::string variantBlockKind(const std::string& variant) {
  if (variant == "pha" || variant == "pha-uniform") return "parallel";
  if (variant == "sequential") return "sequential";
  if (variant == "transformer" || variant == "transformerpp" || variant == "gpt2") return "attn";
  if (variant == "gss-only") return "gss";
  return {};
}

std::string stringAt(const json& doc, const char* key, const std::string& fallback) {
  return doc.is_object() && doc.contains(key) && doc.at(key).is_string() ? doc.at(key).get<std::string>() : fallback;
}

int intAt(const json& doc, const char* key, int fallback) {
  return doc.is_object() && doc.contains(key) && doc.at(key).is_number_integer() ? doc.at(key).get<int>() : fallback;
}

}  // namespace

// A flat list of the model form's fields, in the order the user sees them.
void populateModelForm(JsonForm* form) {
  const QString autoWidth = QObject::tr("auto (4 × d_model)");
  form->addSection(QObject::tr("Model"));
  form->addText(QStringLiteral("name"), QObject::tr("Name"));
  form->addChoice(QStringLiteral("variant"), QObject::tr("Variant"), variantChoices());
  auto* pattern = form->addText(QStringLiteral("layers"), QObject::tr("Layer pattern"), patternFromText, patternToText);
  pattern->setPlaceholderText(QObject::tr("gss, gss, attn (variant \"pattern\")"));
  pattern->setToolTip(QObject::tr("One block kind per layer: parallel, sequential, attn, gss. Editable with "
                                  "variant \"pattern\"; layers with custom sublayers (kind*) are edited in the JSON."));
  form->addInt(QStringLiteral("n_layers"), QObject::tr("Layers"), 1, 1024);
  form->addInt(QStringLiteral("d_model"), QObject::tr("Width d_model"), 1, 1 << 16);
  form->addInt(QStringLiteral("vocab_size"), QObject::tr("Vocabulary"), 1, 1 << 24);
  form->addInt(QStringLiteral("context"), QObject::tr("Context"), 1, 1 << 24);

  form->addSection(QObject::tr("Attention"));
  form->addInt(QStringLiteral("attention.heads"), QObject::tr("Query heads"), 1, 1024);
  form->addInt(QStringLiteral("attention.kv_heads"), QObject::tr("KV heads"), 1, 1024);
  form->addInt(QStringLiteral("attention.head_dim"), QObject::tr("Head dim"), 0, 1 << 14,
               QObject::tr("auto (d_model / heads)"));
  form->addChoice(QStringLiteral("attention.kind"), QObject::tr("Attention kind"),
                  {QStringLiteral("cosine"), QStringLiteral("softmax")});
  form->addBool(QStringLiteral("attention.bias"), QObject::tr("Attention biases"));
  form->addChoice(QStringLiteral("positions"), QObject::tr("Positions"), {QStringLiteral("rope"), QStringLiteral("learned")});

  form->addSection(QObject::tr("GSS"));
  form->addInt(QStringLiteral("gss.expanded"), QObject::tr("Expanded F"), 0, 1 << 20, autoWidth);
  form->addInt(QStringLiteral("gss.reduced"), QObject::tr("Reduced H"), 1, 1 << 16);
  form->addInt(QStringLiteral("gss.state"), QObject::tr("State N"), 1, 1 << 16);
  form->addBool(QStringLiteral("gss.inner_norm"), QObject::tr("Inner LayerNorm"));

  form->addSection(QObject::tr("FFN"));
  form->addInt(QStringLiteral("ffn.d_ff"), QObject::tr("d_ff"), 0, 1 << 20, autoWidth);
  form->addDouble(QStringLiteral("ffn.aux_ratio"), QObject::tr("Aux ratio"), 0.0, 1.0, 3, 0.05);
  form->addChoice(QStringLiteral("ffn.kind"), QObject::tr("FFN kind"), {QStringLiteral("gelu"), QStringLiteral("swiglu")});
  form->addBool(QStringLiteral("ffn.bias"), QObject::tr("FFN biases"));

  form->addSection(QObject::tr("Mixing and norms"));
  form->addChoice(QStringLiteral("mixer"), QObject::tr("Mixer"), {QStringLiteral("learned"), QStringLiteral("uniform")});
  form->addBool(QStringLiteral("tie_embeddings"), QObject::tr("Tied embeddings"));
  form->addBool(QStringLiteral("deepnorm"), QObject::tr("DeepNorm"));
  form->addChoice(QStringLiteral("norm_placement"), QObject::tr("Norm placement"),
                  {QStringLiteral("post"), QStringLiteral("pre")});
  form->addChoice(QStringLiteral("norm"), QObject::tr("Residual norm"),
                  {QStringLiteral("layernorm"), QStringLiteral("rmsnorm")});
  form->addChoice(QStringLiteral("branch_norm"), QObject::tr("Branch norms"), {QStringLiteral("all"), QStringLiteral("mixed")});

  // What each field means (docs/model-config.md has the full reference).
  const std::pair<const char*, QString> help[] = {
      {"name", QObject::tr("A label for this model, recorded with the run")},
      {"variant", QObject::tr("The architecture: pha = GSS, attention and FFN in parallel in every layer, mixed by "
                              "learned weights; pha-uniform = the same with a fixed equal mix; pha-no-gss / -no-attn / "
                              "-no-ffn = one branch removed; sequential = the branches one after another; transformer = "
                              "attention and FFN (PHA's post-norm block); gss-only; transformerpp = a standard "
                              "Llama-style Transformer++; gpt2 = a standard GPT-2; pattern = your own list of layer kinds")},
      {"attention.kind", QObject::tr("cosine: PHA's scaled cosine attention with a learnable per-head scale; softmax: "
                                     "standard q·k / sqrt(head dim)")},
      {"attention.bias", QObject::tr("Biases on the attention projections (GPT-2)")},
      {"positions", QObject::tr("rope: rotary positions in attention; learned: a learned position embedding of "
                                "`context` positions added to the tokens (GPT-2), longer sequences refused")},
      {"ffn.kind", QObject::tr("gelu: down(gelu(up x)); swiglu: down(silu(gate x) × value x) (Llama)")},
      {"ffn.bias", QObject::tr("Biases on the FFN's matrices")},
      {"norm_placement", QObject::tr("post: LayerNorm(alpha·x + f(x)) after each sub-layer (DeepNorm, PHA); pre: "
                                     "x + f(Norm(x)) with the GPT-2 initialisation (Transformer++, GPT-2)")},
      {"norm", QObject::tr("The residual stream's norms in pre-norm models and the final norm: LayerNorm or RMSNorm")},
      {"branch_norm", QObject::tr("all: every sub-layer RMS-normalises its branch outputs, one branch or several; "
                                  "mixed: only parallel mixes (runs saved before step 13)")},
      {"layers", pattern->toolTip()},
      {"n_layers", QObject::tr("Number of layers (blocks), input side first")},
      {"d_model", QObject::tr("Width of the residual stream and the embeddings")},
      {"vocab_size", QObject::tr("Token ids the embedding and the output head hold; at least the tokenizer's "
                                 "vocabulary (a project sets it from its data when left out)")},
      {"context", QObject::tr("The training context length; RoPE and GSS also run beyond it. The size and cost "
                              "figures below use it as T by default")},
      {"attention.heads", QObject::tr("Query heads of the attention branch; must divide d_model when head dim is auto")},
      {"attention.kv_heads", QObject::tr("Key/value heads (grouped-query attention): must divide the query heads; equal "
                                         "to them is multi-head attention, 1 is multi-query")},
      {"attention.head_dim", QObject::tr("Width of each head; 0 = d_model / heads; must be even (RoPE rotates pairs)")},
      {"gss.expanded", QObject::tr("F: the GSS branch's expanded (gated) width; 0 = 4 × d_model")},
      {"gss.reduced", QObject::tr("H: the width the state-space (DSS) convolution runs at")},
      {"gss.state", QObject::tr("N: the state size of each diagonal state-space kernel")},
      {"gss.inner_norm", QObject::tr("A LayerNorm on v before the DSS convolution")},
      {"ffn.d_ff", QObject::tr("Hidden width of the feed-forward network; 0 = 4 × d_model")},
      {"ffn.aux_ratio", QObject::tr("Width of the auxiliary FFN as a fraction of d_ff (d_aux = round(ratio × d_ff)); 0 "
                                    "removes it")},
      {"mixer", QObject::tr("How a layer mixes its parallel branches: learned (softplus weights of learnable logits, "
                            "starting equal) or uniform (1/branches, no parameters)")},
      {"tie_embeddings", QObject::tr("The output head shares the embedding matrix (fewer parameters)")},
      {"deepnorm", QObject::tr("DeepNorm residual scaling: alpha = (2L)^(1/4), beta = (8L)^(-1/4); off: 1 and 1")},
  };
  for (const auto& [key, text] : help) form->setHelp(QString::fromLatin1(key), text);
}

json patternFromText(const QString& text) {
  json layers = json::array();
  const QStringList parts = text.split(QLatin1Char(','));
  for (int i = 0; i < parts.size(); ++i) {
    const QString kind = parts[i].trimmed();
    // A trailing comma while typing ("gss, ") is not a layer yet; an empty entry elsewhere is
    // kept so the validation names it.
    if (kind.isEmpty() && i == parts.size() - 1) continue;
    layers.push_back(kind.toStdString());
  }
  return layers;
}

QString patternToText(const json& layers) {
  if (!layers.is_array()) return {};
  QStringList kinds;
  for (const auto& l : layers) {
    if (l.is_string()) kinds << QString::fromStdString(l.get<std::string>());
    else if (l.is_object() && l.contains("kind") && l.at("kind").is_string())
      kinds << QString::fromStdString(l.at("kind").get<std::string>()) + QLatin1Char('*');
    else kinds << QStringLiteral("?");
  }
  return kinds.join(QStringLiteral(", "));
}

bool isPlainPattern(const json& layers) {
  if (!layers.is_array()) return false;
  for (const auto& l : layers) {
    if (!l.is_string()) return false;
  }
  return true;
}

json applyModelEdit(const json& doc, const QString& key, const json& value) {
  json out = doc.is_object() ? doc : json::object();
  const std::string oldVariant = stringAt(out, "variant", "pha");
  const int dot = key.indexOf(QLatin1Char('.'));
  if (dot > 0) {
    // A parent that is not an object (typed in the JSON) gives way to the form's edit.
    const std::string parent = key.left(dot).toStdString();
    if (!out.contains(parent) || !out.at(parent).is_object()) out[parent] = json::object();
  }
  out[jsonPointer(key)] = value;
  if (key == QLatin1String("variant") && value.is_string()) {
    const std::string variant = value.get<std::string>();
    if (variant == "pattern" && oldVariant != "pattern") {
      std::string kind = variantBlockKind(oldVariant);
      if (kind.empty()) kind = "parallel";
      out["layers"] = json::array();
      for (int i = 0; i < std::max(1, intAt(out, "n_layers", 4)); ++i) out["layers"].push_back(kind);
      out["n_layers"] = out["layers"].size();
    } else if (variant != "pattern") {
      out.erase("layers");
    }
    if (variant == "pha-uniform") out["mixer"] = "uniform";
    else if (oldVariant == "pha-uniform") out["mixer"] = "learned";
  } else if (key == QLatin1String("layers") && value.is_array()) {
    out["n_layers"] = value.size();
  }
  return out;
}

void adjustModelForm(JsonForm* form, const json& doc) {
  const bool pattern = stringAt(doc, "variant", "pha") == "pattern";
  const bool plain = !doc.contains("layers") || isPlainPattern(doc.at("layers"));
  form->setFieldEnabled(QStringLiteral("layers"), pattern && plain);
  form->setFieldEnabled(QStringLiteral("n_layers"), !pattern);
}

json modelDefaults(const json& doc) {
  pha::model::ModelConfig defaults;
  defaults.layers = pha::model::expand_variant(defaults.variant, defaults.n_layers);
  json out = pha::model::to_json(defaults);
  const std::string variant = stringAt(doc, "variant", defaults.variant);
  out["mixer"] = variant == "pha-uniform" ? "uniform" : "learned";
  // Show the layer list a single-kind variant implies (greyed out; "pattern" makes it editable).
  const std::string kind = variantBlockKind(variant);
  out["layers"] = json::array();
  if (!kind.empty()) {
    for (int i = 0; i < std::clamp(intAt(doc, "n_layers", defaults.n_layers), 1, 1024); ++i) out["layers"].push_back(kind);
  }
  return out;
}

ModelCheck checkModel(const json& doc) {
  ModelCheck check;
  try {
    check.config = pha::model::model_config_from_json(doc, "model");
    check.ok = true;
  } catch (const core::Error& e) {
    check.message = QString::fromStdString(e.what());
    check.where = QString::fromStdString(e.where());
  } catch (const std::exception& e) {
    check.message = QString::fromStdString(e.what());
  }
  return check;
}

}  // namespace pha::gui
