#include "core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace fs = std::filesystem;

namespace pha::core {

namespace {

std::atomic<unsigned> temp_counter{0};  // two writers of one path in one process get two files

std::string sys_error() { return std::strerror(errno); }

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  temp_path_ = path_ + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(temp_counter++);
  fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(path_, "cannot create a temporary file to write: " + sys_error());
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_path_.c_str());
}

void AtomicFileWriter::write(const void* data, std::size_t size) {
  if (fd_ < 0) throw Error(path_, "write after commit");
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, std::min<std::size_t>(size, std::size_t(1) << 30));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(path_, "write failed (disk full?): " + sys_error());
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

void AtomicFileWriter::commit() {
  if (fd_ < 0) throw Error(path_, "committed twice");
  if (::fsync(fd_) != 0) throw Error(path_, "fsync failed: " + sys_error());
  const int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) throw Error(path_, "close failed: " + sys_error());
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0)
    throw Error(path_, "cannot rename the temporary file into place: " + sys_error());
  committed_ = true;
  // The rename itself must reach the disk: fsync the folder's entry.
  const std::string dir = fs::path(path_).parent_path().string();
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void write_file_atomic(const fs::path& path, std::initializer_list<std::string_view> parts) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec) throw Error(path.string(), "cannot create its folder " + path.parent_path().string() + ": " + ec.message());
  AtomicFileWriter out(path.string());
  for (const auto part : parts) out.write(part);
  out.commit();
}

}  // namespace pha::core
