#include "data/file_io.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/error.h"

namespace fs = std::filesystem;

namespace pha::data {

std::string read_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw core::Error(path.string(), "file not found");
  if (fs::is_directory(path, ec)) throw core::Error(path.string(), "is a folder, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::Error(path.string(), std::string("cannot open: ") + std::strerror(errno));
  std::string data;
  in.seekg(0, std::ios::end);
  auto size = in.tellg();
  if (size < 0) throw core::Error(path.string(), "cannot determine the file size");
  data.resize(static_cast<size_t>(size));
  in.seekg(0, std::ios::beg);
  if (size > 0 && !in.read(data.data(), size)) throw core::Error(path.string(), "read failed");
  return data;
}

}  // namespace pha::data
