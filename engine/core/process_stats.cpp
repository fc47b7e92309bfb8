#include "core/process_stats.h"

#include <cstdio>
#include <cstring>
#include <string>

#include <unistd.h>

#include "core/error.h"

namespace pha::core {

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

std::string self_executable() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) throw Error("/proc/self/exe", "cannot find the running program");
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace pha::core
