// Named model configurations: the paper-scale PHA family and its baselines at 90M / 125M /
// 180M parameters (GPT-2 vocabulary), and two CPU-scale families of equal-budget companions,
// `*-tiny` (about 1.3M) and `*-small` (about 5M), byte vocabulary. Widths, budgets and the
// parameter count of each preset: docs/model-config.md ("Presets"). No torch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model_config.h"

namespace pha::model {

// Vocabulary of the tiny presets: 256 byte values plus 4 special ids (256..259) that the byte
// tokenizer may assign (end of text, padding, ...); unused ids cost 4 x 128 parameters.
constexpr int kByteVocabSize = 260;
constexpr int kGpt2VocabSize = 50257;

// Every preset name, paper scale first, then the tiny family.
std::vector<std::string> preset_names();

// The preset's config, layers expanded and validated. Unknown name: core::Error listing them.
ModelConfig preset(const std::string& name);

// One line on what the preset is for ("PHA, 10 x d=768, ...").
std::string preset_description(const std::string& name);

// The parameter budget a preset was built to: a reference preset whose count it matches within
// 3% (a companion: "pha-tiny"), or a nominal size (paper scale: 90M), or neither (a reference
// itself, pha-d512). `scaled` names the dimensions changed from the reference to meet it, each
// one of preset_dimensions(); empty when the widths are the reference's.
struct PresetBudget {
  std::string reference;            // preset name, or ""
  int64_t nominal = 0;              // parameters, or 0
  std::vector<std::string> scaled;  // "depth", "d_ff", "GSS F", "GSS N"
};
PresetBudget preset_budget(const std::string& name);
const std::vector<std::string>& preset_dimensions();
// The value of one of preset_dimensions() in `config` (depth: n_layers).
int preset_dimension(const ModelConfig& config, const std::string& dimension);
// "pha-tiny +0.2%: depth 4->6, d_ff 512->496", "90M +0.2%: depth 6", "reference" or "-".
std::string preset_budget_text(const std::string& name);

}  // namespace pha::model
