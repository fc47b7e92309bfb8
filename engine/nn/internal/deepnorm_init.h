// DeepNorm initialisation (DeepNet): Xavier-normal with gain beta = (8L)^(-1/4) on the FFN
// weights (main and aux, up and down), the attention V and O projections and the GSS
// projections W_u, W_v, W_g, W_o; gain 1 on Q and K. A fused matrix is initialised per logical
// slice with that slice's own fan-in/fan-out. Everything else: biases 0, norm gains 1, LayerNorm
// biases 0, DSS parameters N(0, 1), attention log-scale ln 10, mixer p 0, embedding
// N(0, 1/d^2) (std 1/d: step-0 loss near ln V for every variant, docs/model.md), untied head
// Xavier-normal gain 1.
// Pre-norm models (norm_placement "pre": transformerpp, gpt2) get the GPT-2 initialisation
// instead (Radford et al. 2019; nanoGPT): every weight slice, the embedding, learned positions
// and an untied head N(0, 0.02^2); the projections that write into the residual stream
// (attention and GSS w_o, FFN down) N(0, (0.02 / sqrt(S))^2) with S the number of sub-layers;
// biases 0, norm gains 1.
#pragma once

#include <string>
#include <vector>

#include "nn/pha_model.h"

namespace pha::nn {

struct InitEntry {
  std::string name;    // logical, e.g. "layers.0.sub.0.attn.w_v"
  std::string param;   // full parameter name, e.g. "layers.0.sub.0.attn.w_qkv.weight"
  int64_t row_begin = 0, row_end = 0, col_begin = 0, col_end = 0;  // the slice (end exclusive)
  int64_t fan_in = 0, fan_out = 0;
  bool deepnorm_beta = false;
  double gain = 1.0;   // beta or 1
};

inline constexpr double kGpt2InitStd = 0.02;

// Every Xavier-initialised weight slice of the model, in module order.
std::vector<InitEntry> deepnorm_init_plan(const PhaModelImpl& model);

// Logical names of exactly the slices that get gain beta.
std::vector<std::string> deepnorm_beta_weights(const PhaModelImpl& model);

// A slice that writes into the residual stream (w_o of attention and GSS, the FFN down halves).
bool is_residual_output(const InitEntry& e);

// Applies the whole initialisation described above (uses the global torch generator).
void apply_deepnorm_init(PhaModelImpl& model);

}  // namespace pha::nn
