// Selective scan: the input-dependent diagonal state-space recurrence of Mamba's S6 layer
// (Gu & Dao 2023, Algorithm 2), zero-order-hold A and Euler B as in the paper's code:
//
//   h_t[b,d,n] = exp(Delta[b,t,d] A[d,n]) h_{t-1}[b,d,n] + Delta[b,t,d] B[b,t,n] u[b,t,d]
//   y[b,t,d]   = sum_n C[b,t,n] h_t[b,d,n]                              h_{-1} = h0 (or 0)
//
// u, Delta: (B, T, D); A: (D, N); B, C: (B, T, N). The D skip, the gate and every projection
// live in the branch (engine/nn/selective_ssm_branch.h), not here.
//
// CPU kernel: sequential over T, parallel over (batch x chunks of channels); the state of one
// chunk (channels x N) lives in a small local buffer, so no (B, T, D, N) tensor exists.
// Backward is a reverse-time scan over the same chunks: the forward is recomputed from state
// checkpoints kept every kSegment steps (local to the task), then the segment's states are
// rebuilt and walked backwards. Parameter gradients (A, and B, C which every channel shares)
// are reduced from per-task partials in a fixed order: deterministic whatever the threads.
// Arithmetic in fp32 (fp64 when an input is fp64); bf16 inputs are computed in fp32 and the
// output is fp32. The dispatching function is differentiable (a custom autograd function);
// ref::selective_scan is the literal per-step loop in ATen ops (autograd differentiates it),
// the form the tests compare against and the path for CUDA tensors.
#pragma once

#include <ATen/ATen.h>

namespace pha::kernels {

// y (B, T, D) in the compute dtype (fp32, or fp64 when an input is fp64). Differentiable in
// every input.
at::Tensor selective_scan(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A,
                          const at::Tensor& B, const at::Tensor& C);

struct SelectiveScanResult {
  at::Tensor y;       // (B, T, D)
  at::Tensor h_last;  // (B, D, N) the state after the last position
};

// Forward only (no autograd), from a given state h0 (B, D, N) (undefined: zeros), also returning
// the final state: the prefill of incremental decoding.
SelectiveScanResult selective_scan_with_state(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A,
                                              const at::Tensor& B, const at::Tensor& C,
                                              const at::Tensor& h0 = at::Tensor());

// One step of the recurrence for decoding, in place on h (B, D, N): u, delta (B, D); B, C (B, N).
// Returns y (B, D). The same arithmetic as the scan (exp, multiply, add), so decoding follows
// the forward to rounding.
at::Tensor selective_scan_step(at::Tensor& h, const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A,
                               const at::Tensor& B, const at::Tensor& C);

namespace ref {

// The naive loop: for t in 0..T-1: h = exp(Delta_t A) * h + (Delta_t u_t) B_t; y_t = h . C_t,
// in plain ATen ops over (B, D, N) per step. Differentiable by autograd. Computes in the
// dtype selective_scan computes in.
at::Tensor selective_scan(const at::Tensor& u, const at::Tensor& delta, const at::Tensor& A,
                          const at::Tensor& B, const at::Tensor& C);

}  // namespace ref
}  // namespace pha::kernels
