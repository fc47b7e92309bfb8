// Internals of the hybrid lens shared by lens.cpp, lens_windows.cpp and lens_compare.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/job_data.h"
#include "runtime/lens.h"

namespace pha::runtime::detail {

// Text runs: windows of T tokens from the source's text (tokenized with the run's tokenizer) or
// from tokens [offset, offset + tokens] of the split, classes copyable / novel (the n-gram rule).
LensWindows text_windows(const JobData& data, const LensSource& src, int T);
// Task runs: examples [offset, offset + examples) of a held-out set, classes by position role.
LensWindows task_windows(const JobData& data, const LensSource& src, int64_t run_id);
// The T of the run's first held-out set.
int task_seq_len(const JobData& data);

// Copyable (1) or novel (0) for each position of one window: s = the window's input tokens
// followed by its last target (T + 1 tokens); position t predicts s[t + 1], which is copyable
// when the k-gram ending at s[t + 1] (k = min(n, t + 2)) occurred earlier in s.
std::vector<int8_t> copyable_classes(const std::vector<int32_t>& s, int n);

// Lags from the peak of |K| (over lags >= 1; lag 0 holds the skip D) until |K| stays at or below
// half the peak for good; +inf when it does not fall that far within the lags given.
float half_life(const float* abs_k, int lags);

// A token's text for display: valid UTF-8 kept, control characters and stray bytes escaped
// ("\n", "\t", "\x9f").
std::string display_token(const std::string& bytes);

}  // namespace pha::runtime::detail
