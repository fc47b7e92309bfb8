// `pha-workbench --bench-responsiveness`: measures whether the GUI thread stays responsive while
// the workbench trains (the spec: no event-loop stall over 50 ms, plots redrawn at most ~30
// times a second). It trains a copy of a project (default: the quickstart template) from the
// Run action in the shown window, exactly as a user would, while
//   - a 5 ms precise QTimer on the GUI thread records the gap between its ticks (a stalled
//     event loop delays the next tick: gap - interval is the stall), and
//   - every QCustomPlot's afterReplot signal is counted and timed (QCustomPlot::replotTime),
// then prints the gap distribution, the largest gaps with what the queue was doing, and each
// plot's redraw rate (mean over the run and the most in any one-second window). A benchmark
// command, not a test: the figures depend on the machine and its load. Method: docs/gui.md.
#pragma once

#include <QString>

namespace pha::gui {

struct ResponsivenessOptions {
  QString project;       // project folder to copy; empty: the quickstart template
  int steps = 100;       // training.steps of every run (0: the project's own)
  int probeMs = 5;       // probe timer interval
  bool profile = true;   // keep the project's efficiency profile after the runs (when it has one)
  bool search = false;   // run the project's search (Run > Search, one rung run at a time) instead of its runs
  int width = 1600;      // window size (the screenshot's)
  int height = 1000;
};

// Runs the benchmark in this QApplication; prints to stdout; returns a process exit code.
int runResponsivenessBench(const ResponsivenessOptions& options);

}  // namespace pha::gui
