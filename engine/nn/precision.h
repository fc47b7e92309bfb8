// Training precision: what `training.precision` (fp32 | bf16 | auto) resolves to on a device,
// and why; the hardware checks behind `auto`; the GEMM rate per dtype (for MFU against the
// rate of the dtype that trains). Plain C++ header: `pha info` and the runtime include it.
//
// auto = bf16 where the hardware runs bf16 natively and faster, fp32 elsewhere:
//   CPU:  /proc/cpuinfo flags avx512_bf16 or amx_bf16 (without them bf16 is emulated and slower
//         than fp32), and bf16 GEMMs at least kAutoBf16MinSpeedup times the fp32 rate in this
//         machine's calibration. With AMX (and on the anchor machine) bf16 runs at about twice
//         fp32; on an AVX512-BF16 CPU without AMX whose fp32 GEMMs run on OpenBLAS's AVX-512
//         kernels it can be 4x slower (82 against 317 GFLOP/s on the reference VM,
//         docs/performance.md), and auto then trains fp32.
//         The calibration is measured once per machine (1024^3 GEMMs, best of 3, the thread
//         policy in effect) and stored in the data directory (calibration/precision.json, keyed
//         by CPU, flags, LibTorch, BLAS core and thread counts): every later process reads the
//         same rates, so auto never depends on how busy the machine is when a run starts. A
//         decision taken by a stopwatch in each process flipped between bf16 and fp32 on a
//         loaded machine (docs/search.md, "Determinism"). `pha info --calibrate` measures again.
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

// bf16 GEMMs must measure at least this multiple of the fp32 rate for auto to pick bf16 on a CPU
// with native bf16: below it the casts around every bf16 GEMM eat the gain (pha-tiny's bf16 step
// was 1.3x fp32's where the GEMM rates differed 1.9x).
constexpr double kAutoBf16MinSpeedup = 1.25;

struct GemmRates {
  double fp32 = 0.0, bf16 = 0.0;  // GFLOP/s
};

// auto on a CPU: flags = cpu_bf16_flags(); rates measured only when flags is not empty. Pure:
// resolve_precision passes this process's measurement.
PrecisionChoice auto_cpu_precision(const std::string& flags, const GemmRates& rates);

// The machine's stored calibration for auto (see the top of this file).
struct PrecisionCalibration {
  GemmRates rates;
  std::string key;          // what the rates are for: "AMD EPYC | avx512_bf16 | torch 1.13.0 | ..."
  std::string file;         // where they are stored ("" when they could not be)
  std::string measured_at;  // UTC, "2026-12-05 09:40:12"
  bool measured_now = false;  // this call measured them (none were stored for this key)
  double load_average = -1.0; // the 1-minute load average when they were measured (-1: unknown);
                              // figures taken on a busy machine are worth measuring again
  std::string problem;        // why they could not be stored, when they could not
};

// The rates auto compares, for this machine and the thread counts in effect: read from the
// calibration file, or measured (1024^3 products, best of 3 after a warm-up) and stored there
// when it has none for this key. Concurrent processes measure once (a lock on the file).
// `remeasure`: measure and store again (`pha info --calibrate`). When the data directory cannot
// be written, the rates measured in this process are used and `problem` says so.
PrecisionCalibration precision_calibration(bool remeasure = false);

// The calibration key of this machine and thread policy.
std::string precision_calibration_key();

// setting: auto | fp32 | bf16; device: a resolved device ("cpu" or "cuda"). Throws pha::Error
// (field training.precision) for another setting.
PrecisionChoice resolve_precision(const std::string& setting, const std::string& device);

// The native-bf16 CPU flags present ("avx512_bf16 amx_bf16"), empty when there are none.
std::string cpu_bf16_flags();

// n x n GEMM rate in GFLOP/s for dtype "fp32" or "bf16" on `device` ("cpu" or "cuda", as
// Trainer::resolve_device gives it): best of `repeats` timed products after one warm-up, the
// GPU synchronised around each (the bf16 figure is what bf16 MFU divides by). Throws
// pha::Error for another dtype.
double measure_gemm_gflops_as(const std::string& dtype, int n = 2048, int repeats = 5,
                              const std::string& device = "cpu");

}  // namespace pha::model
