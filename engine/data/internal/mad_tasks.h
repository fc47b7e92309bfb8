// The MAD suite's synthetic tasks (Mechanistic Architecture Design), as tasks-spec §3 defines
// them. Token layout per task (V = vocab_size param; reported vocab may add special ids):
//   in-context recall  keys [0,V/2), values [V/2,V); T/2 pairs; target at a key = its value
//   noisy recall       as above; noise tokens [V, V+noise_vocab_size); vocab V+noise
//   fuzzy recall       key/value tuples of 1-3 tokens; pad id V (left padding); vocab V+1
//   selective copying  content [0,V-2), blank V-2, copy V-1
//   memorization       keys [0,V/2) -> values [V/2,V) fixed by map_seed; insert token V; vocab V+1
// MAD's compression task is not offered: it needs an encoder/decoder head (task.cpp, refused()).
#pragma once

#include <memory>

#include "data/tasks/task.h"

namespace pha::data {

std::unique_ptr<TaskGenerator> make_mad_in_context_recall(const nlohmann::json& config);
std::unique_ptr<TaskGenerator> make_mad_noisy_recall(const nlohmann::json& config);
std::unique_ptr<TaskGenerator> make_mad_fuzzy_recall(const nlohmann::json& config);
std::unique_ptr<TaskGenerator> make_mad_selective_copy(const nlohmann::json& config);
std::unique_ptr<TaskGenerator> make_mad_memorization(const nlohmann::json& config);
// Seed 2's selective copying: the MAD generator with T drawn in [seq_len_min, seq_len] (left
// padded with blanks); defaults V 16, T 20..50, n 8.
std::unique_ptr<TaskGenerator> make_seed2_selective_copy(const nlohmann::json& config);

}  // namespace pha::data
