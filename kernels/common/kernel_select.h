// Which implementation each hot op runs: its fused kernel (the default) or its reference (the
// unfused ATen composition in namespace ref, the form the fused kernels are tested against).
// Chosen at run time, for the whole process:
//   PHA_KERNELS=fused | reference | reference:attention,gss_conv,...   (read on first use)
//   `pha --kernels reference ...`, or select_kernels() in a test.
// The ops: attention (causal / cosine attention core), gss_conv (DSS kernel generation and the
// FFT causal convolution), rope_cosine, mix_norm, adamw, rms_norm, rope and swiglu (llama_ops). The references are slower (attention
// materialises the (B, Hq, T, S) scores; the DSS kernel is the literal complex form) and are
// meant for checking numerics, not for training speed. docs/model.md, "Reference kernels".
#pragma once

#include <string>

namespace pha::kernels {

enum class KernelOp { Attention = 0, GssConv, RopeCosine, MixNorm, AdamW, RmsNorm, Rope, Swiglu };

// True when `op` runs its reference implementation.
bool reference_kernel(KernelOp op);

// Sets the selection from "fused", "reference" or "reference:<op>[,<op>...]"; throws
// std::invalid_argument naming the bad value and what is allowed (the selection is unchanged).
void select_kernels(const std::string& spec);

// The selection now, in select_kernels' form ("fused", "reference", "reference:attention").
std::string kernel_selection();

}  // namespace pha::kernels
