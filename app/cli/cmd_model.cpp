// `pha model` and `pha bench model` (filled in by the model step).
#include "commands.h"

namespace pha::cli {
void add_model_commands(CLI::App&, GlobalOptions&) {}
}  // namespace pha::cli
