// `pha info`: versions, threads, BLAS, measured GEMM rate, CUDA, installed data.
#include <cstdio>

#include "commands.h"
#include "core/allocator.h"
#include "core/system_info.h"

namespace pha::cli {

void add_info_command(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("info", "Show LibTorch, threads, BLAS, measured GEMM rate, CUDA and data");
  auto no_gemm = std::make_shared<bool>(false);
  cmd->add_flag("--no-gemm", *no_gemm, "Skip the GEMM measurement");
  cmd->callback([&global, no_gemm] {
    configure_threads(global.threads);
    auto info = collect_system_info(!*no_gemm);
    std::fputs(format_system_info(info).c_str(), stdout);
    std::printf("%s\n", allocator_policy_text().c_str());
  });
}

}  // namespace pha::cli
