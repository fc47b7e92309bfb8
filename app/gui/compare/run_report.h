// A run's full record as a self-contained report folder (format: docs/gui-compare.md):
//   index.html   summary, metric table, evals, perf, the config; plots embedded as base64 PNG
//   config.json  the run's config (pretty-printed when it parses, else as stored)
//   metrics.csv  every stored point of every metric key
//   evals.csv, perf.csv   the run's eval and perf rows (header only when there are none)
//   curves.png, curves.pdf, mixer.png   the plots as files (mixer only with snapshots)
// Must run on a thread that may create widgets (the GUI thread); opens its own store
// connection. Never throws: returns false with *error set.
#pragma once

#include <QString>

namespace pha::gui {

bool writeRunReport(const QString& storePath, qint64 runId, const QString& outputDir, QString* error = nullptr);

}  // namespace pha::gui
