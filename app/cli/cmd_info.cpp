// `pha info`: versions, threads, BLAS, measured GEMM rate, CUDA, installed data; the allocator
// policy, what training.precision auto resolves to and why, and the bf16 GEMM rate.
#include <cstdio>
#include <thread>

#include "common/kernel_select.h"
#include "commands.h"
#include "core/allocator.h"
#include "core/blas_core.h"
#include "core/build_info.h"
#include "device/provenance.h"
#include "device/system_info.h"
#include "nn/precision.h"
#include "runtime/trainer.h"

namespace pha::cli {

void add_info_command(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("info", "Show LibTorch, threads, BLAS, measured GEMM rate, CUDA and data");
  auto no_gemm = std::make_shared<bool>(false);
  auto calibrate = std::make_shared<bool>(false);
  cmd->add_flag("--no-gemm", *no_gemm, "Skip the GEMM measurement");
  cmd->add_flag("--calibrate", *calibrate,
                "Measure this machine's bf16 and fp32 GEMM rates again and store them: training.precision auto "
                "decides from the stored figures (nn/precision.h)");
  cmd->callback([&global, no_gemm, calibrate] {
    configure_threads(global.threads);
    auto info = collect_system_info(!*no_gemm);
    std::fputs(format_system_info(info).c_str(), stdout);
    std::printf("  allocator       %s\n", allocator_policy_text().c_str());
    std::printf("  BLAS kernels    %s\n", blas_core_policy_text().c_str());
    std::printf("  model kernels   %s (--kernels / PHA_KERNELS: fused, reference, reference:<op>,...)\n",
                kernels::kernel_selection().c_str());
    const std::string device = runtime::Trainer::resolve_device("auto");
    std::printf("  program         %s, commit %s (%s, %s)\n", build_info().version, build_info().commit,
                build_info().build_type, build_info().compiler);
    std::printf("  CPU             %s (%s)\n", cpu_model_name().c_str(), cpu_kernel_flags().c_str());
    if (device == "cpu" && !model::cpu_bf16_flags().empty()) {
      const model::PrecisionCalibration c = model::precision_calibration(*calibrate);
      std::printf("  calibration     bf16 %.0f GFLOP/s, fp32 %.0f GFLOP/s (%.2fx), %s %s UTC; %s\n", c.rates.bf16,
                  c.rates.fp32, c.rates.fp32 > 0 ? c.rates.bf16 / c.rates.fp32 : 0.0,
                  c.measured_now ? "measured now," : "measured", c.measured_at.c_str(),
                  c.file.empty() ? ("not stored: " + c.problem).c_str()
                                 : ("stored in " + c.file + " (pha info --calibrate measures again)").c_str());
      std::printf("                  for %s\n", c.key.c_str());
      const double cores = static_cast<double>(std::thread::hardware_concurrency());
      if (c.load_average > 0.5 * cores)
        std::printf("                  measured at load average %.1f on %.0f cores: other work shared the CPU, so the ratio "
                    "may not be this machine's; run `pha info --calibrate` on a quiet machine\n",
                    c.load_average, cores);
    } else if (*calibrate) {
      std::printf("  calibration     none needed: auto on %s does not measure (%s)\n", device.c_str(),
                  device == "cpu" ? "no native bf16 on this CPU" : "the GPU's compute capability decides");
    }
    std::printf("  precision       training.precision auto on %s: %s\n", device.c_str(),
                model::resolve_precision("auto", device).text().c_str());
    if (!*no_gemm && device == "cpu")
      std::printf("  bf16 GEMM       %.1f GFLOP/s (2048x2048, best of 5)\n", model::measure_gemm_gflops_as("bf16"));
  });
}

}  // namespace pha::cli
