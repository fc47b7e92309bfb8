#include "data/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

#include "core/error.h"

namespace fs = std::filesystem;

namespace pha::data {

std::string read_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw Error(path.string(), "file not found");
  if (fs::is_directory(path, ec)) throw Error(path.string(), "is a folder, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string(), std::string("cannot open: ") + std::strerror(errno));
  std::string data;
  in.seekg(0, std::ios::end);
  auto size = in.tellg();
  if (size < 0) throw Error(path.string(), "cannot determine the file size");
  data.resize(static_cast<size_t>(size));
  in.seekg(0, std::ios::beg);
  if (size > 0 && !in.read(data.data(), size)) throw Error(path.string(), "read failed");
  return data;
}

void write_file_atomic(const fs::path& path, std::initializer_list<std::string_view> parts) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec) throw Error(path.parent_path().string(), "cannot create folder: " + ec.message());
  std::random_device rd;
  fs::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(tmp.string(), std::string("cannot create: ") + std::strerror(errno));
  for (auto part : parts) {
    const char* p = part.data();
    size_t left = part.size();
    while (left > 0) {
      ssize_t w = ::write(fd, p, left);
      if (w < 0) {
        if (errno == EINTR) continue;
        int e = errno;
        ::close(fd);
        fs::remove(tmp, ec);
        throw Error(tmp.string(), std::string("write failed: ") + std::strerror(e));
      }
      p += w;
      left -= static_cast<size_t>(w);
    }
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    fs::remove(tmp, ec);
    throw Error(tmp.string(), std::string("flush failed: ") + std::strerror(errno));
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw Error(path.string(), "cannot rename the temporary file into place: " + ec.message());
  }
}

}  // namespace pha::data
