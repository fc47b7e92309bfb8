// Analytic introspection from a ModelConfig alone: parameters per branch, per layer and in
// total (exactly the tensors the model builder creates), FLOPs per token for a forward pass
// and a training step at any sequence length, and an activation-memory estimate for (B, T).
// No torch: the GUI calls this live while the user edits a config. Method: docs/performance.md
// and docs/model-config.md ("Parameter and FLOP accounting").
#pragma once

#include <cstdint>
#include <vector>

#include "model/model_config.h"

namespace pha::model {

// Parameters of one branch instance (weights, biases and the branch's own small tensors).
int64_t gss_branch_params(const ModelConfig& c);        // W_u, W_v, W_g, W_o(+bias), DSS, inner LN
int64_t selective_branch_params(const ModelConfig& c);  // S6: in/x/dt/out_proj, conv1d, A_log, D
int64_t ssm_branch_params(const ModelConfig& c);        // the SSM slot: GSS or S6 (c.ssm)
int64_t attention_branch_params(const ModelConfig& c);  // W_q, W_k, W_v, W_o, per-head log-scale
int64_t ffn_branch_params(const ModelConfig& c);        // main + aux FFN (one output bias)

struct BranchParams {
  int64_t gss = 0;  // the SSM slot: GSS, or S6 when ssm is "s6" (likewise every gss field below)
  int64_t attention = 0;
  int64_t ffn = 0;
  int64_t sum() const { return gss + attention + ffn; }
};

struct LayerParams {
  BlockKind kind = BlockKind::Parallel;
  BranchParams branches;
  int64_t norms = 0;  // DeepNorm LayerNorm per sublayer + per-branch RMSNorm of a parallel mix
  int64_t mixer = 0;  // learnable mixing logits p (one per branch of a learned parallel mix)
  int64_t total = 0;
};

struct ParamCount {
  int64_t embedding = 0;   // V x d token embedding (+ context x d learned positions)
  int64_t head = 0;        // V x d output head; 0 when tied to the embedding
  int64_t final_norm = 0;  // LayerNorm before the head
  std::vector<LayerParams> layers;
  BranchParams branches;   // summed over layers
  int64_t norms = 0;       // summed over layers
  int64_t mixer = 0;       // summed over layers
  int64_t matmul = 0;      // weights of the blocks' linear maps: 2 FLOPs per weight per token
  int64_t non_embedding = 0;  // total - embedding - head
  int64_t total = 0;
};

ParamCount count_parameters(const ModelConfig& c);

// FLOPs per token (a multiply-add counts 2). Elementwise work (norms, activations, softmax,
// RoPE, the mixer) is not counted; see docs/performance.md.
struct Flops {
  double gss_matmul = 0;   // W_u, W_v, W_g, W_o
  double gss_conv = 0;     // FFT convolution: rfft(z), product, irfft, rfft(K) shared by the batch
                           // (S6: the depthwise convolution, the selective scan and the D skip)
  double gss_kernel = 0;   // building K = Re(C' exp(Lambda t)), once per batch (S6: 0)
  double attn_matmul = 0;  // W_q, W_k, W_v, W_o
  double attn_scores = 0;  // QK^T and AV with the causal half: 2 * 2 * heads * head_dim * (T+1)/2
  double ffn = 0;          // main + aux FFN
  double head = 0;         // 2 * d * V
  double gss() const { return gss_matmul + gss_conv + gss_kernel; }
  double attention() const { return attn_matmul + attn_scores; }
  double total() const { return gss() + attention() + ffn + head; }
};

struct FlopsEstimate {
  int seq_len = 0;
  int batch = 1;
  Flops forward;                    // per token
  Flops training;                   // per token: forward + backward (3x forward)
  std::vector<double> layer_forward;  // per token, per layer (blocks only, no head)
};

// batch only matters for the work shared by a batch (the GSS kernel K and its FFT).
FlopsEstimate estimate_flops(const ModelConfig& c, int seq_len, int batch = 1);

// The batch of a model's reference figure. One figure per model everywhere it is shown by
// default: `pha model`, the Configuration dock, Compare's Pareto chart.
inline constexpr int kReferenceBatch = 8;
// FLOPs per token at T = the config's context and B = kReferenceBatch.
inline FlopsEstimate reference_flops(const ModelConfig& c) { return estimate_flops(c, c.context, kReferenceBatch); }

// Bytes, fp32, for eager LibTorch on CPU. Activations are what autograd keeps for backward
// (training) or the peak of one layer (inference); logits include log-softmax and its grad.
struct MemoryEstimate {
  int64_t weights = 0;
  int64_t gradients = 0;    // training only
  int64_t optimizer = 0;    // AdamW exp_avg + exp_avg_sq; training only
  int64_t activations = 0;
  int64_t logits = 0;
  int64_t total() const { return weights + gradients + optimizer + activations + logits; }
};

MemoryEstimate estimate_memory(const ModelConfig& c, int batch, int seq_len, bool training = true);

// What incremental decoding keeps between tokens (nn/decode_state.h), from the config alone:
// the KV cache, 2 (k and v) x attention sub-layers x kv_heads (G) x head_dim x tokens x batch x
// bytes, which grows with the context; and the GSS state, GSS sub-layers x batch x H x N x 2
// (real and imaginary parts) x bytes, which does not; with ssm "s6", SSM sub-layers x batch x Di
// x (N + conv - 1) x bytes (the state and the convolution window). bytes: 4 for fp32, 2 for bf16.
struct DecodeMemory {
  int attention_layers = 0;  // sub-layers with an attention branch (each keeps a cache)
  int gss_layers = 0;        // sub-layers with a GSS branch (each keeps a state)
  int64_t kv_bytes = 0;
  int64_t gss_state_bytes = 0;
};
DecodeMemory decode_memory(const ModelConfig& c, int64_t batch, int64_t tokens, int64_t bytes_per_element = 4);

}  // namespace pha::model
