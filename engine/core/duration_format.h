// The one duration text of the CLI and the window: "42.1 s" under a minute, "1m 40s" under an
// hour, "2h 05m" beyond. Plain C++: the GUI includes it.
#pragma once

#include <string>

namespace pha::core {

// "" for a negative, NaN or infinite duration (unknown: each caller says so its own way, "?" or
// "—").
std::string format_duration(double seconds);

}  // namespace pha::core
