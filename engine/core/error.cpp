#include "core/error.h"

namespace pha {

Error::Error(std::string where, const std::string& message)
    : std::runtime_error(where.empty() ? message : where + ": " + message), where_(std::move(where)) {}

Error::Error(const std::string& message) : std::runtime_error(message) {}

}  // namespace pha
