// The one atomic file writer: every file the engine writes whole (exports, project files,
// token caches, safetensors and checkpoints) lands through it, so a crash or a full disk leaves
// either the previous file or the complete new one, never half of one (docs/safetensors.md,
// "Atomic writes"). Plain C++: no torch, no Qt.
#pragma once

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>

namespace pha::core {

// Streams data to a temporary file beside `path` (`<path>.tmp-<pid>-<n>`); commit() fsyncs it,
// renames it over `path` and fsyncs the folder. Destroyed without commit() (an exception
// mid-write), it removes the temporary file and `path` is untouched. Every failure is a
// core::Error naming `path`. The folder must exist.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, std::size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }
  void commit();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_path_; }

 private:
  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

// The whole-file convenience: creates missing parent folders, writes `parts` one after another
// and commits. write_file_atomic(path, {text}) for one string.
void write_file_atomic(const std::filesystem::path& path, std::initializer_list<std::string_view> parts);

}  // namespace pha::core
