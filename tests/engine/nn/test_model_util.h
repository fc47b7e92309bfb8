// Helpers shared by the model-core tests: tiny configs for every variant and error measures.
#pragma once

#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "model/model_config.h"
#include "model/variants.h"

namespace pha::nn::testing {

// Every named variant plus two layer patterns.
inline std::vector<std::string> all_variants() {
  std::vector<std::string> v = model::known_variants();
  v.push_back("gss,gss,attn");
  v.push_back("parallel,sequential");
  return v;
}

// A tiny model: d = 32 (1 query head of 32 unless heads given), F = 64, H = 16, N = 16.
inline model::ModelConfig tiny_config(const std::string& variant, int d = 32, int n_layers = 2, int vocab = 37) {
  model::ModelConfig cfg = model::make_variant_config(variant, vocab, d, n_layers);
  cfg.attention.heads = 4;
  cfg.attention.kv_heads = 2;
  cfg.attention.head_dim = d / 4;
  cfg.gss.state = 16;
  return cfg;
}

inline double max_abs(const at::Tensor& a) { return a.abs().max().item<double>(); }

// max |a - b| / max |b|
inline double rel_err(const at::Tensor& a, const at::Tensor& b) {
  return max_abs(a.to(at::kDouble) - b.to(at::kDouble)) / std::max(max_abs(b.to(at::kDouble)), 1e-300);
}

// A test-friendly name for a variant ("gss,gss,attn" -> "gss_gss_attn").
inline std::string param_name(std::string v) {
  for (char& c : v) {
    if (c == ',' || c == '-') c = '_';
  }
  return v;
}

}  // namespace pha::nn::testing
