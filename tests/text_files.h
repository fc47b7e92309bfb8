// Whole text files for tests: read one back, write one (making its folder).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace pha::test {

inline std::string read_text_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

}  // namespace pha::test
