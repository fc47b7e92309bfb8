// The model form's fields as data (no Qt): what the Configuration dock's Model tab shows, in
// order (sections, keys as in docs/model-config.md, ranges, choices, what 0 means, help), and
// the model keys it leaves to the JSON pane, each with the reason. populateModelForm
// (model_fields.h) only turns this list into widgets; a unit test holds it against the engine's
// model config (every key to_json writes is a field or listed here; every choice is accepted).
#pragma once

#include <string>
#include <vector>

namespace pha::gui {

struct ModelFieldSpec {
  enum class Kind { Section, Int, Double, Bool, Choice, Text };
  Kind kind = Kind::Section;
  std::string key;                   // "attention.kv_heads"; "" for a section
  std::string label;                 // the field's label, or the section's title
  int min = 0, max = 0;              // Int
  std::string zero_text;             // Int: what 0 stands for ("auto (4 × d_model)"); "" when 0 is a plain value
  double dmin = 0, dmax = 0, step = 0;
  int decimals = 0;                  // Double
  std::vector<std::string> choices;  // Choice
  bool layer_pattern = false;        // Text: the layer list as "gss, gss, attn" (patternFromText / patternToText)
  std::string placeholder;           // Text
  std::string help;                  // what the field means (its tooltip); "" for a section
};

// The Model tab's sections and fields, in the order the user sees them.
std::vector<ModelFieldSpec> modelFieldSpecs();

// Model keys the form does not show (edited in the JSON pane), with why: {"norm_eps", "..."}.
// A key ending in ".*" stands for every key of that object ("selective.*").
std::vector<std::pair<std::string, std::string>> modelJsonOnlyKeys();

}  // namespace pha::gui
