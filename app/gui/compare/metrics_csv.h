// The engine's metrics CSV (runtime::write_metrics_csv, runtime/export.h: run_id,key,step,
// tokens,wall_ms,value, every point as stored) from the window: Compare's curves and the run
// report write it. Full resolution, no point cap.
#pragma once

#include <QString>
#include <vector>

namespace pha::runtime {
struct MetricCsvSeries;  // runtime/export.h
}

namespace pha::gui {

// Written atomically (core/atomic_file.h); false with *error set when it cannot be written.
bool writeMetricsCsv(const QString& path, const std::vector<pha::runtime::MetricCsvSeries>& series,
                     QString* error = nullptr);

}  // namespace pha::gui
