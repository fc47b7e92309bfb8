// Formatting shared by the run table's run rows (runs_model.cpp) and its replica group rows
// (runs_groups.cpp). Internal to RunsModel.
#pragma once

#include <QString>
#include <QVariant>
#include <optional>

#include "store/types.h"

namespace pha::gui::runs_detail {

// RunsModel::summaryKeys() order.
enum SummaryIndex { kValLoss = 0, kTrainLoss = 1, kValAccuracy = 2 };

const std::optional<store::MetricSummary>& summaryAt(const store::RunListEntry& e, size_t i);
// "2.0910" (nats/token) or "87.50 %" (accuracy).
QString valText(double v, bool accuracy);
// Start to end (or to the last heartbeat while running); -1 when not started.
double durationSeconds(const store::RunInfo& r);
QString formatDuration(double s);
QString shortTime(qint64 ms);
QString longTime(qint64 ms);
// The Processes column: "2 (gloo)", "1"; sort: the world size.
QVariant processesText(int worldSize, const std::string& backend, bool sort);
// The Precision column: the recorded precision ("bf16", "fp32"), "" for a run without a record.
QString precisionText(const std::string& envJson);
// Everything the run recorded about what produced it (core/provenance_fields.h), one key a line,
// the keys that change numbers first; "not recorded" for runs of older programs.
QString provenanceText(const std::string& envJson);

}  // namespace pha::gui::runs_detail
