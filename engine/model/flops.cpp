// Parameter, FLOP and memory accounting from the config (see flops.h for what each counts).
#include "model/flops.h"

#include <algorithm>
#include <cmath>

namespace pha::model {

namespace {

bool is_mixed(const SubLayer& s) { return s.branches.size() >= 2; }

int64_t linear(int64_t in, int64_t out, bool bias) { return in * out + (bias ? out : 0); }

// Weights of the linear maps only (what costs 2 FLOPs per weight per token).
int64_t gss_matmul_weights(const ModelConfig& c) {
  int64_t d = c.d_model, f = c.gss_expanded(), h = c.gss.reduced;
  return d * f + d * h + h * f + f * d;
}

// The selective SSM's linear maps: in_proj (x, z), x_proj (dt, B, C), dt_proj, out_proj.
int64_t selective_matmul_weights(const ModelConfig& c) {
  int64_t d = c.d_model, di = c.selective_inner(), r = c.selective_dt_rank(), n = c.selective.state;
  return d * 2 * di + di * (r + 2 * n) + r * di + di * d;
}

// The SSM slot's matmul weights, whichever SSM fills it.
int64_t ssm_matmul_weights(const ModelConfig& c) {
  return c.selective_ssm() ? selective_matmul_weights(c) : gss_matmul_weights(c);
}

int64_t attention_matmul_weights(const ModelConfig& c) {
  int64_t d = c.d_model, hd = c.head_dim(), hq = c.attention.heads, g = c.attention.kv_heads;
  return d * hq * hd + 2 * d * g * hd + hq * hd * d;
}

int64_t ffn_matmul_weights(const ModelConfig& c) {
  int64_t d = c.d_model, ff = c.d_ff(), aux = c.d_aux();
  return (c.ffn.kind == "swiglu" ? 3 : 2) * d * (ff + aux);  // swiglu: gate, value and down
}

// Real FFT of n points: 2.5 n log2 n (half of the usual 5 n log2 n complex estimate).
double rfft_flops(double n) { return 2.5 * n * std::log2(n); }

}  // namespace

int64_t gss_branch_params(const ModelConfig& c) {
  int64_t d = c.d_model, f = c.gss_expanded(), h = c.gss.reduced, n = c.gss.state;
  int64_t p = linear(d, f, false)    // W_u
              + linear(d, h, false)  // W_v
              + linear(h, f, false)  // W_g
              + linear(f, d, true);  // W_o
  p += 2 * n;                        // Lambda: Lre, Lim (shared across the H channels)
  p += 2 * h * n;                    // C: Cre, Cim
  p += h;                            // D skip
  if (c.gss.inner_norm) p += 2 * h;  // LayerNorm(H) weight + bias
  return p;
}

int64_t selective_branch_params(const ModelConfig& c) {
  int64_t di = c.selective_inner(), n = c.selective.state;
  return selective_matmul_weights(c)  // in_proj, x_proj, dt_proj, out_proj (no biases but dt_proj's)
         + di * c.selective.conv + di   // depthwise conv1d weight (Di, 1, conv) + bias
         + di                           // dt_proj bias
         + di * n                       // A_log
         + di;                          // D skip
}

int64_t ssm_branch_params(const ModelConfig& c) {
  return c.selective_ssm() ? selective_branch_params(c) : gss_branch_params(c);
}

int64_t attention_branch_params(const ModelConfig& c) {
  int64_t p = attention_matmul_weights(c);
  if (c.attention.kind != "softmax") p += c.attention.heads;  // learnable log-scale per head
  if (c.attention.bias) p += int64_t(c.attention.heads + 2 * c.attention.kv_heads) * c.head_dim() + c.d_model;
  return p;
}

// Main and aux FFN as one d -> d_ff + d_aux -> d pair: the sum of the two FFNs, whose two
// output biases would add up to one.
int64_t ffn_branch_params(const ModelConfig& c) {
  int64_t d = c.d_model, width = int64_t(c.d_ff()) + c.d_aux();
  const bool swiglu = c.ffn.kind == "swiglu";
  return linear(d, swiglu ? 2 * width : width, c.ffn.bias) + linear(width, d, c.ffn.bias);
}

ParamCount count_parameters(const ModelConfig& c) {
  ParamCount pc;
  const int64_t d = c.d_model;
  pc.embedding = int64_t(c.vocab_size) * d + (c.positions == "learned" ? int64_t(c.context) * d : 0);
  pc.head = c.tie_embeddings ? 0 : int64_t(c.vocab_size) * d;
  const int64_t residual_norm = c.norm == "rmsnorm" ? d : 2 * d;  // pre-norm's and the final norm
  pc.final_norm = residual_norm;
  const int64_t gss = ssm_branch_params(c), attn = attention_branch_params(c), ffn = ffn_branch_params(c);
  for (const auto& layer : c.layers) {
    LayerParams lp;
    lp.kind = layer.kind;
    for (const auto& s : layer.sublayers) {
      lp.norms += c.pre_norm() ? residual_norm : 2 * d;  // the norm before (pre) or the LayerNorm after (post)
      if (is_mixed(s) || c.branch_norm == "all") lp.norms += int64_t(s.branches.size()) * d;  // RMSNorm gain per branch
      if (is_mixed(s) && c.mixer == MixerMode::Learned) lp.mixer += int64_t(s.branches.size());
      for (Branch b : s.branches) {
        switch (b) {
          case Branch::Gss:
            lp.branches.gss += gss;
            pc.matmul += ssm_matmul_weights(c);
            break;
          case Branch::Attention:
            lp.branches.attention += attn;
            pc.matmul += attention_matmul_weights(c);
            break;
          case Branch::Ffn:
            lp.branches.ffn += ffn;
            pc.matmul += ffn_matmul_weights(c);
            break;
        }
      }
    }
    lp.total = lp.branches.sum() + lp.norms + lp.mixer;
    pc.branches.gss += lp.branches.gss;
    pc.branches.attention += lp.branches.attention;
    pc.branches.ffn += lp.branches.ffn;
    pc.norms += lp.norms;
    pc.mixer += lp.mixer;
    pc.layers.push_back(lp);
  }
  pc.non_embedding = pc.branches.sum() + pc.norms + pc.mixer + pc.final_norm;
  pc.total = pc.non_embedding + pc.embedding + pc.head;
  return pc;
}

FlopsEstimate estimate_flops(const ModelConfig& c, int seq_len, int batch) {
  FlopsEstimate e;
  e.seq_len = std::max(1, seq_len);
  e.batch = std::max(1, batch);
  const double t = e.seq_len, b = e.batch;
  const double h = c.gss.reduced, n_state = c.gss.state;
  const double n_fft = 2.0 * t;  // zero-padded to 2T: a linear, not circular, convolution
  // Per token, per GSS branch: rfft(z) + irfft per channel and sequence, the complex product
  // on T+1 bins, the D skip; rfft(K) and K itself are shared by the batch.
  double conv = h * (2.0 * rfft_flops(n_fft) + 6.0 * (t + 1) + rfft_flops(n_fft) / b) / t + 2.0 * h;
  double kernel = 4.0 * h * n_state / b;  // Re(C' E): two real multiply-adds per (h, n, t)
  if (c.selective_ssm()) {
    // Per token: the depthwise convolution (a multiply-add per tap and channel), then per
    // (channel, state): Delta A, exp, Delta u B (2), the state update (2), C . h (2); the D skip
    // (2 per channel). No kernel is built: Delta, B and C depend on the input.
    const double di = c.selective_inner();
    conv = 2.0 * c.selective.conv * di + 8.0 * di * c.selective.state + 2.0 * di;
    kernel = 0.0;
  }
  const double scores = 2.0 * 2.0 * c.attention.heads * c.head_dim() * (t + 1) / 2.0;

  Flops& f = e.forward;
  for (const auto& layer : c.layers) {
    double layer_flops = 0;
    for (const auto& s : layer.sublayers) {
      for (Branch br : s.branches) {
        switch (br) {
          case Branch::Gss: {
            double mm = 2.0 * ssm_matmul_weights(c);
            f.gss_matmul += mm, f.gss_conv += conv, f.gss_kernel += kernel;
            layer_flops += mm + conv + kernel;
            break;
          }
          case Branch::Attention: {
            double mm = 2.0 * attention_matmul_weights(c);
            f.attn_matmul += mm, f.attn_scores += scores;
            layer_flops += mm + scores;
            break;
          }
          case Branch::Ffn: {
            double mm = 2.0 * ffn_matmul_weights(c);
            f.ffn += mm;
            layer_flops += mm;
            break;
          }
        }
      }
    }
    e.layer_forward.push_back(layer_flops);
  }
  f.head = 2.0 * c.d_model * double(c.vocab_size);
  // Backward costs twice the forward for every term (gradients w.r.t. inputs and weights).
  e.training = f;
  for (double* x : {&e.training.gss_matmul, &e.training.gss_conv, &e.training.gss_kernel, &e.training.attn_matmul,
                    &e.training.attn_scores, &e.training.ffn, &e.training.head}) {
    *x *= 3.0;
  }
  return e;
}

MemoryEstimate estimate_memory(const ModelConfig& c, int batch, int seq_len, bool training) {
  const auto pc = count_parameters(c);
  MemoryEstimate m;
  constexpr int64_t kF32 = 4;
  m.weights = pc.total * kF32;
  if (training) {
    m.gradients = pc.total * kF32;
    m.optimizer = 2 * pc.total * kF32;
  }
  const int64_t tokens = int64_t(std::max(1, batch)) * std::max(1, seq_len);
  const int64_t d = c.d_model, f = c.gss_expanded(), h = c.gss.reduced;
  const int64_t hd = c.head_dim(), hq = c.attention.heads, g = c.attention.kv_heads;
  const int64_t t = std::max(1, seq_len);
  // Floats per token each branch keeps for backward (projections, activations, FFT buffers,
  // the materialized T x T scores and probabilities of eager attention).
  // S6: xz (2 Di), the convolution and its SiLU (2 Di), x_proj's output (R + 2N), dt_proj's
  // and Delta (2 Di), the scan output and + D x (2 Di), silu(z) and the gated product (2 Di).
  const int64_t gss_floats = c.selective_ssm() ? 10 * int64_t(c.selective_inner()) + c.selective_dt_rank() +
                                                     2 * int64_t(c.selective.state) + d
                                               : 4 * f + 10 * h + d;
  const int64_t attn_floats = (hq + 2 * g) * hd             // q, k, v
                              + 2 * (hq + g) * hd           // after RoPE, after normalize
                              + (g < hq ? 2 * hq * hd : 0)  // k, v expanded to the query heads
                              + 2 * hq * t                  // logits and probabilities (B, H_q, T, T)
                              + hq * hd + d;                // attention output, W_o output
  const int64_t ffn_floats = 2 * c.d_ff() + 2 * c.d_aux() + 2 * d;
  int64_t per_token = d;  // embedding output
  int64_t peak_sublayer = 0;
  for (const auto& layer : c.layers) {
    for (const auto& s : layer.sublayers) {
      int64_t sub = 2 * d;                                             // residual sum and LayerNorm output
      if (is_mixed(s)) sub += 2 * d * int64_t(s.branches.size()) + d;  // RMSNorm in/out, mix
      for (Branch br : s.branches) {
        sub += br == Branch::Gss ? gss_floats : br == Branch::Attention ? attn_floats : ffn_floats;
      }
      per_token += sub;
      peak_sublayer = std::max(peak_sublayer, sub);
    }
  }
  m.activations = (training ? per_token : peak_sublayer + d) * tokens * kF32;
  // Logits; training also keeps log-softmax and the logits' gradient.
  m.logits = (training ? 3 : 1) * tokens * int64_t(c.vocab_size) * kF32;
  return m;
}

DecodeMemory decode_memory(const ModelConfig& c, int64_t batch, int64_t tokens, int64_t bytes_per_element) {
  DecodeMemory m;
  for (const LayerSpec& layer : c.layers)
    for (const SubLayer& sub : layer.sublayers)
      for (Branch b : sub.branches) {
        if (b == Branch::Attention) ++m.attention_layers;
        if (b == Branch::Gss) ++m.gss_layers;
      }
  m.kv_bytes = 2LL * m.attention_layers * c.attention.kv_heads * c.head_dim() * tokens * batch * bytes_per_element;
  // S6: the state h (Di x N) and the convolution's window of the last conv - 1 inputs (Di each).
  const int64_t per_sequence = c.selective_ssm()
                                   ? int64_t(c.selective_inner()) * (c.selective.state + c.selective.conv - 1)
                                   : int64_t(c.gss.reduced) * c.gss.state * 2;
  m.gss_state_bytes = static_cast<int64_t>(m.gss_layers) * batch * per_sequence * bytes_per_element;
  return m;
}

}  // namespace pha::model
