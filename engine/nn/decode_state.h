// DecodeState: everything incremental decoding carries between tokens. Per sub-layer: the GSS
// recurrent state (complex, kept as real and imaginary parts, O(H*N) whatever the context) or
// the S6 state (its convolution window and state, O(Di*(N + conv - 1))), and
// the attention KV cache (G heads: GQA's memory saving). Created by PhaModel::new_state.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/ATen.h>

namespace pha::nn {

struct GssState {
  at::Tensor s_re, s_im;  // (B, H, N); undefined before the first token
};

// The selective SSM's (S6) decoding state: the last conv - 1 inputs of its causal convolution
// and the recurrent state, both O(1) in the context.
struct S6State {
  at::Tensor conv;  // (B, Di, conv - 1) pre-convolution inputs, oldest first
  at::Tensor h;     // (B, Di, N); both undefined before the first token
};

struct KvCache {
  at::Tensor k, v;  // (B, capacity, G, hd); keys stored after RoPE and normalisation
  int64_t len = 0;
  // Tokens to allocate for at the first append (0: none). A cache reserved for the whole
  // prompt plus generation is allocated once, at exactly its formula's size
  // (model::decode_memory), and never copied while it fills.
  int64_t reserve = 0;

  // Appends (B, t, G, hd) keys and values: into the reserved capacity while it lasts, then
  // growing the capacity by doubling.
  void append(const at::Tensor& k_new, const at::Tensor& v_new);
  at::Tensor keys() const { return k.narrow(1, 0, len); }    // (B, len, G, hd)
  at::Tensor values() const { return v.narrow(1, 0, len); }  // (B, len, G, hd)
};

struct SublayerState {
  GssState gss;
  S6State s6;  // used instead of gss when the model's ssm is "s6"
  KvCache kv;
};

struct DecodeState {
  int64_t batch = 0;
  int64_t position = 0;     // tokens consumed so far (the RoPE position of the next token)
  std::vector<std::vector<SublayerState>> layers;  // [layer][sublayer]

  bool empty() const { return position == 0; }
  // Bytes the state's tensors hold now: the KV caches' allocated capacity (k and v) and the
  // SSM states (GSS: real and imaginary parts; S6: the state and the convolution window).
  // Measured from the tensors, not from a formula.
  int64_t kv_cache_bytes() const;
  int64_t gss_state_bytes() const;
  void reset();  // back to position 0, states and caches dropped
};

}  // namespace pha::nn
