// SHA-256 of a file (checkpoint rows in the run store record it) or of a string (a project's
// registered design). FIPS 180-4, no dependency.
#pragma once

#include <string>

namespace pha::data {

// Lower-case hex digest; throws core::Error naming the file when it cannot be read.
std::string sha256_file(const std::string& path);
// Lower-case hex digest of a string's bytes.
std::string sha256_hex(const std::string& bytes);

}  // namespace pha::data
