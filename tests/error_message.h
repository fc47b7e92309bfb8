// The message of the pha::Error a call throws, or "(no error)": for tests that compare error
// texts verbatim.
#pragma once

#include <string>

#include "core/error.h"

namespace pha::test {

template <typename Fn>
std::string error_message(Fn&& fn) {
  try {
    fn();
  } catch (const pha::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace pha::test
