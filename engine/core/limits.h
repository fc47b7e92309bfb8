// Limits on the config values that scale the work a run or a measurement asks for. A value past
// one is refused when the project is loaded, with the field, the value and the allowed range,
// instead of being accepted and then running for hours with no estimate. They are generous for
// paper-scale GPU projects (pha-125m, T = 1024 to 8192, 100k+ steps) and refuse only absurd
// values. The table with the reasoning: docs/project-format.md, "Limits".
#pragma once

#include <cstdint>

namespace pha::core::limits {

// Appended to the out-of-range message of every limit below.
inline constexpr const char* kNote = "a limit on work: docs/project-format.md, Limits";

// Sequence length T: a training window, a task's length, a profile point (2^17).
inline constexpr int64_t kMaxSeqLen = 131072;

// Runs one project file asks for: variants x grid points (x seeds).
inline constexpr int64_t kMaxRuns = 1000;
// Seeded replicas of each run ("seeds" entries, "repeats").
inline constexpr int64_t kMaxReplicas = 100;

// Training (the "training" section).
inline constexpr int64_t kMaxSteps = 10'000'000;
inline constexpr int64_t kMaxBatchSize = 4096;
inline constexpr int64_t kMaxGradAccum = 1024;
inline constexpr int64_t kMaxMicroBatchTokens = int64_t{1} << 24;  // batch_size x seq_len
inline constexpr double kMaxTrainingTokens = 1e11;                  // steps x grad_accum x batch_size x seq_len

// Evaluation: examples per periodic evaluation, per point of a length / OOD sweep, and in a
// task test set (each evaluated in full at the end); tokens of a text evaluation (at most the split).
inline constexpr int64_t kMaxEvalExamples = 100'000;
inline constexpr int64_t kMaxEvalTokens = int64_t{1} << 30;

// A task's index space (num_examples of a training task: examples are drawn by index, so the
// size costs nothing; a test set is limited by kMaxEvalExamples).
inline constexpr int64_t kMaxTaskExamples = int64_t{1} << 40;

// The efficiency profile (the "profile" section).
inline constexpr int64_t kMaxProfileLengths = 32;                    // entries of seq_lens
inline constexpr int64_t kMaxProfileSteps = 100;                     // warmup, repeats
inline constexpr int64_t kMaxProfileTokensPerBatch = int64_t{1} << 24;

}  // namespace pha::core::limits
