// Memory of this process, read from /proc/self/status (Linux): the figures the step metrics and
// the efficiency profiler report on CPU.
#pragma once

#include <cstdint>

namespace pha::runtime {

int64_t peak_rss_bytes();     // VmHWM: the high-water mark of resident memory
int64_t current_rss_bytes();  // VmRSS

}  // namespace pha::runtime
