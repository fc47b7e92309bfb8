// fit_params (param_constraint.h): a scan of the FFN width, counted analytically.
#include "search/param_constraint.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/config_reader.h"
#include "core/error.h"
#include "model/flops.h"
#include "model/model_config.h"

namespace pha::search {

using json = nlohmann::json;

namespace {

int64_t total_params(const model::ModelConfig& c) { return model::count_parameters(c).total; }

bool within(int64_t params, int64_t target, double tolerance) {
  return std::fabs(static_cast<double>(params - target)) <= tolerance * static_cast<double>(target);
}

// "1,280,004 params (-0.5% of 1,286,172)"
std::string count_text(int64_t params, int64_t target) {
  char pct[32];
  std::snprintf(pct, sizeof pct, "%+.1f%%", 100.0 * static_cast<double>(params - target) / static_cast<double>(target));
  return grouped(params) + " params (" + pct + " of " + grouped(target) + ")";
}

bool has_ffn(const model::ModelConfig& c) {
  for (const auto& layer : c.layers)
    for (const auto& sub : layer.sublayers)
      for (model::Branch b : sub.branches)
        if (b == model::Branch::Ffn) return true;
  return false;
}

}  // namespace

std::string grouped(int64_t n) {
  std::string digits = std::to_string(std::llabs(n)), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

ParamFit fit_params(const json& model_json, int64_t target, double tolerance) {
  if (target <= 0) throw core::Error("search.equal_params.target", std::to_string(target) + " is out of range; allowed: 1 or more");
  if (!(tolerance > 0) || tolerance > 0.5)
    core::ConfigReader::out_of_range("search.equal_params.tolerance", core::format_number(tolerance), "> 0 and <= 0.5");
  model::ModelConfig c = model::model_config_from_json(model_json, "model");
  ParamFit fit;
  fit.model = model_json;
  fit.params = total_params(c);
  const std::string allowed = "; allowed: within " + core::format_number(100 * tolerance) + "%";
  if (within(fit.params, target, tolerance)) {
    fit.ok = true;
    fit.note = count_text(fit.params, target) + ": within " + core::format_number(100 * tolerance) + "%";
    return fit;
  }
  if (!has_ffn(c)) {
    fit.note = "no FFN branch to resize: " + count_text(fit.params, target) + allowed;
    return fit;
  }
  const int from = c.d_ff();
  int best = 0;
  int64_t best_params = 0;
  for (int d_ff = 8; d_ff <= 16 * c.d_model; d_ff += 8) {  // counts grow with d_ff: the first of a tie is the smaller
    c.ffn.d_ff = d_ff;
    const int64_t p = total_params(c);
    if (best == 0 || std::llabs(p - target) < std::llabs(best_params - target)) best = d_ff, best_params = p;
  }
  fit.model["ffn"]["d_ff"] = best;
  fit.params = total_params(model::model_config_from_json(fit.model, "model"));
  fit.ok = within(fit.params, target, tolerance);
  fit.note = "d_ff " + std::to_string(from) + " -> " + std::to_string(best) + ": " + count_text(fit.params, target) +
             (fit.ok ? "" : " is the closest" + allowed);
  return fit;
}

}  // namespace pha::search
