// The one exception type the engine throws. Its message names the config field or file and
// what is allowed, so the GUI and CLI can show it to the user as it is.
#pragma once

#include <stdexcept>
#include <string>

namespace pha::core {

class Error : public std::runtime_error {
 public:
  // where: a config field ("model.attention.kv_heads") or a file path; may be empty.
  Error(std::string where, const std::string& message);
  explicit Error(const std::string& message);

  const std::string& where() const noexcept { return where_; }

 private:
  std::string where_;
};

// The message without its "where: " prefix.
std::string message_of(const Error& e);

// Re-raises an error whose field names a generic section ("task.seq_len", "model.d_model")
// under the field where that section lives for the user ("data.train.seq_len", "--task.seq_len");
// an error with no field gets `actual`.
[[noreturn]] void rethrow_under(const Error& e, const std::string& generic, const std::string& actual);

}  // namespace pha::core
