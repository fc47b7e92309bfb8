// Live size and cost of a model config: parameters per branch, FLOPs per token per branch for a
// forward pass and a training step at a chosen sequence length T, and a memory estimate for a
// batch of B sequences. Pure arithmetic from model/flops.h, recomputed on every edit. A headline
// with the totals is always shown; the table folds away (remembered in QSettings).
#pragma once

#include <QWidget>

#include "model/flops.h"
#include "model/model_config.h"

class QLabel;
class QSpinBox;
class QToolButton;

namespace pha::gui {

class ConfigSummary : public QWidget {
  Q_OBJECT

 public:
  // Table rows and columns (also the order on screen).
  enum Row { Gss, Attention, Ffn, Embedding, NormsMixer, Total, RowCount };
  enum Column { Params, Forward, Training, ColumnCount };

  explicit ConfigSummary(QWidget* parent = nullptr);

  // `stale`: the editor's current text is invalid and this is the last valid config.
  void setConfig(const pha::model::ModelConfig& config, bool stale = false);

  int seqLen() const;
  void setSeqLen(int t);
  int batch() const;
  void setBatch(int b);

  const pha::model::ParamCount& params() const { return m_params; }
  const pha::model::FlopsEstimate& flops() const { return m_flops; }
  const pha::model::MemoryEstimate& trainingMemory() const { return m_memory; }
  QString cellText(Row row, Column column) const;
  QString memoryText() const;
  // The per-branch table shown (true) or folded under the one-line headline (the default).
  void setExpanded(bool on);
  bool isExpanded() const;
  QString headlineText() const;  // "1.29 M params · 3.05 MFLOP/token · 642 MiB to train"

 signals:
  void recomputed();

 private:
  void recompute();

  pha::model::ModelConfig m_config;
  bool m_hasConfig = false;
  pha::model::ParamCount m_params;
  pha::model::FlopsEstimate m_flops;
  pha::model::MemoryEstimate m_memory;
  QSpinBox* m_seqLen = nullptr;
  QSpinBox* m_batch = nullptr;
  QLabel* m_cells[RowCount][ColumnCount] = {};
  QLabel* m_memoryLabel = nullptr;
  QLabel* m_staleLabel = nullptr;
  QToolButton* m_toggle = nullptr;
  QLabel* m_headline = nullptr;
  QWidget* m_details = nullptr;
};

}  // namespace pha::gui
