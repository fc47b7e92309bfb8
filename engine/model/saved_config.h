// Saved model configs compared with today's (plain data, no torch): which ones describe the
// same model. Implemented in model_config.cpp.
#pragma once

#include <nlohmann/json.hpp>

#include "model/model_config.h"

namespace pha::model {

// True when some sub-layer has a single branch (only there does branch_norm change the model).
bool has_single_branch_sublayer(const ModelConfig& config);
// The canonical JSON of a saved model config (saved defaults applied, every key written, a
// branch_norm that changes nothing written as "all"), for asking "was this run trained with
// this model?"; a config that does not parse comes back as it is.
nlohmann::json canonical_model_json(nlohmann::json model_json);

}  // namespace pha::model
