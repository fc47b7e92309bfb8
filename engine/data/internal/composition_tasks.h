// Seed 2's function-composition tasks (tasks-spec §4), "this workbench's versions": the
// paper's generators are not public, these follow its text. All take seq_len and an optional
// seq_len_min (T drawn per sample, left-padded with the pad id; uncounted).
//   ar_decode  keys [0,V/2), values [V/2,V), SEP V, PAD V+1: k v ... SEP q -> g(value(q)),
//              g a fixed random permutation of the values (from map_seed)
//   mkar       k1 k2 v triples, SEP V, PAD V+1: ... SEP q1 q2 -> v; the other triples share
//              exactly one key with (q1, q2)
//   needle     haystack uniform in [0,V) without k*; needle k* v* at a uniform place; query k*
//              last; target v*; PAD V
#pragma once

#include <memory>

#include "data/tasks/task.h"

namespace pha::data {

std::unique_ptr<TaskGenerator> make_ar_decode(const nlohmann::json& config);
std::unique_ptr<TaskGenerator> make_mkar(const nlohmann::json& config);
std::unique_ptr<TaskGenerator> make_needle(const nlohmann::json& config);

// The fixed permutation g of ar_decode: g[v - V/2] for a value v (exposed for checkers).
std::vector<int32_t> ar_decode_permutation(int32_t vocab_size, uint64_t map_seed);

}  // namespace pha::data
