// The one place the window's store-read policy lives: every view of the window (the run table,
// the monitor, Compare, Efficiency, the project's open) reads the store with these options.
#pragma once

#include "store/store.h"

namespace pha::widgets {

// How the window opens a store for its frequent reads (the run table's reload every 2 s while
// training, a picked run, Compare): without PRAGMA quick_check, which costs 136 ms on a 54 MB
// store (pha-store-bench) and was done once when the project was opened (ProjectSession
// checks, and a damaged store is never read). Engine jobs the window starts (training,
// evaluation, the report) check on their own open as `pha` does.
pha::store::OpenOptions windowReadOptions();

}  // namespace pha::widgets
