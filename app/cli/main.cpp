// `pha`: headless entry point. Parses the command line and runs one sub-command; engine
// errors become a one-line message naming the field or file, and a documented exit code.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>

#include "commands.h"
#include "core/allocator.h"
#include "core/blas_core.h"
#include "core/error.h"
#include "common/kernel_select.h"

int main(int argc, char** argv) {
  pha::core::apply_blas_core_policy_at_startup(argv);  // may re-run the program with OPENBLAS_CORETYPE set
  pha::core::apply_allocator_policy_at_startup();  // before the first large allocation
  CLI::App app{"pha: PHA Workbench headless engine (train, evaluate, benchmark, inspect)"};
  app.require_subcommand(1);
  pha::cli::GlobalOptions global;
  app.add_option("--threads", global.threads, "Threads for LibTorch and BLAS (default: $PHA_THREADS, else the policy `pha info` shows)")
      ->check(CLI::NonNegativeNumber);
  // The kernels' implementation (kernels/common/kernel_select.h); exported as PHA_KERNELS so that
  // the worker processes (data-parallel ranks, profile points, search workers) run the same.
  app.add_option("--kernels", "fused (default), reference, or reference:<op>[,<op>...] (ops: attention, gss_conv, "
                              "rope_cosine, mix_norm, adamw): the unfused reference forms, for checking numerics "
                              "(default: $PHA_KERNELS)")
      ->each([](const std::string& v) {
        try {
          pha::kernels::select_kernels(v);
        } catch (const std::invalid_argument& e) {
          throw CLI::ValidationError("--kernels", e.what());
        }
        setenv("PHA_KERNELS", v.c_str(), 1);
      });

  pha::cli::add_info_command(app, global);
  pha::cli::add_model_commands(app, global);
  pha::cli::add_data_commands(app, global);
  pha::cli::add_train_commands(app, global);
  pha::cli::add_eval_command(app, global);
  pha::cli::add_lens_command(app, global);
  pha::cli::add_runs_commands(app, global);
  pha::cli::add_report_command(app, global);
  pha::cli::add_plan_command(app, global);
  pha::cli::add_search_command(app, global);
  pha::cli::add_bench_commands(app, global);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : pha::cli::kUsage;
  } catch (const pha::cli::ExitWith& e) {
    return e.code;
  } catch (const pha::core::Error& e) {
    std::fprintf(stderr, "pha: error: %s\n", e.what());
    return pha::cli::kBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pha: error: %s\n", e.what());
    return pha::cli::kFailure;
  }
  return pha::cli::kOk;
}
