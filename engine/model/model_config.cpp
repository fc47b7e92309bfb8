// ModelConfig <-> JSON, and validation. Every error names the full field path
// ("model.attention.kv_heads") and what is allowed; unknown keys get the nearest known key.
// The JSON shape is documented key by key in docs/model-config.md.
#include "model/model_config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "model/variants.h"

namespace pha::model {

using nlohmann::json;

namespace {

// ---- small helpers ------------------------------------------------------------------------

std::string describe(const json& v) {
  std::string dumped = v.dump();
  if (dumped.size() > 40) dumped = dumped.substr(0, 37) + "...";
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean (" + dumped + ")";
    case json::value_t::string:
      return "a string (" + dumped + ")";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer (" + dumped + ")";
    case json::value_t::number_float:
      return "a number (" + dumped + ")";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    default:
      return "a value of unsupported type";
  }
}

std::string join(const std::vector<std::string>& items, const std::string& sep = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::vector<std::string> q;
  for (const auto& s : items) q.push_back("\"" + s + "\"");
  return join(q);
}

size_t levenshtein(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Shortest decimal form that reads back as the same double.
std::string fmt_double(double v) {
  for (int precision = 6; precision <= 17; ++precision) {
    std::ostringstream os;
    os.precision(precision);
    os << v;
    if (std::stod(os.str()) == v) return os.str();
  }
  return std::to_string(v);
}

// Reads one JSON object: rejects unknown keys (suggesting the nearest known one) and reads
// typed, range-checked fields. Absent keys keep the value already in the target.
class ObjectReader {
 public:
  ObjectReader(const json& j, std::string path, std::vector<std::string> keys)
      : j_(j), path_(std::move(path)), keys_(std::move(keys)) {
    if (!j_.is_object()) throw Error(path_, "expected an object, got " + describe(j_));
    for (const auto& item : j_.items()) {
      if (std::find(keys_.begin(), keys_.end(), item.key()) == keys_.end()) unknown(item.key());
    }
  }

  bool has(const std::string& key) const { return j_.contains(key); }
  std::string field(const std::string& key) const { return path_ + "." + key; }
  const json& at(const std::string& key) const { return j_.at(key); }

  void get(const std::string& key, int& out, int64_t min, int64_t max) const {
    if (!has(key)) return;
    const json& v = j_.at(key);
    if (!v.is_number_integer()) throw Error(field(key), "expected an integer, got " + describe(v));
    // Unsigned values above int64 range are read as int64 wrap-around; check both ways.
    int64_t x = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX) ? INT64_MAX : v.get<int64_t>();
    if (x < min || x > max) {
      throw Error(field(key),
                  v.dump() + " is out of range; allowed: " + std::to_string(min) + " to " + std::to_string(max));
    }
    out = static_cast<int>(x);
  }

  void get(const std::string& key, double& out, double min, double max, bool min_open) const {
    if (!has(key)) return;
    const json& v = j_.at(key);
    if (!v.is_number()) throw Error(field(key), "expected a number, got " + describe(v));
    double x = v.get<double>();
    bool below = min_open ? !(x > min) : !(x >= min);
    if (!std::isfinite(x) || below || x > max) {
      throw Error(field(key), v.dump() + " is out of range; allowed: " + (min_open ? "> " : ">= ") + fmt_double(min) +
                                  " and <= " + fmt_double(max));
    }
    out = x;
  }

  void get(const std::string& key, bool& out) const {
    if (!has(key)) return;
    const json& v = j_.at(key);
    if (!v.is_boolean()) throw Error(field(key), "expected true or false, got " + describe(v));
    out = v.get<bool>();
  }

  void get(const std::string& key, std::string& out) const {
    if (!has(key)) return;
    const json& v = j_.at(key);
    if (!v.is_string()) throw Error(field(key), "expected a string, got " + describe(v));
    out = v.get<std::string>();
  }

  std::string get_choice(const std::string& key, const std::vector<std::string>& allowed,
                         const std::string& fallback) const {
    std::string s = fallback;
    get(key, s);
    if (std::find(allowed.begin(), allowed.end(), s) == allowed.end()) {
      throw Error(field(key), "\"" + s + "\" is not allowed; allowed: " + quoted_list(allowed));
    }
    return s;
  }

 private:
  [[noreturn]] void unknown(const std::string& key) const {
    std::string best;
    size_t best_d = std::numeric_limits<size_t>::max();
    for (const auto& k : keys_) {
      size_t d = levenshtein(key, k);
      if (d < best_d) best_d = d, best = k;
    }
    // Suggest only a plausible typo; otherwise list every key of this object.
    if (!best.empty() && best_d <= std::max<size_t>(2, std::min(key.size(), best.size()) / 2)) {
      throw Error(path_ + "." + key, "unknown key; did you mean \"" + best + "\"?");
    }
    throw Error(path_ + "." + key, "unknown key; allowed keys: " + quoted_list(keys_));
  }

  const json& j_;
  std::string path_;
  std::vector<std::string> keys_;
};

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
    throw Error(path,
                "expected a non-empty array of branch names (" + quoted_list(branch_names()) + "), got " + describe(j));
  }
  SubLayer s;
  for (size_t b = 0; b < j.size(); ++b) {
    std::string p = path + "[" + std::to_string(b) + "]";
    if (!j[b].is_string()) throw Error(p, "expected a branch name, got " + describe(j[b]));
    auto name = j[b].get<std::string>();
    const auto& names = branch_names();
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      throw Error(p, "\"" + name + "\" is not a branch; allowed: " + quoted_list(names));
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
      throw Error(path, "\"" + name + "\" is not a block kind; allowed: " + quoted_list(kinds) +
                            " (or an object {\"kind\", \"sublayers\"})");
    }
    return expand_block_kind(block_kind_from(name));
  }
  if (!j.is_object()) {
    throw Error(path, "expected a block kind name or an object {\"kind\", \"sublayers\"}, got " + describe(j));
  }
  ObjectReader r(j, path, {"kind", "sublayers"});
  LayerSpec layer;
  layer.kind = block_kind_from(r.get_choice("kind", block_kind_names(), "parallel"));
  if (!r.has("sublayers")) return expand_block_kind(layer.kind);
  const json& subs = r.at("sublayers");
  if (!subs.is_array() || subs.empty()) {
    throw Error(r.field("sublayers"), "expected a non-empty array of branch lists, got " + describe(subs));
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
    throw Error(path + ".layers", "has " + std::to_string(c.layers.size()) + " entries; it must have " + path +
                                      ".n_layers = " + std::to_string(c.n_layers));
  }
  for (size_t i = 0; i < c.layers.size(); ++i) {
    const auto& layer = c.layers[i];
    std::string lp = path + ".layers[" + std::to_string(i) + "]";
    if (layer.sublayers.empty()) throw Error(lp, "has no sublayers; a layer needs at least one");
    if (layer.kind == BlockKind::Parallel && layer.sublayers.size() != 1) {
      throw Error(lp + ".sublayers",
                  "a \"parallel\" block has exactly one sublayer (a set of "
                  "branches mixed in parallel), got " +
                      std::to_string(layer.sublayers.size()));
    }
    for (size_t s = 0; s < layer.sublayers.size(); ++s) {
      const auto& br = layer.sublayers[s].branches;
      std::string sp = lp + ".sublayers[" + std::to_string(s) + "]";
      if (br.empty()) throw Error(sp, "has no branches; allowed: a non-empty subset of \"gss\", \"attn\", \"ffn\"");
      if (layer.kind != BlockKind::Parallel && br.size() != 1) {
        throw Error(sp, std::string("a \"") + block_kind_name(layer.kind) +
                            "\" block applies one branch per sublayer, got " + std::to_string(br.size()));
      }
      for (size_t b = 1; b < br.size(); ++b) {
        if (static_cast<int>(br[b]) <= static_cast<int>(br[b - 1])) {
          throw Error(sp, "branches must be distinct and in the order \"gss\", \"attn\", \"ffn\"");
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
    throw Error(ap + ".kv_heads", std::to_string(a.kv_heads) + " must divide " + int_field(ap + ".heads", a.heads) +
                                      "; allowed: " + join(divisors));
  }
  if (a.head_dim == 0 && c.d_model % a.heads != 0) {
    throw Error(ap + ".heads", std::to_string(a.heads) + " must divide " + int_field(path + ".d_model", c.d_model) +
                                   " when " + ap +
                                   ".head_dim = 0 (head_dim = d_model / heads); "
                                   "set head_dim explicitly or choose a divisor");
  }
  int hd = c.head_dim();
  if (hd % 2 != 0) {
    std::string which = a.head_dim > 0 ? ap + ".head_dim = " + std::to_string(hd)
                                       : "head_dim = " + path + ".d_model / " + ap + ".heads = " + std::to_string(hd);
    throw Error(a.head_dim > 0 ? ap + ".head_dim" : ap + ".heads",
                which + " must be even: RoPE rotates pairs of dimensions");
  }
  if (a.scale_init > a.scale_max) {
    throw Error(ap + ".scale_init", fmt_double(a.scale_init) + " must be <= " + ap +
                                        ".scale_max = " + fmt_double(a.scale_max) + " (the clamp)");
  }
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

double ModelConfig::deepnorm_alpha() const { return deepnorm ? std::pow(2.0 * n_layers, 0.25) : 1.0; }

double ModelConfig::deepnorm_beta() const { return deepnorm ? std::pow(8.0 * n_layers, -0.25) : 1.0; }

void validate_model_config(const ModelConfig& c, const std::string& path) {
  auto positive = [&](const std::string& key, int v) {
    if (v < 1) throw Error(path + "." + key, std::to_string(v) + " must be >= 1");
  };
  positive("vocab_size", c.vocab_size);
  positive("d_model", c.d_model);
  positive("n_layers", c.n_layers);
  positive("context", c.context);
  validate_layers(c, path);
  const auto& variants = variant_names();
  if (std::find(variants.begin(), variants.end(), c.variant) == variants.end()) {
    throw Error(path + ".variant", "\"" + c.variant + "\" is not allowed; allowed: " + quoted_list(variants));
  }
  if (c.variant != "pattern" && !same_layers(c.layers, expand_variant(c.variant, c.n_layers))) {
    throw Error(path + ".layers", "differ from what " + path + ".variant = \"" + c.variant +
                                      "\" gives; set the variant to \"pattern\" for a custom layer list");
  }
  if (c.variant == "pha-uniform" && c.mixer != MixerMode::Uniform) {
    throw Error(path + ".mixer", "\"learned\" contradicts " + path +
                                     ".variant = \"pha-uniform\"; "
                                     "allowed: \"uniform\"");
  }
  if (uses(c, Branch::Attention)) {
    positive("attention.heads", c.attention.heads);
    positive("attention.kv_heads", c.attention.kv_heads);
    validate_attention(c, path);
  }
  if (uses(c, Branch::Gss)) {
    positive("gss.reduced", c.gss.reduced);
    positive("gss.state", c.gss.state);
  }
  if (uses(c, Branch::Ffn) && c.d_ff() < 1) positive("ffn.d_ff", c.d_ff());
}

ModelConfig model_config_from_json(const json& j, const std::string& path) {
  ObjectReader r(j, path,
                 {"name", "variant", "vocab_size", "d_model", "n_layers", "context", "layers", "mixer", "gss",
                  "attention", "ffn", "norm_eps", "tie_embeddings", "deepnorm"});
  ModelConfig c;
  r.get("name", c.name);
  c.variant = r.get_choice("variant", variant_names(), c.variant);
  r.get("vocab_size", c.vocab_size, 1, 1 << 24);
  r.get("d_model", c.d_model, 1, 1 << 16);
  r.get("n_layers", c.n_layers, 1, 1024);
  r.get("context", c.context, 1, 1 << 24);
  std::string mixer_default = variant_mixer(c.variant) == MixerMode::Uniform ? "uniform" : "learned";
  c.mixer = r.get_choice("mixer", {"learned", "uniform"}, mixer_default) == "uniform" ? MixerMode::Uniform
                                                                                      : MixerMode::Learned;
  if (r.has("gss")) {
    ObjectReader g(r.at("gss"), r.field("gss"), {"expanded", "reduced", "state", "inner_norm"});
    g.get("expanded", c.gss.expanded, 0, 1 << 20);
    g.get("reduced", c.gss.reduced, 1, 1 << 16);
    g.get("state", c.gss.state, 1, 1 << 16);
    g.get("inner_norm", c.gss.inner_norm);
  }
  if (r.has("attention")) {
    ObjectReader a(r.at("attention"), r.field("attention"),
                   {"heads", "kv_heads", "head_dim", "rope_theta", "scale_init", "scale_max"});
    a.get("heads", c.attention.heads, 1, 1024);
    a.get("kv_heads", c.attention.kv_heads, 1, 1024);
    a.get("head_dim", c.attention.head_dim, 0, 1 << 14);
    a.get("rope_theta", c.attention.rope_theta, 1.0, 1e12, false);
    a.get("scale_init", c.attention.scale_init, -20.0, 20.0, false);
    a.get("scale_max", c.attention.scale_max, -20.0, 20.0, false);
  }
  if (r.has("ffn")) {
    ObjectReader f(r.at("ffn"), r.field("ffn"), {"d_ff", "aux_ratio"});
    f.get("d_ff", c.ffn.d_ff, 0, 1 << 20);
    f.get("aux_ratio", c.ffn.aux_ratio, 0.0, 1.0, false);
  }
  r.get("norm_eps", c.norm_eps, 0.0, 0.1, true);
  r.get("tie_embeddings", c.tie_embeddings);
  r.get("deepnorm", c.deepnorm);

  if (r.has("layers")) {
    const json& layers = r.at("layers");
    if (!layers.is_array()) {
      throw Error(r.field("layers"), "expected an array of " + int_field(path + ".n_layers", c.n_layers) +
                                         " block kinds, got " + describe(layers));
    }
    if (static_cast<int>(layers.size()) != c.n_layers) {
      throw Error(r.field("layers"), "has " + std::to_string(layers.size()) + " entries; it must have " +
                                         int_field(path + ".n_layers", c.n_layers));
    }
    for (size_t i = 0; i < layers.size(); ++i) {
      c.layers.push_back(read_layer(layers[i], r.field("layers") + "[" + std::to_string(i) + "]"));
    }
  } else {
    if (c.variant == "pattern") {
      throw Error(r.field("layers"), "is required when " + path + ".variant = \"pattern\"");
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
  j["attention"] = {{"heads", c.attention.heads},           {"kv_heads", c.attention.kv_heads},
                    {"head_dim", c.attention.head_dim},     {"rope_theta", c.attention.rope_theta},
                    {"scale_init", c.attention.scale_init}, {"scale_max", c.attention.scale_max}};
  j["ffn"] = {{"d_ff", c.ffn.d_ff}, {"aux_ratio", c.ffn.aux_ratio}};
  j["norm_eps"] = c.norm_eps;
  j["tie_embeddings"] = c.tie_embeddings;
  j["deepnorm"] = c.deepnorm;
  return j;
}

ModelConfig load_model_config(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file, "cannot open the model config file");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw Error(file, std::string("not valid JSON: ") + e.what());
  }
  try {
    return model_config_from_json(j.is_object() && j.contains("model") ? j.at("model") : j, "model");
  } catch (const Error& e) {
    throw Error(file, e.what());
  }
}

void save_model_config(const std::string& file, const ModelConfig& config) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(file, "cannot write the model config file");
  out << to_json(config).dump(2) << "\n";
  if (!out) throw Error(file, "write failed");
}

}  // namespace pha::model
