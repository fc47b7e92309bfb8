// The model section's side of the configuration editor: which form fields it has, how an edit
// of one field changes the rest of the document (variant <-> layer pattern <-> mixer), the
// values a missing key stands for, and the engine's verdict on a document.
#pragma once

#include <QString>

#include <nlohmann/json.hpp>

#include "model/model_config.h"

namespace pha::gui {

class JsonForm;

// Adds the model fields (keys as in docs/model-config.md: "d_model", "attention.kv_heads", ...).
void populateModelForm(JsonForm* form);

// `doc` with `key` set to `value` and what follows from it: choosing "pattern" writes the
// variant's layer list, leaving it removes the list; "pha-uniform" implies the uniform mixer;
// a layer pattern sets n_layers to its length.
nlohmann::json applyModelEdit(const nlohmann::json& doc, const QString& key, const nlohmann::json& value);

// The layer pattern is editable for variant "pattern" (a list of block kind names); n_layers
// then follows the pattern and is read-only.
void adjustModelForm(JsonForm* form, const nlohmann::json& doc);

// What the engine reads for keys the document leaves out (the mixer follows the variant).
nlohmann::json modelDefaults(const nlohmann::json& doc);

// "gss, gss, attn" <-> ["gss", "gss", "attn"]
nlohmann::json patternFromText(const QString& text);
QString patternToText(const nlohmann::json& layers);
// True when every layer is a block kind name (the pattern line edit can show and edit it).
bool isPlainPattern(const nlohmann::json& layers);

struct ModelCheck {
  bool ok = false;
  pha::model::ModelConfig config;  // valid only when ok
  QString message;                 // core::Error::what(): "model.attention.kv_heads: 3 must divide ..."
  QString where;                   // core::Error::where(): "model.attention.kv_heads"
};

// model_config_from_json(doc, "model"), never throwing.
ModelCheck checkModel(const nlohmann::json& doc);

}  // namespace pha::gui
