// ModelConfig JSON: exact round trip, and each class of validation error names the full field
// path and what is allowed.
#include "model/model_config.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "model/presets.h"
#include "model/variants.h"

using nlohmann::json;
using namespace pha::model;

namespace {

// The error's full message, or "" when no core::Error was thrown.
std::string error_of(const json& j) {
  try {
    model_config_from_json(j);
  } catch (const pha::core::Error& e) {
    return e.what();
  }
  return "";
}

std::string where_of(const json& j) {
  try {
    model_config_from_json(j);
  } catch (const pha::core::Error& e) {
    return e.where();
  }
  return "";
}

json base() { return to_json(preset("pha-tiny")); }

void expect_same(const ModelConfig& a, const ModelConfig& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.variant, b.variant);
  EXPECT_EQ(a.vocab_size, b.vocab_size);
  EXPECT_EQ(a.d_model, b.d_model);
  EXPECT_EQ(a.n_layers, b.n_layers);
  EXPECT_EQ(a.context, b.context);
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) {
    EXPECT_EQ(a.layers[i].kind, b.layers[i].kind) << "layer " << i;
    ASSERT_EQ(a.layers[i].sublayers.size(), b.layers[i].sublayers.size()) << "layer " << i;
    for (size_t s = 0; s < a.layers[i].sublayers.size(); ++s) {
      EXPECT_EQ(a.layers[i].sublayers[s].branches, b.layers[i].sublayers[s].branches);
    }
  }
  EXPECT_EQ(a.mixer, b.mixer);
  EXPECT_EQ(a.gss.expanded, b.gss.expanded);
  EXPECT_EQ(a.gss.reduced, b.gss.reduced);
  EXPECT_EQ(a.gss.state, b.gss.state);
  EXPECT_EQ(a.gss.inner_norm, b.gss.inner_norm);
  EXPECT_EQ(a.attention.heads, b.attention.heads);
  EXPECT_EQ(a.attention.kv_heads, b.attention.kv_heads);
  EXPECT_EQ(a.attention.head_dim, b.attention.head_dim);
  EXPECT_EQ(a.attention.rope_theta, b.attention.rope_theta);  // exact: doubles round-trip
  EXPECT_EQ(a.attention.scale_init, b.attention.scale_init);
  EXPECT_EQ(a.attention.scale_max, b.attention.scale_max);
  EXPECT_EQ(a.ffn.d_ff, b.ffn.d_ff);
  EXPECT_EQ(a.ffn.aux_ratio, b.ffn.aux_ratio);
  EXPECT_EQ(a.norm_eps, b.norm_eps);
  EXPECT_EQ(a.tie_embeddings, b.tie_embeddings);
  EXPECT_EQ(a.deepnorm, b.deepnorm);
}

}  // namespace

TEST(ConfigJson, RoundTripIsExactForEveryPreset) {
  for (const auto& name : preset_names()) {
    SCOPED_TRACE(name);
    ModelConfig a = preset(name);
    json j = to_json(a);
    ModelConfig b = model_config_from_json(json::parse(j.dump()));  // through text
    expect_same(a, b);
    EXPECT_EQ(to_json(b), j);
  }
}

TEST(ConfigJson, RoundTripKeepsAwkwardDoublesAndACustomPattern) {
  ModelConfig a = preset("pha-tiny");
  a.variant = "pattern";
  a.n_layers = 3;
  a.layers = expand_pattern({"gss", "gss", "attn"});
  a.layers[1] = LayerSpec{BlockKind::Parallel, {SubLayer{{Branch::Gss, Branch::Ffn}}}};
  a.attention.rope_theta = 500000.123456789;
  a.ffn.aux_ratio = 0.1;  // not representable exactly in binary
  a.norm_eps = 1.0 / 3.0 * 1e-5;
  a.attention.scale_init = 0.7;
  a.tie_embeddings = false;
  a.deepnorm = false;
  a.gss.inner_norm = false;
  json j = to_json(a);
  ASSERT_TRUE(j.contains("layers"));
  EXPECT_EQ(j["layers"][0], "gss");
  EXPECT_EQ(j["layers"][1]["kind"], "parallel");
  EXPECT_EQ(j["layers"][1]["sublayers"], json::parse(R"([["gss","ffn"]])"));
  ModelConfig b = model_config_from_json(json::parse(j.dump(2)));
  expect_same(a, b);
}

TEST(ConfigJson, VariantLayersAreOmittedAndExpanded) {
  json j = to_json(preset("transformer-tiny"));
  EXPECT_FALSE(j.contains("layers"));
  ModelConfig c = model_config_from_json(j);
  ASSERT_EQ(c.layers.size(), 6u);  // transformer-tiny: 6 layers (pha-tiny's budget, presets.cpp)
  EXPECT_EQ(c.layers[0].kind, BlockKind::Transformer);
  EXPECT_EQ(c.layers[5].sublayers.size(), 2u);
}

TEST(ConfigJson, MinimalObjectTakesDefaults) {
  ModelConfig c = model_config_from_json(json::object());
  ModelConfig d;
  EXPECT_EQ(c.d_model, d.d_model);
  EXPECT_EQ(c.variant, "pha");
  EXPECT_EQ(static_cast<int>(c.layers.size()), d.n_layers);
  EXPECT_EQ(c.mixer, MixerMode::Learned);
  EXPECT_EQ(model_config_from_json(json{{"variant", "pha-uniform"}}).mixer, MixerMode::Uniform);
}

TEST(ConfigJson, UnknownKeySuggestsTheNearest) {
  json j = base();
  j["attention"]["kv_head"] = 2;
  EXPECT_EQ(error_of(j), "model.attention.kv_head: unknown key; did you mean \"kv_heads\"?");
  json k = base();
  k["d_modle"] = 64;
  EXPECT_EQ(error_of(k), "model.d_modle: unknown key; did you mean \"d_model\"?");
  json far = base();
  far["ffn"]["zzzzzzzzzz"] = 1;
  std::string e = error_of(far);
  EXPECT_EQ(where_of(far), "model.ffn.zzzzzzzzzz");
  EXPECT_NE(e.find("allowed keys: \"d_ff\", \"aux_ratio\""), std::string::npos) << e;
}

TEST(ConfigJson, WrongTypesNameFieldAndExpectedType) {
  json j = base();
  j["d_model"] = "128";
  EXPECT_EQ(error_of(j), "model.d_model: expected an integer, got a string (\"128\")");
  j = base();
  j["d_model"] = 128.5;
  EXPECT_EQ(error_of(j), "model.d_model: expected an integer, got a number (128.5)");
  j = base();
  j["tie_embeddings"] = 1;
  EXPECT_EQ(error_of(j), "model.tie_embeddings: expected true or false, got an integer (1)");
  j = base();
  j["gss"] = 3;
  EXPECT_EQ(error_of(j), "model.gss: expected an object, got an integer (3)");
  j = base();
  j["attention"]["rope_theta"] = "big";
  EXPECT_EQ(where_of(j), "model.attention.rope_theta");
  EXPECT_EQ(error_of(json::array()), "model: expected an object, got an empty array");
}

TEST(ConfigJson, OutOfRangeValuesSayWhatIsAllowed) {
  json j = base();
  j["n_layers"] = 0;
  EXPECT_EQ(error_of(j), "model.n_layers: 0 is out of range; allowed: 1 to 1024");
  j = base();
  j["norm_eps"] = 0.0;
  EXPECT_EQ(error_of(j), "model.norm_eps: 0.0 is out of range; allowed: > 0 and <= 0.1");
  j = base();
  j["ffn"]["aux_ratio"] = -0.5;
  EXPECT_EQ(where_of(j), "model.ffn.aux_ratio");
  j = base();
  j["vocab_size"] = 1LL << 40;
  EXPECT_EQ(where_of(j), "model.vocab_size");
  j = base();
  j["mixer"] = "softmax";
  EXPECT_EQ(error_of(j), "model.mixer: \"softmax\" is not allowed; allowed: \"learned\", \"uniform\"");
  j = base();
  j["variant"] = "hyena";
  EXPECT_EQ(where_of(j), "model.variant");
  EXPECT_NE(error_of(j).find("\"gss-only\", \"transformerpp\", \"gpt2\", \"mamba\", \"pha-s6\", \"sequential-s6\", \"pattern\""),
            std::string::npos);
}

TEST(ConfigJson, KvHeadsMustDivideHeads) {
  json j = base();
  j["attention"]["heads"] = 8;
  j["attention"]["kv_heads"] = 3;
  EXPECT_EQ(error_of(j),
            "model.attention.kv_heads: 3 must divide model.attention.heads = 8; allowed: 1, 2, 4, 8");
}

TEST(ConfigJson, HeadSizesMustFitTheWidth) {
  json j = base();
  j["d_model"] = 100;
  j["attention"]["heads"] = 8;
  j["attention"]["kv_heads"] = 8;
  EXPECT_EQ(where_of(j), "model.attention.heads");
  EXPECT_NE(error_of(j).find("8 must divide model.d_model = 100"), std::string::npos) << error_of(j);
  // An explicit head_dim lifts the divisibility requirement.
  j["attention"]["head_dim"] = 16;
  EXPECT_EQ(error_of(j), "");
}

TEST(ConfigJson, RopeNeedsAnEvenHeadDim) {
  json j = base();
  j["attention"]["head_dim"] = 15;
  EXPECT_EQ(error_of(j), "model.attention.head_dim: model.attention.head_dim = 15 must be even: RoPE "
                         "rotates pairs of dimensions");
  // Implicit head_dim: d_model / heads = 96 / 32 = 3.
  json k = base();
  k["d_model"] = 96;
  k["attention"]["heads"] = 32;
  k["attention"]["kv_heads"] = 32;
  EXPECT_EQ(where_of(k), "model.attention.heads");
  EXPECT_NE(error_of(k).find("= 3 must be even"), std::string::npos) << error_of(k);
  // A model without attention does not care.
  k["variant"] = "gss-only";
  EXPECT_EQ(error_of(k), "");
}

TEST(ConfigJson, LayerListMustMatchLayerCount) {
  json j = base();
  j["variant"] = "pattern";
  j["layers"] = {"gss", "attn"};
  EXPECT_EQ(error_of(j), "model.layers: has 2 entries; it must have model.n_layers = 4");
  j["n_layers"] = 2;
  EXPECT_EQ(error_of(j), "");
  j["layers"][1] = "mamba";
  EXPECT_EQ(where_of(j), "model.layers[1]");
  j["layers"][1] = json{{"kind", "parallel"}, {"sublayers", json::parse(R"([["ffn","gss"]])")}};
  EXPECT_EQ(where_of(j), "model.layers[1].sublayers[0]");
  j["layers"][1]["sublayers"] = json::parse(R"([["gss","lstm"]])");
  EXPECT_EQ(error_of(j), "model.layers[1].sublayers[0][1]: \"lstm\" is not a branch; allowed: \"gss\", "
                         "\"attn\", \"ffn\"");
  j["layers"][1] = json{{"kind", "attn"}, {"sublayers", json::parse(R"([["attn","ffn"]])")}};
  EXPECT_EQ(where_of(j), "model.layers[1].sublayers[0]");
  j["layers"][1] = json{{"kind", "attn"}, {"sublayer", json::array()}};
  EXPECT_EQ(error_of(j), "model.layers[1].sublayer: unknown key; did you mean \"sublayers\"?");
}

TEST(ConfigJson, LayersMustAgreeWithANamedVariant) {
  json j = base();  // variant "pha"
  j["layers"] = {"gss", "gss", "attn", "attn"};
  EXPECT_EQ(where_of(j), "model.layers");
  EXPECT_NE(error_of(j).find("set the variant to \"pattern\""), std::string::npos);
  j.erase("layers");
  j["variant"] = "pattern";
  EXPECT_EQ(error_of(j), "model.layers: is required when model.variant = \"pattern\"");
  json u = base();
  u["variant"] = "pha-uniform";
  u["mixer"] = "learned";
  EXPECT_EQ(where_of(u), "model.mixer");
}

TEST(ConfigJson, ValidateCatchesConfigsBuiltInCode) {
  ModelConfig c = preset("pha-tiny");
  c.attention.kv_heads = 3;
  EXPECT_THROW(validate_model_config(c), pha::core::Error);
  c = preset("pha-tiny");
  c.layers.pop_back();
  try {
    validate_model_config(c, "run.model");
    FAIL() << "no error";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), "run.model.layers");
  }
}

TEST(ConfigJson, FilesRoundTripAndErrorsNameTheFile) {
  auto dir = std::filesystem::temp_directory_path() / ("pha_test_config_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "m.json").string();
  ModelConfig a = preset("sequential-tiny");
  save_model_config(path, a);
  expect_same(a, load_model_config(path));
  {
    std::ofstream out(path);
    out << R"({"model": {"d_model": 64, "attention": {"heads": 4, "kv_heads": 4}}})";
  }
  EXPECT_EQ(load_model_config(path).d_model, 64);
  {
    std::ofstream out(path);
    out << R"({"d_model": 64,, })";
  }
  try {
    load_model_config(path);
    FAIL() << "no error";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), path);
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
  }
  {
    std::ofstream out(path);
    out << R"({"d_model": -1})";
  }
  try {
    load_model_config(path);
    FAIL() << "no error";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": model.d_model: -1 is out of range; allowed: 1 to 65536");
  }
  EXPECT_THROW(load_model_config((dir / "missing.json").string()), pha::core::Error);
  std::filesystem::remove_all(dir);
}
