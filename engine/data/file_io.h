// Whole-file reads and atomic writes (temp file in the same folder + rename), with errors
// that name the file.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace pha::data {

// Reads the whole file; pha::Error naming the path if it is missing or unreadable.
std::string read_file(const std::filesystem::path& path);

// Writes `parts` one after another to a temporary file beside `path`, flushes, then renames it
// over `path`, so readers never see a half-written file.
void write_file_atomic(const std::filesystem::path& path, std::initializer_list<std::string_view> parts);

}  // namespace pha::data
