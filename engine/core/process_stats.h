// Memory of this process, read from /proc/self/status (Linux): the one reader of process memory,
// behind the step metrics, the efficiency profiler and `pha bench model` (runtime/step_bench).
#pragma once

#include <cstdint>
#include <string>

namespace pha::core {

int64_t peak_rss_bytes();     // VmHWM: the high-water mark of resident memory
int64_t current_rss_bytes();  // VmRSS

// Path of the running executable (/proc/self/exe); core::Error when it cannot be read.
std::string self_executable();

}  // namespace pha::core
