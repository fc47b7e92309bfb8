// `pha info`: versions, threads, BLAS, measured GEMM rate, CUDA, installed data; the allocator
// policy, what training.precision auto resolves to and why, and the bf16 GEMM rate.
#include <cstdio>

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
                "Measure what bf16 gains over fp32 here (interleaved paired GEMM rounds, their median ratio): advice "
                "for training.precision \"bf16\"; auto never follows it (a fixed rule, nn/precision.h)");
  cmd->callback([&global, no_gemm, calibrate] {
    device::configure_threads(global.threads);
    auto info = device::collect_system_info(!*no_gemm);
    std::fputs(device::format_system_info(info).c_str(), stdout);
    std::printf("  allocator       %s\n", core::allocator_policy_text().c_str());
    std::printf("  BLAS kernels    %s\n", core::blas_core_policy_text().c_str());
    std::printf("  model kernels   %s (--kernels / PHA_KERNELS: fused, reference, reference:<op>,...)\n",
                kernels::kernel_selection().c_str());
    const std::string device = runtime::Trainer::resolve_device("auto");
    std::printf("  program         %s, commit %s (%s, %s)\n", core::build_info().version, core::build_info().commit,
                core::build_info().build_type, core::build_info().compiler);
    std::printf("  CPU             %s (%s)\n", device::cpu_model_name().c_str(), device::cpu_kernel_flags().c_str());
    if (*calibrate) {
      // Advice only: auto is a fixed rule, never decided by this figure (nn/precision.h).
      const nn::Bf16Speedup b = nn::measure_bf16_speedup(9, 1024, device);
      std::printf("  bf16 speed-up   %s\n", b.text().c_str());
      std::printf("                  %s\n",
                  b.worth() ? "at or above 1.25x: training.precision \"bf16\" is likely to train faster here (asked "
                              "for explicitly; auto stays fp32 on a CPU)"
                            : "below 1.25x: the casts around each bf16 product would eat the gain; fp32 is the better "
                              "choice here");
      if (b.others_busy_cores > 0.5)
        std::printf("                  other processes kept %.1f cores busy during it: each round pairs the two dtypes "
                    "back to back, so the ratio holds better than the rates, which are lower than idle\n",
                    b.others_busy_cores);
    }
    std::printf("  precision       training.precision auto on %s: %s\n", device.c_str(),
                nn::resolve_precision("auto", device).text().c_str());
    if (!*no_gemm && device == "cpu")
      std::printf("  bf16 GEMM       %.1f GFLOP/s (2048x2048, best of 5)\n", nn::measure_gemm_gflops_as("bf16"));
  });
}

}  // namespace pha::cli
