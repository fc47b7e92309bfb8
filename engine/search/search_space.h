// Trials of a search: layer patterns generated from their constraints, and the trials a grid or a
// seeded random sampler draws from a SearchSpec, each with the merge patch that applies it to a
// project's model and training sections. Deterministic everywhere: the same spec, count and
// stream give the same trials on every machine (an own xoshiro256** PRNG, no
// std::*_distribution). Plain C++: no torch, no I/O.
//
//   const auto spec = search::SearchSpec::from_json(section);
//   for (const search::Trial& t : search::generate_trials(spec, spec.sampler.trials)) {
//     json config = base;                // {"model": ..., "training": ...}
//     config.merge_patch(t.patch);       // t.label: "lr=0.001,warmup_steps=10,layers=gss-attn"
//   }
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/search_spec.h"

namespace pha::search {

// Every layer kind token a pattern may use, in canonical order.
const std::vector<std::string>& layer_kind_tokens();
// The canonical token for `token` ("gss+attn+ffn" -> "parallel"); a core::Error at `where` for
// anything else (unknown kinds, branch subsets out of order or of one branch).
std::string normalise_layer_kind(const std::string& token, const std::string& where);
// parallel, sequential, attn, or a subset with attn.
bool carries_attention(const std::string& kind);

// The patterns `space` allows (n_layers, kinds, attention, first, last, symmetric), in
// lexicographic order over `kinds` as listed (the first layer varies slowest; fixed layers have
// one choice). With `max` > 0 and N > max candidates, the candidates of lexicographic indices
// floor(i * N / max), i = 0..max-1, are taken: evenly spaced, always including the first.
// Counting and indexing use exact big integers, so 7^64 candidates are fine. An explicit
// `list` is returned as it is. Throws (at "search.patterns...") when nothing satisfies the
// constraints, or when max is 0 and more than kMaxTrials patterns do.
std::vector<std::vector<std::string>> generate_patterns(const PatternSpace& space);
// The number of patterns satisfying the constraints (before `max`), saturated at INT64_MAX.
int64_t count_patterns(const PatternSpace& space);

// The builder's model.layers: plain kinds as strings ("gss"), a subset "attn+ffn" as
// {"kind": "parallel", "sublayers": [["attn", "ffn"]]}.
nlohmann::json pattern_to_layers(const std::vector<std::string>& pattern);

struct Trial {
  int index = 0;         // 0-based within the call that generated it
  nlohmann::json values;  // {"training.lr": 0.001, "pattern": ["gss", "attn"]}
  // Merge patch {"model": {...}, "training": {...}}; a pattern sets model.variant "pattern",
  // model.n_layers and model.layers.
  nlohmann::json patch;
  // "lr=0.001,warmup_steps=10,layers=gss-attn-gss": the last key segment (the whole key after
  // its section when two keys share one), numbers in shortest round-trip form.
  std::string label;
};

// grid: the Cartesian product of the space keys' choices (alphabetical key order, the first key
// varying slowest) and then the patterns (varying fastest); `count` and `stream` are ignored.
// random: `count` (>= 1) trials drawn from a PRNG seeded by sampler.seed and `stream` (one
// stream per Hyperband bracket): per trial the keys in order, then the pattern. uniform is
// lo + u (hi - lo); log_uniform uniform in log space; int inclusive; choices and patterns
// uniformly. Draws are independent, so two random trials may be equal.
std::vector<Trial> generate_trials(const SearchSpec& spec, int count, uint64_t stream = 0);

// The grid's size (product of the choice counts and the pattern count), saturated at INT64_MAX.
int64_t grid_size(const SearchSpec& spec);

}  // namespace pha::search
