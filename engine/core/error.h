// The one exception type the engine throws. Its message names the config field or file and
// what is allowed, so the GUI and CLI can show it to the user as it is.
#pragma once

#include <stdexcept>
#include <string>

namespace pha {

class Error : public std::runtime_error {
 public:
  // where: a config field ("model.attention.kv_heads") or a file path; may be empty.
  Error(std::string where, const std::string& message);
  explicit Error(const std::string& message);

  const std::string& where() const noexcept { return where_; }

 private:
  std::string where_;
};

}  // namespace pha
