// Torch-linking test binaries run the OpenBLAS kernels the programs run (core/blas_core.h): the
// policy is applied while the binary's statics are initialised, before GoogleTest's main, from
// the command line in /proc/self/cmdline. Without it a test on a CPU that OpenBLAS does not
// recognise would train on the generic SSE3 kernels while the `pha` it starts does not.
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/blas_core.h"

namespace {

struct ApplyBlasCorePolicy {
  ApplyBlasCorePolicy() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> args;
    for (size_t i = 0; i < all.size();) {
      const size_t end = all.find('\0', i);
      args.push_back(all.substr(i, end == std::string::npos ? std::string::npos : end - i));
      if (end == std::string::npos) break;
      i = end + 1;
    }
    if (args.empty()) return;
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pha::apply_blas_core_policy_at_startup(argv.data());
  }
};

const ApplyBlasCorePolicy apply_blas_core_policy;

}  // namespace
