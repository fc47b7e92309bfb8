// Training precision: what `training.precision` (fp32 | bf16 | auto) resolves to on a device,
// and why; the hardware checks; the GEMM rate per dtype (for MFU against the rate of the dtype
// that trains) and the measured bf16 speed-up `pha info --calibrate` reports. Plain C++ header:
// `pha info` and the runtime include it.
//
// auto is a fixed rule of the hardware, never a measurement (docs/model.md, "Precision"):
//   CPU:  fp32, always. The same project trains the same numbers on every CPU, idle or busy. A
//         decision by a stopwatch moved with the load of one moment (fp32 96 vs bf16 199 GFLOP/s
//         measured beside the test suite, 202 vs 216 idle, on the same host), and even a stored
//         calibration keeps whatever the first measurement saw. bf16 on a CPU is asked for
//         explicitly (training.precision "bf16"); `pha info --calibrate` measures, in
//         interleaved paired rounds, what it would gain here.
//   CUDA: bf16 on compute capability 8.0 or newer (sm80: A100, H100, ...), fp32 below.
// bf16 means mixed precision with fp32 master weights and fp32 AdamW state: the weight GEMMs
// and the elementwise work between them run in bf16; norms, softmax statistics, the mixer, the
// DSS kernel and FFT convolution, the attention core and the loss stay in fp32
// (docs/model.md, "Precision").
#pragma once

#include <string>

namespace pha::nn {

struct PrecisionChoice {
  std::string precision;  // "bf16" or "fp32": what trains
  std::string setting;    // what was asked: "auto", "bf16" or "fp32"
  std::string reason;     // why, in words ("auto: this CPU has AVX512-BF16 (avx512_bf16)")

  bool bf16() const { return precision == "bf16"; }
  // "bf16 mixed precision (auto: ...)" / "fp32 (auto: ...)": the log line's and pha info's text
  std::string text() const;
};

// `pha info --calibrate`'s advice: bf16 is worth asking for on a CPU when its GEMMs measure at
// least this multiple of fp32's (below it the casts around every bf16 GEMM eat the gain:
// pha-tiny's bf16 step was 1.3x fp32's where the GEMM rates differed 1.9x).
constexpr double kBf16WorthSpeedup = 1.25;

// The bf16 / fp32 GEMM speed-up measured so that other work on the machine cannot fake it:
// `rounds` rounds, each timing an fp32 and a bf16 product back to back (the order alternating),
// the ratio of each round's pair, their median. Other processes slow both members of a pair
// alike, so the ratio holds where the rates do not; the CPU time other processes took during the
// measurement is recorded beside it. Nothing is decided from it: auto is a fixed rule.
struct Bf16Speedup {
  double median = 0.0, low = 0.0, high = 0.0;  // of the per-round ratios
  double fp32_gflops = 0.0, bf16_gflops = 0.0; // medians of each dtype's rounds
  int rounds = 0;
  double others_busy_cores = 0.0;  // other processes' CPU time during the measurement / its wall time
  bool worth() const { return median >= kBf16WorthSpeedup; }
  std::string text() const;        // "bf16 GEMMs 2.91x fp32 (median of 9 interleaved rounds, 2.80-3.02; ...)"
};
Bf16Speedup measure_bf16_speedup(int rounds = 9, int n = 1024, const std::string& device = "cpu");

// setting: auto | fp32 | bf16; device: a resolved device ("cpu" or "cuda"). Throws core::Error
// (field training.precision) for another setting.
PrecisionChoice resolve_precision(const std::string& setting, const std::string& device);

// The native-bf16 CPU flags present ("avx512_bf16 amx_bf16"), empty when there are none.
std::string cpu_bf16_flags();

// n x n GEMM rate in GFLOP/s for dtype "fp32" or "bf16" on `device` ("cpu" or "cuda", as
// Trainer::resolve_device gives it): best of `repeats` timed products after one warm-up, the
// GPU synchronised around each (the bf16 figure is what bf16 MFU divides by). Throws
// core::Error for another dtype.
double measure_gemm_gflops_as(const std::string& dtype, int n = 2048, int repeats = 5,
                              const std::string& device = "cpu");

}  // namespace pha::nn
