#include "gui/compare/metrics_csv.h"

#include <exception>
#include <sstream>

#include "core/atomic_file.h"
#include "runtime/export.h"

namespace pha::gui {

bool writeMetricsCsv(const QString& path, const std::vector<runtime::MetricCsvSeries>& series, QString* error) {
  try {
    std::ostringstream out;
    runtime::write_metrics_csv(out, series);
    core::write_file_atomic(path.toStdString(), {out.str()});
    return true;
  } catch (const std::exception& e) {  // core::Error names the file
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
}

}  // namespace pha::gui
