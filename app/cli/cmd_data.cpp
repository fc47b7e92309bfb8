// `pha data ...` (filled in by the data step).
#include "commands.h"

namespace pha::cli {
void add_data_commands(CLI::App&, GlobalOptions&) {}
}  // namespace pha::cli
