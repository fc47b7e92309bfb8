// Training precision: what `training.precision` (fp32 | bf16 | auto) resolves to on a device,
// and why; the hardware checks behind `auto`; the GEMM rate per dtype (for MFU against the
// rate of the dtype that trains). Plain C++ header: `pha info` and the runtime include it.
//
// auto = bf16 where the hardware runs bf16 natively, fp32 elsewhere:
//   CPU:  /proc/cpuinfo flags avx512_bf16 or amx_bf16 (oneDNN's bf16 GEMMs then run at about
//         twice the fp32 rate; without them bf16 is emulated and slower than fp32)
//   CUDA: compute capability 8.0 or newer (sm80: A100, H100, ...)
// bf16 means mixed precision with fp32 master weights and fp32 AdamW state: the weight GEMMs
// and the elementwise work between them run in bf16; norms, softmax statistics, the mixer, the
// DSS kernel and FFT convolution, the attention core and the loss stay in fp32
// (docs/model.md, "Precision").
#pragma once

#include <string>

namespace pha::model {

struct PrecisionChoice {
  std::string precision;  // "bf16" or "fp32": what trains
  std::string setting;    // what was asked: "auto", "bf16" or "fp32"
  std::string reason;     // why, in words ("auto: this CPU has AVX512-BF16 (avx512_bf16)")

  bool bf16() const { return precision == "bf16"; }
  // "bf16 mixed precision (auto: ...)" / "fp32 (auto: ...)": the log line's and pha info's text
  std::string text() const;
};

// setting: auto | fp32 | bf16; device: a resolved device ("cpu" or "cuda"). Throws pha::Error
// (field training.precision) for another setting.
PrecisionChoice resolve_precision(const std::string& setting, const std::string& device);

// The native-bf16 CPU flags present ("avx512_bf16 amx_bf16"), empty when there are none.
std::string cpu_bf16_flags();

// n x n GEMM rate in GFLOP/s for dtype "fp32" or "bf16" on the CPU: best of `repeats` timed
// products after one warm-up (the bf16 figure is what bf16 MFU divides by).
double measure_gemm_gflops_as(const std::string& dtype, int n = 2048, int repeats = 5);

}  // namespace pha::model
