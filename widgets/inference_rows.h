// The Efficiency dock's Inference tab as text and numbers, apart from its widgets: which run of
// each model is shown, how a point's figures read (MiB, L against the training context, the
// allocated-vs-formula check of the decode state, the decode slope), and its CSV. Input is what
// `pha bench inference` recorded (store/inference_store.h), never estimates.
#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

#include "store/inference_store.h"

namespace pha::widgets {

// The newest run per model of `runs` (newest first, as store::inference_runs lists them),
// returned oldest first: the order the sweep measured them in, so colours and rows are stable.
std::vector<store::ModelInference> newestPerModel(const std::vector<store::ModelInference>& runs);

double toMiB(std::int64_t bytes);
QString mibText(std::int64_t bytes);                   // "6.4" (one decimal)
QString lengthLabel(std::int64_t length);              // 256 -> "256", 4096 -> "4k", 1536 -> "1536"
// L against the model's training context: "2x", "0.5x", "1x"; "" when the context is unknown.
QString contextRatioText(std::int64_t length, int context);
// "KV cache 6.4 MiB allocated = formula", or "... allocated, formula 6.0 MiB" when they differ.
QString allocatedCheck(const QString& what, std::int64_t allocated, std::int64_t formula);
bool allocatedMatchesFormula(const store::InferencePointResult& p);
// A point's label in legends and tooltips: "pha-tiny" at batch 1, "pha-tiny, batch 8" otherwise.
QString seriesName(const QString& model, std::int64_t batch);

// Every figure of a point's memory split, one per line (the memory bars' tooltip).
QString memoryTooltip(const store::InferencePointResult& p);
// The table row's tooltip: the decode path, parameters and the point's run.
QString pointTooltip(const store::InferencePointResult& p, std::int64_t runId);
// The decode slope of every model (store::decode_slope), per batch size: the line under the table.
QString slopeSummary(const std::vector<store::InferencePointResult>& points);
// One line on the allocated-vs-formula check over every point ("... at every point", or the
// points where they differ).
QString formulaSummary(const std::vector<store::InferencePointResult>& points);

// Every point (failed ones with their error) as CSV, one row per point.
bool writeInferenceCsv(const QString& path, const std::vector<store::InferencePointResult>& points,
                       QString* error = nullptr);

}  // namespace pha::widgets
