// The message of the core::Error a call throws, or "(no error)": for tests that compare error
// texts verbatim.
#pragma once

#include <string>

#include "core/error.h"

namespace pha::test {

template <typename Fn>
std::string error_message(Fn&& fn) {
  try {
    fn();
  } catch (const core::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace pha::test
