// Equal parameters: a searched model (a pattern with more attention, a wider GSS state) is
// brought to a target parameter count by its FFN width, so trials compare architectures rather
// than sizes. Counting is model/flops.h's (exactly the tensors the builder creates). No torch.
//
//   const ParamFit fit = fit_params(model_json, 1286172, 0.03);
//   if (!fit.ok) skip the trial (fit.note says why);
//   else run with fit.model  // fit.note: "d_ff 512 -> 448: 1,280,004 params (-0.5% of 1,286,172)"
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace pha::search {

struct ParamFit {
  bool ok = false;
  nlohmann::json model;  // the model section to run (unchanged when already within tolerance)
  int64_t params = 0;    // its parameter count (the closest reached when not ok)
  std::string note;      // for people: what changed and the count, or why it is impossible
};

// `model_json`: a complete model section (no "preset"; errors are the model parser's, at
// "model..."). Within |params - target| <= tolerance * target it is returned as it is. Otherwise
// ffn.d_ff is set to the multiple of 8 in 8..16 * d_model whose total is closest to the target
// (the smaller on a tie); ok when that is within tolerance. A model without an FFN branch cannot
// be adjusted (not ok). Throws core::Error for target <= 0 or tolerance outside (0, 0.5].
ParamFit fit_params(const nlohmann::json& model_json, int64_t target, double tolerance);

// "1,286,172"
std::string grouped(int64_t n);

}  // namespace pha::search
