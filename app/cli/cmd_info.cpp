// `pha info`: versions, threads, BLAS, measured GEMM rate, CUDA, installed data; the allocator
// policy, what training.precision auto resolves to and why, and the bf16 GEMM rate.
#include <cstdio>

#include "common/kernel_select.h"
#include "commands.h"
#include "core/allocator.h"
#include "core/blas_core.h"
#include "device/system_info.h"
#include "model/precision.h"
#include "runtime/trainer.h"

namespace pha::cli {

void add_info_command(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("info", "Show LibTorch, threads, BLAS, measured GEMM rate, CUDA and data");
  auto no_gemm = std::make_shared<bool>(false);
  cmd->add_flag("--no-gemm", *no_gemm, "Skip the GEMM measurement");
  cmd->callback([&global, no_gemm] {
    configure_threads(global.threads);
    auto info = collect_system_info(!*no_gemm);
    std::fputs(format_system_info(info).c_str(), stdout);
    std::printf("  allocator       %s\n", allocator_policy_text().c_str());
    std::printf("  BLAS kernels    %s\n", blas_core_policy_text().c_str());
    std::printf("  model kernels   %s (--kernels / PHA_KERNELS: fused, reference, reference:<op>,...)\n",
                kernels::kernel_selection().c_str());
    const std::string device = runtime::Trainer::resolve_device("auto");
    std::printf("  precision       training.precision auto on %s: %s\n", device.c_str(),
                model::resolve_precision("auto", device).text().c_str());
    if (!*no_gemm && device == "cpu")
      std::printf("  bf16 GEMM       %.1f GFLOP/s (2048x2048, best of 5)\n", model::measure_gemm_gflops_as("bf16"));
  });
}

}  // namespace pha::cli
