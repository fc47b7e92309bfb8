// What program this is: its version, the source commit it was built from and how it was built,
// written into a generated file at every build (cmake/PhaBuildInfo.cmake). Runs record it with
// their provenance (device/provenance.h); `pha info` prints it. Plain C++.
#pragma once

namespace pha::core {

struct BuildInfo {
  const char* version;     // the CMake project version, "0.1.0"
  const char* commit;      // "59c53af1b2c3", "+modified" appended when tracked files differed;
                           // "unknown" when built outside a git checkout
  const char* build_type;  // CMAKE_BUILD_TYPE: "Release", "Debug", ...
  const char* compiler;    // "GNU 12.2.0"
};

const BuildInfo& build_info();

}  // namespace pha::core
