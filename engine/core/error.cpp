#include "core/error.h"

namespace pha::core {

Error::Error(std::string where, const std::string& message)
    : std::runtime_error(where.empty() ? message : where + ": " + message), where_(std::move(where)) {}

Error::Error(const std::string& message) : std::runtime_error(message) {}

std::string message_of(const Error& e) {
  std::string msg = e.what();
  if (!e.where().empty() && msg.rfind(e.where() + ": ", 0) == 0) msg = msg.substr(e.where().size() + 2);
  return msg;
}

void rethrow_under(const Error& e, const std::string& generic, const std::string& actual) {
  std::string where = e.where();
  if (where == generic) where = actual;
  else if (where.rfind(generic + ".", 0) == 0) where = actual + where.substr(generic.size());
  else if (where.empty()) where = actual;
  throw Error(where, message_of(e));
}

}  // namespace pha::core
