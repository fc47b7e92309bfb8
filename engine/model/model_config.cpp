// ModelConfig <-> JSON, and validation. Sections are read through core/config_reader (errors
// name the full field path, "model.attention.kv_heads", what was found and what is allowed;
// unknown keys get the nearest known key); the cross-field checks here use the same style.
// The JSON shape is documented key by key in docs/model-config.md.
#include "model/model_config.h"
#include "model/saved_config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/config_reader.h"
#include "core/error.h"
#include "model/variants.h"

namespace pha::model {

using nlohmann::json;

namespace {

// ---- small helpers ------------------------------------------------------------------------

std::string join(const std::vector<std::string>& items, const std::string& sep = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

// Reads an int field into `out`, keeping its value when the key is absent.
void read_int(core::ConfigReader& r, const std::string& key, int& out, int64_t min, int64_t max) {
  out = static_cast<int>(r.get_int(key, out, min, max));
}

void read_double(core::ConfigReader& r, const std::string& key, double& out, double min, double max, bool min_open = false) {
  out = r.get_double(key, out, min, max, min_open);
}

// ---- enum names ---------------------------------------------------------------------------

// The expandable variants plus "pattern" (an explicit layer list).
const std::vector<std::string>& variant_names() {
  static const std::vector<std::string> v = [] {
    auto names = known_variants();
    names.push_back("pattern");
    return names;
  }();
  return v;
}

const std::vector<std::string>& block_kind_names() {
  static const std::vector<std::string> v = {"parallel", "sequential", "attn", "gss"};
  return v;
}

const std::vector<std::string>& branch_names() {
  static const std::vector<std::string> v = {"gss", "attn", "ffn"};
  return v;
}

BlockKind block_kind_from(const std::string& s) {
  if (s == "parallel") return BlockKind::Parallel;
  if (s == "sequential") return BlockKind::Sequential;
  if (s == "attn") return BlockKind::Transformer;
  return BlockKind::GssOnly;
}

bool same_layers(const std::vector<LayerSpec>& a, const std::vector<LayerSpec>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].kind != b[i].kind || a[i].sublayers.size() != b[i].sublayers.size()) return false;
    for (size_t s = 0; s < a[i].sublayers.size(); ++s) {
      if (a[i].sublayers[s].branches != b[i].sublayers[s].branches) return false;
    }
  }
  return true;
}

// ---- layers -------------------------------------------------------------------------------

SubLayer read_sublayer(const json& j, const std::string& path) {
  if (!j.is_array() || j.empty()) {
    throw core::Error(path,
                "expected a non-empty array of branch names (" + core::quoted_list(branch_names()) + "), got " + core::describe_json(j));
  }
  SubLayer s;
  for (size_t b = 0; b < j.size(); ++b) {
    std::string p = path + "[" + std::to_string(b) + "]";
    if (!j[b].is_string()) throw core::Error(p, "expected a branch name, got " + core::describe_json(j[b]));
    auto name = j[b].get<std::string>();
    const auto& names = branch_names();
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      throw core::Error(p, "\"" + name + "\" is not a branch; allowed: " + core::quoted_list(names));
    }
    s.branches.push_back(static_cast<Branch>(it - names.begin()));
  }
  return s;
}

LayerSpec read_layer(const json& j, const std::string& path) {
  if (j.is_string()) {
    auto name = j.get<std::string>();
    const auto& kinds = block_kind_names();
    if (std::find(kinds.begin(), kinds.end(), name) == kinds.end()) {
      throw core::Error(path, "\"" + name + "\" is not a block kind; allowed: " + core::quoted_list(kinds) +
                            " (or an object {\"kind\", \"sublayers\"})");
    }
    return expand_block_kind(block_kind_from(name));
  }
  if (!j.is_object()) {
    throw core::Error(path, "expected a block kind name or an object {\"kind\", \"sublayers\"}, got " + core::describe_json(j));
  }
  core::ConfigReader r(j, path, {"kind", "sublayers"});
  LayerSpec layer;
  layer.kind = block_kind_from(r.get_choice("kind", "parallel", block_kind_names()));
  if (!r.has("sublayers")) return expand_block_kind(layer.kind);
  const json& subs = r.at("sublayers");
  if (!subs.is_array() || subs.empty()) {
    throw core::Error(r.field("sublayers"), "expected a non-empty array of branch lists, got " + core::describe_json(subs));
  }
  for (size_t s = 0; s < subs.size(); ++s) {
    layer.sublayers.push_back(read_sublayer(subs[s], r.field("sublayers") + "[" + std::to_string(s) + "]"));
  }
  return layer;
}

json layer_to_json(const LayerSpec& layer) {
  if (same_layers({layer}, {expand_block_kind(layer.kind)})) return block_kind_name(layer.kind);
  json subs = json::array();
  for (const auto& s : layer.sublayers) {
    json names = json::array();
    for (Branch b : s.branches) names.push_back(branch_name(b));
    subs.push_back(names);
  }
  return json{{"kind", block_kind_name(layer.kind)}, {"sublayers", subs}};
}

bool uses(const ModelConfig& c, Branch branch) {
  for (const auto& l : c.layers) {
    for (const auto& s : l.sublayers) {
      if (std::find(s.branches.begin(), s.branches.end(), branch) != s.branches.end()) return true;
    }
  }
  return false;
}

void validate_layers(const ModelConfig& c, const std::string& path) {
  if (static_cast<int>(c.layers.size()) != c.n_layers) {
    throw core::Error(path + ".layers", "has " + std::to_string(c.layers.size()) + " entries; it must have " + path +
                                      ".n_layers = " + std::to_string(c.n_layers));
  }
  for (size_t i = 0; i < c.layers.size(); ++i) {
    const auto& layer = c.layers[i];
    std::string lp = path + ".layers[" + std::to_string(i) + "]";
    if (layer.sublayers.empty()) throw core::Error(lp, "has no sublayers; a layer needs at least one");
    if (layer.kind == BlockKind::Parallel && layer.sublayers.size() != 1) {
      throw core::Error(lp + ".sublayers",
                  "a \"parallel\" block has exactly one sublayer (a set of "
                  "branches mixed in parallel), got " +
                      std::to_string(layer.sublayers.size()));
    }
    for (size_t s = 0; s < layer.sublayers.size(); ++s) {
      const auto& br = layer.sublayers[s].branches;
      std::string sp = lp + ".sublayers[" + std::to_string(s) + "]";
      if (br.empty()) throw core::Error(sp, "has no branches; allowed: a non-empty subset of \"gss\", \"attn\", \"ffn\"");
      if (layer.kind != BlockKind::Parallel && br.size() != 1) {
        throw core::Error(sp, std::string("a \"") + block_kind_name(layer.kind) +
                            "\" block applies one branch per sublayer, got " + std::to_string(br.size()));
      }
      for (size_t b = 1; b < br.size(); ++b) {
        if (static_cast<int>(br[b]) <= static_cast<int>(br[b - 1])) {
          throw core::Error(sp, "branches must be distinct and in the order \"gss\", \"attn\", \"ffn\"");
        }
      }
    }
  }
}

std::string int_field(const std::string& name, int v) { return name + " = " + std::to_string(v); }

void validate_attention(const ModelConfig& c, const std::string& path) {
  const auto& a = c.attention;
  const std::string ap = path + ".attention";
  if (a.heads % a.kv_heads != 0) {
    std::vector<std::string> divisors;
    for (int g = 1; g <= a.heads; ++g) {
      if (a.heads % g == 0) divisors.push_back(std::to_string(g));
    }
    throw core::Error(ap + ".kv_heads", std::to_string(a.kv_heads) + " must divide " + int_field(ap + ".heads", a.heads) +
                                      "; allowed: " + join(divisors));
  }
  if (a.head_dim == 0 && c.d_model % a.heads != 0) {
    throw core::Error(ap + ".heads", std::to_string(a.heads) + " must divide " + int_field(path + ".d_model", c.d_model) +
                                   " when " + ap +
                                   ".head_dim = 0 (head_dim = d_model / heads); "
                                   "set head_dim explicitly or choose a divisor");
  }
  int hd = c.head_dim();
  if (hd % 2 != 0) {
    std::string which = a.head_dim > 0 ? ap + ".head_dim = " + std::to_string(hd)
                                       : "head_dim = " + path + ".d_model / " + ap + ".heads = " + std::to_string(hd);
    throw core::Error(a.head_dim > 0 ? ap + ".head_dim" : ap + ".heads",
                which + " must be even: RoPE rotates pairs of dimensions");
  }
  if (a.scale_init > a.scale_max) {
    throw core::Error(ap + ".scale_init", core::format_number(a.scale_init) + " must be <= " + ap +
                                        ".scale_max = " + core::format_number(a.scale_max) + " (the clamp)");
  }
}

// Ranges of the selective SSM's keys: the reader's and validate_model_config's (configs built
// in code) are the same, so both report "model.selective.state: 0 is out of range; allowed: 1 to 256".
constexpr int kSelectiveMaxState = 256, kSelectiveMaxExpand = 16, kSelectiveMaxConv = 64, kSelectiveMaxRank = 1 << 16;

void validate_selective(const SelectiveConfig& s, const std::string& sp) {
  auto in_range = [&](const std::string& key, int v, int lo, int hi) {
    if (v < lo || v > hi)
      throw core::Error(sp + "." + key, std::to_string(v) + " is out of range; allowed: " + std::to_string(lo) + " to " +
                                      std::to_string(hi));
  };
  in_range("state", s.state, 1, kSelectiveMaxState);
  in_range("expand", s.expand, 1, kSelectiveMaxExpand);
  in_range("conv", s.conv, 1, kSelectiveMaxConv);
  in_range("dt_rank", s.dt_rank, 0, kSelectiveMaxRank);
  if (!(s.dt_min > 0.0) || !(s.dt_max <= 10.0))
    throw core::Error(sp + (s.dt_min > 0.0 ? ".dt_max" : ".dt_min"),
                core::format_number(s.dt_min > 0.0 ? s.dt_max : s.dt_min) + " is out of range; allowed: above 0 up to 10");
  if (s.dt_min > s.dt_max)
    throw core::Error(sp + ".dt_min", core::format_number(s.dt_min) + " must be <= " + sp + ".dt_max = " + core::format_number(s.dt_max));
}

}  // namespace

// ---- public API ---------------------------------------------------------------------------

const char* branch_name(Branch b) {
  switch (b) {
    case Branch::Gss:
      return "gss";
    case Branch::Attention:
      return "attn";
    case Branch::Ffn:
      return "ffn";
  }
  return "?";
}

const char* block_kind_name(BlockKind k) {
  switch (k) {
    case BlockKind::Parallel:
      return "parallel";
    case BlockKind::Sequential:
      return "sequential";
    case BlockKind::Transformer:
      return "attn";
    case BlockKind::GssOnly:
      return "gss";
  }
  return "?";
}

int ModelConfig::d_aux() const { return static_cast<int>(std::lround(ffn.aux_ratio * d_ff())); }

double ModelConfig::deepnorm_alpha() const {
  return deepnorm && !pre_norm() ? std::pow(2.0 * n_layers, 0.25) : 1.0;
}

double ModelConfig::deepnorm_beta() const {
  return deepnorm && !pre_norm() ? std::pow(8.0 * n_layers, -0.25) : 1.0;
}

double ModelConfig::embed_multiplier() const {
  return embed_scale == "sqrt_d" ? std::sqrt(static_cast<double>(d_model)) : 1.0;
}

void apply_saved_model_defaults(json& model_json) {
  if (model_json.is_object() && !model_json.contains("embed_scale")) model_json["embed_scale"] = "none";
  if (model_json.is_object() && !model_json.contains("branch_norm")) model_json["branch_norm"] = "mixed";
}

bool has_single_branch_sublayer(const ModelConfig& c) {
  for (const auto& l : c.layers)
    for (const auto& s : l.sublayers)
      if (s.branches.size() == 1) return true;
  return false;
}

json canonical_model_json(json model_json) {
  if (!model_json.is_object()) return model_json;
  apply_saved_model_defaults(model_json);
  try {
    ModelConfig c = model_config_from_json(model_json);
    if (!has_single_branch_sublayer(c)) c.branch_norm = "all";
    return to_json(c);
  } catch (const std::exception&) {
    return model_json;
  }
}

void validate_model_config(const ModelConfig& c, const std::string& path) {
  auto positive = [&](const std::string& key, int v) {
    if (v < 1) throw core::Error(path + "." + key, std::to_string(v) + " must be >= 1");
  };
  positive("vocab_size", c.vocab_size);
  positive("d_model", c.d_model);
  positive("n_layers", c.n_layers);
  positive("context", c.context);
  validate_layers(c, path);
  const auto& variants = variant_names();
  if (std::find(variants.begin(), variants.end(), c.variant) == variants.end()) {
    throw core::Error(path + ".variant", "\"" + c.variant + "\" is not allowed; allowed: " + core::quoted_list(variants));
  }
  if (c.variant != "pattern" && !same_layers(c.layers, expand_variant(c.variant, c.n_layers))) {
    throw core::Error(path + ".layers", "differ from what " + path + ".variant = \"" + c.variant +
                                      "\" gives; set the variant to \"pattern\" for a custom layer list");
  }
  if (c.variant == "pha-uniform" && c.mixer != MixerMode::Uniform) {
    throw core::Error(path + ".mixer", "\"learned\" contradicts " + path +
                                     ".variant = \"pha-uniform\"; "
                                     "allowed: \"uniform\"");
  }
  if (uses(c, Branch::Attention)) {
    positive("attention.heads", c.attention.heads);
    positive("attention.kv_heads", c.attention.kv_heads);
    validate_attention(c, path);
  }
  if (uses(c, Branch::Gss) && !c.selective_ssm()) {
    positive("gss.reduced", c.gss.reduced);
    positive("gss.state", c.gss.state);
  }
  if (selective_variant(c.variant) && !c.selective_ssm())
    throw core::Error(path + ".ssm", "\"" + c.ssm + "\" contradicts " + path + ".variant = \"" + c.variant +
                                   "\"; allowed: \"s6\"");
  if (c.ssm != "gss" && c.ssm != "s6")
    throw core::Error(path + ".ssm", "\"" + c.ssm + "\" is not allowed; allowed: \"gss\", \"s6\"");
  if (c.selective_ssm()) validate_selective(c.selective, path + ".selective");
  if (uses(c, Branch::Ffn) && c.d_ff() < 1) positive("ffn.d_ff", c.d_ff());
  auto choice = [&](const std::string& key, const std::string& v, const std::vector<std::string>& allowed) {
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end())
      throw core::Error(path + "." + key, "\"" + v + "\" is not allowed; allowed: " + core::quoted_list(allowed));
  };
  choice("norm_placement", c.norm_placement, {"post", "pre"});
  choice("norm", c.norm, {"layernorm", "rmsnorm"});
  choice("positions", c.positions, {"rope", "learned"});
  choice("branch_norm", c.branch_norm, {"all", "mixed"});
  choice("embed_scale", c.embed_scale, {"norm", "sqrt_d", "none"});
  choice("attention.kind", c.attention.kind, {"cosine", "softmax"});
  choice("ffn.kind", c.ffn.kind, {"gelu", "swiglu"});
}

ModelConfig model_config_from_json(const json& j, const std::string& path) {
  core::ConfigReader r(j, path,
                 {"name", "variant", "vocab_size", "d_model", "n_layers", "context", "layers", "mixer", "gss",
                  "attention", "ffn", "norm_eps", "tie_embeddings", "deepnorm", "embed_scale", "branch_norm", "norm_placement", "norm",
                  "positions", "ssm", "selective"});
  ModelConfig c;
  c.name = r.get_string("name", c.name);
  if (r.has("variant") && r.at("variant").is_string()) {  // a misspelled name gets the nearest one
    const std::string v = r.at("variant").get<std::string>();
    const auto& names = variant_names();
    const std::string near = std::find(names.begin(), names.end(), v) == names.end()
                                 ? core::nearest_name(v, names, /*max_edits=*/2) : "";
    if (!near.empty())
      throw core::Error(r.field("variant"), "\"" + v + "\" is not allowed; did you mean \"" + near + "\"? allowed: " +
                                          core::quoted_list(names));
  }
  c.variant = r.get_choice("variant", c.variant, variant_names());
  apply_variant_defaults(c);  // transformerpp, gpt2: their norm, attention and FFN kinds; keys below override
  read_int(r, "vocab_size", c.vocab_size, 1, 1 << 24);
  read_int(r, "d_model", c.d_model, 1, 1 << 16);
  read_int(r, "n_layers", c.n_layers, 1, 1024);
  read_int(r, "context", c.context, 1, 1 << 24);
  std::string mixer_default = variant_mixer(c.variant) == MixerMode::Uniform ? "uniform" : "learned";
  c.mixer = r.get_choice("mixer", mixer_default, {"learned", "uniform"}) == "uniform" ? MixerMode::Uniform
                                                                                      : MixerMode::Learned;
  core::ConfigReader g = r.object("gss", {"expanded", "reduced", "state", "inner_norm"});
  read_int(g, "expanded", c.gss.expanded, 0, 1 << 20);
  read_int(g, "reduced", c.gss.reduced, 1, 1 << 16);
  read_int(g, "state", c.gss.state, 1, 1 << 16);
  c.gss.inner_norm = g.get_bool("inner_norm", c.gss.inner_norm);
  c.ssm = r.get_choice("ssm", c.ssm, {"gss", "s6"});
  core::ConfigReader sel = r.object("selective", {"state", "expand", "conv", "dt_rank", "dt_min", "dt_max"});
  read_int(sel, "state", c.selective.state, 1, kSelectiveMaxState);
  read_int(sel, "expand", c.selective.expand, 1, kSelectiveMaxExpand);
  read_int(sel, "conv", c.selective.conv, 1, kSelectiveMaxConv);
  read_int(sel, "dt_rank", c.selective.dt_rank, 0, kSelectiveMaxRank);
  read_double(sel, "dt_min", c.selective.dt_min, 0.0, 10.0, /*min_open=*/true);
  read_double(sel, "dt_max", c.selective.dt_max, 0.0, 10.0, /*min_open=*/true);
  core::ConfigReader a = r.object("attention", {"heads", "kv_heads", "head_dim", "rope_theta", "scale_init", "scale_max",
                                          "kind", "bias"});
  read_int(a, "heads", c.attention.heads, 1, 1024);
  read_int(a, "kv_heads", c.attention.kv_heads, 1, 1024);
  read_int(a, "head_dim", c.attention.head_dim, 0, 1 << 14);
  read_double(a, "rope_theta", c.attention.rope_theta, 1.0, 1e12);
  read_double(a, "scale_init", c.attention.scale_init, -20.0, 20.0);
  read_double(a, "scale_max", c.attention.scale_max, -20.0, 20.0);
  c.attention.kind = a.get_choice("kind", c.attention.kind, {"cosine", "softmax"});
  c.attention.bias = a.get_bool("bias", c.attention.bias);
  core::ConfigReader f = r.object("ffn", {"d_ff", "aux_ratio", "kind", "bias"});
  read_int(f, "d_ff", c.ffn.d_ff, 0, 1 << 20);
  read_double(f, "aux_ratio", c.ffn.aux_ratio, 0.0, 1.0);
  c.ffn.kind = f.get_choice("kind", c.ffn.kind, {"gelu", "swiglu"});
  c.ffn.bias = f.get_bool("bias", c.ffn.bias);
  read_double(r, "norm_eps", c.norm_eps, 0.0, 0.1, true);
  c.tie_embeddings = r.get_bool("tie_embeddings", c.tie_embeddings);
  c.deepnorm = r.get_bool("deepnorm", c.deepnorm);
  c.embed_scale = r.get_choice("embed_scale", c.embed_scale, {"norm", "sqrt_d", "none"});
  c.branch_norm = r.get_choice("branch_norm", c.branch_norm, {"all", "mixed"});
  c.norm_placement = r.get_choice("norm_placement", c.norm_placement, {"post", "pre"});
  c.norm = r.get_choice("norm", c.norm, {"layernorm", "rmsnorm"});
  c.positions = r.get_choice("positions", c.positions, {"rope", "learned"});

  if (r.has("layers")) {
    const json& layers = r.at("layers");
    if (!layers.is_array()) {
      throw core::Error(r.field("layers"), "expected an array of " + int_field(path + ".n_layers", c.n_layers) +
                                         " block kinds, got " + core::describe_json(layers));
    }
    if (static_cast<int>(layers.size()) != c.n_layers) {
      throw core::Error(r.field("layers"), "has " + std::to_string(layers.size()) + " entries; it must have " +
                                         int_field(path + ".n_layers", c.n_layers));
    }
    for (size_t i = 0; i < layers.size(); ++i) {
      c.layers.push_back(read_layer(layers[i], r.field("layers") + "[" + std::to_string(i) + "]"));
    }
  } else {
    if (c.variant == "pattern") {
      throw core::Error(r.field("layers"), "is required when " + path + ".variant = \"pattern\"");
    }
    c.layers = expand_variant(c.variant, c.n_layers);
  }
  validate_model_config(c, path);
  return c;
}

json to_json(const ModelConfig& c) {
  json j;
  j["name"] = c.name;
  j["variant"] = c.variant;
  j["vocab_size"] = c.vocab_size;
  j["d_model"] = c.d_model;
  j["n_layers"] = c.n_layers;
  j["context"] = c.context;
  // The layer list is written only when the variant does not determine it.
  bool derived = c.variant != "pattern" &&
                 std::find(variant_names().begin(), variant_names().end(), c.variant) != variant_names().end() &&
                 c.n_layers >= 1 && same_layers(c.layers, expand_variant(c.variant, c.n_layers));
  if (!derived) {
    json layers = json::array();
    for (const auto& l : c.layers) layers.push_back(layer_to_json(l));
    j["layers"] = layers;
  }
  j["mixer"] = c.mixer == MixerMode::Uniform ? "uniform" : "learned";
  j["gss"] = {{"expanded", c.gss.expanded},
              {"reduced", c.gss.reduced},
              {"state", c.gss.state},
              {"inner_norm", c.gss.inner_norm}};
  if (c.ssm != "gss") {  // absent for GSS: configs saved before the key existed stay byte-identical
    j["ssm"] = c.ssm;
    j["selective"] = {{"state", c.selective.state},     {"expand", c.selective.expand},
                      {"conv", c.selective.conv},       {"dt_rank", c.selective.dt_rank},
                      {"dt_min", c.selective.dt_min},   {"dt_max", c.selective.dt_max}};
  }
  j["attention"] = {{"heads", c.attention.heads},           {"kv_heads", c.attention.kv_heads},
                    {"head_dim", c.attention.head_dim},     {"rope_theta", c.attention.rope_theta},
                    {"scale_init", c.attention.scale_init}, {"scale_max", c.attention.scale_max},
                    {"kind", c.attention.kind},             {"bias", c.attention.bias}};
  j["ffn"] = {{"d_ff", c.ffn.d_ff}, {"aux_ratio", c.ffn.aux_ratio}, {"kind", c.ffn.kind}, {"bias", c.ffn.bias}};
  j["norm_eps"] = c.norm_eps;
  j["tie_embeddings"] = c.tie_embeddings;
  j["deepnorm"] = c.deepnorm;
  j["embed_scale"] = c.embed_scale;
  j["branch_norm"] = c.branch_norm;
  j["norm_placement"] = c.norm_placement;
  j["norm"] = c.norm;
  j["positions"] = c.positions;
  return j;
}

ModelConfig load_model_config(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw core::Error(file, "cannot open the model config file");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {  // syntax, or a number beyond double range (out_of_range 406)
    throw core::Error(file, std::string("not valid JSON: ") + e.what());
  }
  try {
    return model_config_from_json(j.is_object() && j.contains("model") ? j.at("model") : j, "model");
  } catch (const core::Error& e) {
    throw core::Error(file, e.what());
  }
}

void save_model_config(const std::string& file, const ModelConfig& config) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw core::Error(file, "cannot write the model config file");
  out << to_json(config).dump(2) << "\n";
  if (!out) throw core::Error(file, "write failed");
}

}  // namespace pha::model
