#include "runtime/process_stats.h"

#include <cstdio>
#include <cstring>

namespace pha::runtime {

namespace {
int64_t status_kb(const char* key) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  int64_t kb = 0;
  const size_t n = std::strlen(key);
  while (std::fgets(line, sizeof(line), f)) {
    if (std::strncmp(line, key, n) == 0 && line[n] == ':') {
      long long v = 0;
      if (std::sscanf(line + n + 1, "%lld", &v) == 1) kb = v;
      break;
    }
  }
  std::fclose(f);
  return kb * 1024;
}
}  // namespace

int64_t peak_rss_bytes() { return status_kb("VmHWM"); }
int64_t current_rss_bytes() { return status_kb("VmRSS"); }

}  // namespace pha::runtime
