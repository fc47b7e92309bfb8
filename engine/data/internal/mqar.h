// Zoology's multi-query associative recall (tasks-spec §2), following zoology's
// multiquery_ar(): kv pairs, then the keys queried again at power-law distributed slots.
#pragma once

#include <memory>

#include "data/tasks/task.h"

namespace pha::data {

// Params (defaults): vocab_size 8192, seq_len 64, num_kv_pairs 4, power_a 0.01,
// random_non_queries true, num_examples 100000, seed 0.
std::unique_ptr<TaskGenerator> make_mqar(const nlohmann::json& config);

}  // namespace pha::data
