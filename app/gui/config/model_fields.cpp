#include "gui/config/model_fields.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QObject>
#include <QSpinBox>
#include <algorithm>

#include "core/error.h"
#include "gui/config/json_form.h"
#include "gui/config/model_field_specs.h"
#include "model/variants.h"

namespace pha::gui {

using nlohmann::json;

namespace {

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

// The fields of modelFieldSpecs() (model_field_specs.h) as widgets, in its order.
void populateModelForm(JsonForm* form) {
  using K = ModelFieldSpec::Kind;
  const auto q = [](const std::string& s) { return QString::fromStdString(s); };
  for (const ModelFieldSpec& f : modelFieldSpecs()) {
    const QString key = q(f.key);
    switch (f.kind) {
      case K::Section: form->addSection(q(f.label)); continue;
      case K::Int: form->addInt(key, q(f.label), f.min, f.max, q(f.zero_text)); break;
      case K::Double: form->addDouble(key, q(f.label), f.dmin, f.dmax, f.decimals, f.step); break;
      case K::Bool: form->addBool(key, q(f.label)); break;
      case K::Choice: {
        QStringList choices;
        for (const auto& c : f.choices) choices << q(c);
        form->addChoice(key, q(f.label), choices);
        break;
      }
      case K::Text: {
        QLineEdit* edit = f.layer_pattern ? form->addText(key, q(f.label), patternFromText, patternToText)
                                          : form->addText(key, q(f.label));
        edit->setPlaceholderText(q(f.placeholder));
        break;
      }
    }
    form->setHelp(key, q(f.help));
  }
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
