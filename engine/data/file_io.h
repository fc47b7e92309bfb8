// Whole-file reads with errors that name the file; atomic writes are pha::write_file_atomic
// (core/atomic_file.h), named here too for the data layer's callers.
#pragma once

#include <filesystem>
#include <string>

#include "core/atomic_file.h"

namespace pha::data {

// Reads the whole file; core::Error naming the path if it is missing or unreadable.
std::string read_file(const std::filesystem::path& path);

// Writes `parts` to a temporary file beside `path`, fsyncs, then renames it over `path`, so
// readers never see a half-written file (the one writer, core/atomic_file.h).
using core::write_file_atomic;

}  // namespace pha::data
