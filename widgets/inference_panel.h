// InferencePanel: the Efficiency dock's Inference tab's views of what `pha bench inference`
// measured (store/inference_store.h), one run per model: decode ms per token and prefill
// tokens/s (or time to first token) against the prompt length L on a log2 axis, one curve per
// model and batch (the smallest batch solid, larger ones dashed), the training context marked;
// the memory split at a chosen (L, batch) as stacked bars (InferenceMemoryChart); a table of
// every point; the decode slope per model and the allocated-vs-formula check under it. Display
// only: the tab (app/gui/inference) reads the store and measures.
#pragma once

#include <QString>
#include <QWidget>
#include <cstdint>
#include <set>
#include <vector>

#include "store/inference_store.h"

class QComboBox;
class QCustomPlot;
class QHBoxLayout;
class QLabel;
class QSplitter;
class QTableWidget;

namespace pha::widgets {

class InferenceMemoryChart;
class PlotPanel;

class InferencePanel : public QWidget {
  Q_OBJECT
 public:
  enum Column {
    Model, Length, Context, Batch, Ttft, PrefillTps, DecodeMs, DecodeTps, E2eS, Weights, KvCache, GssState, Rest, Peak,
    ColumnCount
  };
  explicit InferencePanel(QWidget* parent = nullptr);

  // One run per model (widgets::newestPerModel), drawn in this order.
  void setRuns(std::vector<store::ModelInference> runs);
  const std::vector<store::ModelInference>& runs() const { return m_runs; }
  std::vector<store::InferencePointResult> points() const;  // every point shown, in run order
  // Shown instead of the views while there is nothing to show.
  void setEmptyMessage(const QString& message);

  // The row above the views (its combo boxes on the right); the tab puts Measure... there.
  QHBoxLayout* toolRow() const { return m_toolRow; }
  PlotPanel* decodePlot() const { return m_decode; }
  PlotPanel* prefillPlot() const { return m_prefill; }
  InferenceMemoryChart* memoryChart() const { return m_memory; }
  QComboBox* memoryPoint() const { return m_memoryPoint; }  // "L = 4096, batch 1"
  QComboBox* prefillMetric() const { return m_prefillMetric; }
  QTableWidget* table() const { return m_table; }
  int tableRows() const;
  int decodeCurveCount() const;
  int prefillCurveCount() const;
  QString slopeText() const;
  QString checkText() const;
  QString legendText() const;  // the legend row above the plots (HTML)
  // Picks the memory bars' point; false when no model was measured there.
  bool selectMemoryPoint(std::int64_t length, std::int64_t batch);
  // Every point as CSV (the Export CSV... button and the plots' right-click menu).
  bool exportCsv(const QString& path, QString* error = nullptr) const;

 private:
  void buildToolRow();
  void buildPlots();
  void buildTable();
  void redraw();
  void drawCurves();
  void frameCurves(const std::set<std::int64_t>& lengths, const std::set<int>& contexts, bool ttft);
  void drawMemory();
  void fillTable();
  void fillMemoryChoices();
  QString legendHtml(const std::set<std::int64_t>& batches) const;

  std::vector<store::ModelInference> m_runs;
  QString m_emptyMessage;
  bool m_memoryPicked = false;  // the memory point was chosen (else the default follows the data)
  QHBoxLayout* m_toolRow = nullptr;
  QComboBox* m_prefillMetric = nullptr;
  QComboBox* m_memoryPoint = nullptr;
  QSplitter* m_content = nullptr;
  QLabel* m_legend = nullptr;
  QLabel* m_empty = nullptr;
  PlotPanel* m_decode = nullptr;
  PlotPanel* m_prefill = nullptr;
  InferenceMemoryChart* m_memory = nullptr;
  QTableWidget* m_table = nullptr;
  QLabel* m_slope = nullptr;
  QLabel* m_check = nullptr;
};

}  // namespace pha::widgets
