// Shared by the libFuzzer targets (docs/testing.md): the fuzz input as a file the readers can
// open by path (an in-memory file, no disk I/O per input), a scratch folder, and the oracle
// every target applies: bad input may only end in core::Error; any other exception, and any
// broken invariant (FUZZ_CHECK), aborts so that libFuzzer keeps the input as a crash.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "core/error.h"

#define FUZZ_CHECK(cond)                                                                      \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

namespace pha::fuzz {

// The input bytes as an anonymous memory file (memfd), opened through /proc/self/fd/N like any
// path (ifstream, open + mmap).
class MemFile {
 public:
  MemFile(const uint8_t* data, size_t size) {
    fd_ = ::memfd_create("fuzz-input", MFD_CLOEXEC);
    FUZZ_CHECK(fd_ >= 0);
    size_t done = 0;
    while (done < size) {
      const ssize_t n = ::write(fd_, data + done, size - done);
      FUZZ_CHECK(n > 0);
      done += static_cast<size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { ::close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// A folder for the targets whose reader takes a directory (project, BPE files), made once per
// process in /dev/shm (memory: ext4 flushes a truncated-and-rewritten file on close, which
// halved the executions per second) or, without it, $TMPDIR; removed at exit.
inline const std::filesystem::path& scratch_dir() {
  // Never destroyed: the exit handler below still needs it after static destructors ran.
  static const std::filesystem::path* dir = [] {
    std::error_code ec;
    const std::filesystem::path base =
        std::filesystem::is_directory("/dev/shm", ec) ? "/dev/shm" : std::filesystem::temp_directory_path();
    std::string tmpl = (base / "pha-fuzz-XXXXXX").string();
    FUZZ_CHECK(::mkdtemp(tmpl.data()) != nullptr);
    auto* made = new std::filesystem::path(tmpl);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch_dir(), ec);
    });
    return made;
  }();
  return *dir;
}

// Replaces `path` with `bytes` (plain write: the scratch folder is private to the process).
inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  FUZZ_CHECK(out.good());
}

// Runs `body`: core::Error is a rejected input (fine); anything else escaping is a bug.
// PHA_FUZZ_VERBOSE=1 prints each rejection (to see what a seed exercises).
template <typename Body>
void only_pha_errors(Body&& body) {
  static const bool verbose = std::getenv("PHA_FUZZ_VERBOSE") != nullptr;
  try {
    body();
    if (verbose) std::fprintf(stderr, "fuzz: accepted\n");
  } catch (const core::Error& e) {
    if (verbose) std::fprintf(stderr, "fuzz: rejected: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: an exception other than core::Error escaped: %s\n", e.what());
    std::abort();
  }
}

}  // namespace pha::fuzz
