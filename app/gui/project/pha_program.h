// Where the headless `pha` program is: the workbench starts it as the efficiency profiler's
// worker (`pha __profile-point`, one fresh process per measured point, so that each point's
// peak memory is its own), and as ranks 1 .. N-1 of a data-parallel run (`pha __train-rank`,
// runtime/local_parallel.h). Looked for in $PHA_CLI, next to pha-workbench (installed: both in
// /usr/bin), in ../cli/ (the build tree: app/gui/pha-workbench, app/cli/pha), then on PATH.
#pragma once

#include <QString>

namespace pha::gui {

// The absolute path of an executable `pha`, or an empty string with `error` saying where it
// was looked for and how to fix it.
QString locatePhaProgram(QString* error = nullptr);

}  // namespace pha::gui
