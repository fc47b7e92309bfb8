// Short human-readable numbers for the configuration summary: "1.23 M", "4.5 GFLOP", "1.2 GiB".
// Three significant digits, SI prefixes for counts and FLOPs, binary prefixes for bytes.
#pragma once

#include <QString>
#include <cstdint>

namespace pha::widgets {

QString formatCount(double n);   // 1234567 -> "1.23 M", 950 -> "950"
QString formatFlops(double f);   // 4.5e9 -> "4.5 GFLOP"
QString formatBytes(double b);   // 1288490188 -> "1.2 GiB"

}  // namespace pha::widgets
