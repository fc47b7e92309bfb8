// Helpers shared by the task generators (internal to engine/data/tasks).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/config_reader.h"
#include "core/limits.h"
#include "data/rng.h"
#include "data/tasks/task.h"

namespace pha::data::detail {

// Reads "task" (already checked by make_task), "seed" and "num_examples".
inline void read_common(core::ConfigReader& r, TaskInfo& info, uint64_t& seed, int64_t default_examples) {
  info.name = r.get_string("task", info.name);
  seed = static_cast<uint64_t>(r.get_int("seed", 0, 0, INT64_MAX));
  info.num_examples = r.get_int("num_examples", default_examples, 1, core::limits::kMaxTaskExamples, core::limits::kNote);
}

// k distinct integers from [lo, hi), in random order (Floyd's algorithm, then shuffled).
inline void sample_distinct(Rng& rng, int32_t lo, int32_t hi, int k, std::vector<int32_t>& out) {
  out.clear();
  const int64_t n = static_cast<int64_t>(hi) - lo;
  for (int64_t j = n - k; j < n; ++j) {
    int32_t t = lo + static_cast<int32_t>(rng.below(static_cast<uint64_t>(j + 1)));
    if (std::find(out.begin(), out.end(), t) != out.end()) t = lo + static_cast<int32_t>(j);
    out.push_back(t);
  }
  for (size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[rng.below(i)]);
}

// Fills inputs[0..pad) with `pad_id` and targets there with kIgnore.
inline void left_pad(int32_t* inputs, int32_t* targets, int pad, int32_t pad_id) {
  std::fill(inputs, inputs + pad, pad_id);
  std::fill(targets, targets + pad, kIgnore);
}

}  // namespace pha::data::detail
