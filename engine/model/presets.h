// Named model configurations: the paper-scale PHA family and its baselines at 90M / 125M /
// 180M parameters (GPT-2 vocabulary), and the CPU-scale tiny family (byte vocabulary). Widths
// and the parameter count of each preset: docs/model-config.md ("Presets"). No torch.
#pragma once

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

// The preset's config, layers expanded and validated. Unknown name: pha::Error listing them.
ModelConfig preset(const std::string& name);

// One line on what the preset is for ("PHA, 10 x d=768, ...").
std::string preset_description(const std::string& name);

}  // namespace pha::model
