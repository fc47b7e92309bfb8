#include "common/kernel_select.h"

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace pha::kernels {
namespace {

const std::vector<std::string>& op_names() {
  static const std::vector<std::string> names = {"attention", "gss_conv", "rope_cosine", "mix_norm", "adamw", "rms_norm", "rope", "swiglu"};
  return names;
}

const unsigned kAll = (1u << 8) - 1;

unsigned parse(const std::string& spec) {
  const std::string allowed = "allowed: fused, reference, or reference:<op>[,<op>...] with ops attention, "
                              "gss_conv, rope_cosine, mix_norm, adamw, rms_norm, rope, swiglu";
  if (spec.empty() || spec == "fused") return 0;
  if (spec == "reference") return kAll;
  const std::string prefix = "reference:";
  if (spec.rfind(prefix, 0) != 0) throw std::invalid_argument("kernels \"" + spec + "\" is not a selection; " + allowed);
  unsigned mask = 0;
  std::string rest = spec.substr(prefix.size());
  while (true) {
    const size_t comma = rest.find(',');
    const std::string name = rest.substr(0, comma);
    bool found = false;
    for (size_t i = 0; i < op_names().size(); ++i)
      if (op_names()[i] == name) {
        mask |= 1u << i;
        found = true;
      }
    if (!found) throw std::invalid_argument("kernels \"" + spec + "\": \"" + name + "\" is not an op; " + allowed);
    if (comma == std::string::npos) break;
    rest = rest.substr(comma + 1);
  }
  return mask;
}

std::atomic<unsigned>& selection() {
  static std::atomic<unsigned> mask = [] {
    const char* env = std::getenv("PHA_KERNELS");
    try {
      return parse(env ? env : "");
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("PHA_KERNELS: ") + e.what());
    }
  }();
  return mask;
}

}  // namespace

bool reference_kernel(KernelOp op) {
  return (selection().load(std::memory_order_relaxed) >> static_cast<unsigned>(op)) & 1u;
}

void select_kernels(const std::string& spec) { selection().store(parse(spec)); }

std::string kernel_selection() {
  const unsigned mask = selection().load();
  if (mask == 0) return "fused";
  if (mask == kAll) return "reference";
  std::string out = "reference:";
  for (size_t i = 0; i < op_names().size(); ++i)
    if ((mask >> i) & 1u) out += (out.back() == ':' ? "" : ",") + op_names()[i];
  return out;
}

}  // namespace pha::kernels
