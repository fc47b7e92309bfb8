// `pha-workbench --self-test`: checks that an installed program finds its compiled-in
// resources (icon renders, palettes parse) and that the engine links; prints one line per check.
#pragma once

namespace pha::gui {

// Returns 0 when every check passes, 1 otherwise.
int runSelfTest();

}  // namespace pha::gui
