// The Model tab's fields as data (gui/config/model_field_specs.h) held against the engine's model
// config: a key the engine writes that the form neither shows nor leaves to the JSON with a reason,
// a field for a key the engine no longer has, or a choice the engine refuses, fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "gui/config/model_field_specs.h"
#include "gui/config/model_fields.h"
#include "model/model_config.h"
#include "model/presets.h"
#include "model/variants.h"

using nlohmann::json;
using pha::gui::ModelFieldSpec;

namespace {

// "attention.heads" for every leaf of a model config's JSON (one level of objects, as the form).
void flatten(const json& j, const std::string& prefix, std::set<std::string>& out) {
  for (const auto& [k, v] : j.items()) {
    if (v.is_object()) flatten(v, prefix + k + ".", out);
    else out.insert(prefix + k);
  }
}

std::set<std::string> engineKeys() {
  std::set<std::string> keys;
  for (const std::string& name : pha::model::preset_names()) flatten(pha::model::to_json(pha::model::preset(name)), "", keys);
  json pattern = pha::model::to_json(pha::model::preset("pha-tiny"));
  pattern["variant"] = "pattern";
  pattern["layers"] = {"gss", "attn"};
  pattern["n_layers"] = 2;
  flatten(pha::model::to_json(pha::model::model_config_from_json(pattern)), "", keys);
  return keys;
}

bool leftToJson(const std::string& key) {
  for (const auto& [k, why] : pha::gui::modelJsonOnlyKeys()) {
    if (why.empty()) continue;
    if (k == key) return true;
    if (k.size() > 2 && k.compare(k.size() - 2, 2, ".*") == 0 && key.rfind(k.substr(0, k.size() - 1), 0) == 0) return true;
  }
  return false;
}

std::string pointer(const std::string& key) {
  std::string p = "/" + key;
  for (char& c : p)
    if (c == '.') c = '/';
  return p;
}

}  // namespace

TEST(ModelFieldSpecs, EveryKeyTheEngineWritesIsAFieldOrLeftToTheJsonWithAReason) {
  std::set<std::string> fields;
  for (const ModelFieldSpec& f : pha::gui::modelFieldSpecs())
    if (f.kind != ModelFieldSpec::Kind::Section) { EXPECT_TRUE(fields.insert(f.key).second) << "twice: " << f.key; }
  const std::set<std::string> keys = engineKeys();
  for (const std::string& k : keys) EXPECT_TRUE(fields.count(k) || leftToJson(k)) << k << ": neither a field nor listed";
  for (const std::string& f : fields) EXPECT_TRUE(keys.count(f)) << f << ": a field for a key no preset writes";
  for (const auto& [k, why] : pha::gui::modelJsonOnlyKeys()) EXPECT_FALSE(fields.count(k)) << k << " is both";
}

TEST(ModelFieldSpecs, EveryChoiceIsAcceptedAndEveryPresetsValueFitsItsField) {
  const json base = pha::model::to_json(pha::model::preset("pha-tiny"));
  int choices = 0;
  for (const ModelFieldSpec& f : pha::gui::modelFieldSpecs()) {
    if (f.kind == ModelFieldSpec::Kind::Section) continue;
    EXPECT_FALSE(f.label.empty()) << f.key;
    EXPECT_FALSE(f.help.empty()) << f.key << " has no help";
    if (f.kind == ModelFieldSpec::Kind::Choice) {
      ASSERT_FALSE(f.choices.empty()) << f.key;
      for (const std::string& c : f.choices) {
        // As the form edits it: with what follows from the choice (applyModelEdit: "pattern"
        // writes the layer list, "pha-uniform" the uniform mixer).
        const json doc = pha::gui::applyModelEdit(base, QString::fromStdString(f.key), c);
        EXPECT_NO_THROW(pha::model::model_config_from_json(doc)) << f.key << " = " << c;
        ++choices;
      }
      json bad = base;
      bad[json::json_pointer(pointer(f.key))] = "no-such-choice";
      try {
        pha::model::model_config_from_json(bad);
        ADD_FAILURE() << f.key << " accepts a value the form does not offer";
      } catch (const pha::core::Error& e) {
        EXPECT_NE(e.where().find(f.key.substr(f.key.rfind('.') + 1)), std::string::npos) << e.what();
      }
    }
    for (const std::string& name : pha::model::preset_names()) {
      const json v = pha::model::to_json(pha::model::preset(name)).value(json::json_pointer(pointer(f.key)), json());
      if (f.kind == ModelFieldSpec::Kind::Int && v.is_number_integer()) {
        EXPECT_GE(v.get<int>(), f.min) << name << ": " << f.key;
        EXPECT_LE(v.get<int>(), f.max) << name << ": " << f.key;
      }
      if (f.kind == ModelFieldSpec::Kind::Double && v.is_number()) {
        EXPECT_GE(v.get<double>(), f.dmin) << name << ": " << f.key;
        EXPECT_LE(v.get<double>(), f.dmax) << name << ": " << f.key;
      }
      if (f.kind == ModelFieldSpec::Kind::Choice && v.is_string()) {
        EXPECT_NE(std::find(f.choices.begin(), f.choices.end(), v.get<std::string>()), f.choices.end())
            << name << ": " << f.key << " = " << v;
      }
    }
  }
  EXPECT_GE(choices, static_cast<int>(pha::model::known_variants().size()) + 1);
}
