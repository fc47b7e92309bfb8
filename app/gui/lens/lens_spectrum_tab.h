// Lens dock, Spectrum tab: per GSS layer, the channels x lags map of the kernel's |K(t)| (lags
// on a log axis: columns are log-spaced lag bins, each the bin's largest |K|), and the histogram
// of the channels' half-lives with a line at the training context. A checkpoint selector (init,
// the run's checkpoints) shows how the spectrum moved. Models without GSS say so (none_reason).
#pragma once

#include <QWidget>
#include <optional>

#include "gui/lens/spectrum_view.h"
#include "runtime/lens.h"

class QComboBox;
class QCustomPlot;
class QLabel;

namespace pha::widgets {
class MatrixHeatmap;
}

namespace pha::gui {

class LensSpectrumTab : public QWidget {
  Q_OBJECT
 public:
  explicit LensSpectrumTab(QWidget* parent = nullptr);
  // The checkpoints offered (training steps, ascending); the last one is selected.
  void setCheckpoints(const QList<qint64>& steps);
  void setSpectrum(const runtime::KernelSpectrum& s);
  void setError(const QString& error);
  void clear(const QString& message);
  void setLayerIndex(int index);
  widgets::MatrixHeatmap* heatmap() const { return m_heatmap; }
  QCustomPlot* histogram() const { return m_hist; }
  QComboBox* checkpointBox() const { return m_checkpoint; }
  QString message() const;
  bool writeCsv(const QString& path, QString* error) const;

 signals:
  void checkpointRequested(const runtime::LensOptions& options);

 private:
  void refresh();
  QComboBox* m_layer = nullptr;
  QComboBox* m_checkpoint = nullptr;
  QLabel* m_message = nullptr;
  widgets::MatrixHeatmap* m_heatmap = nullptr;
  QCustomPlot* m_hist = nullptr;
  std::optional<runtime::KernelSpectrum> m_spectrum;
  SpectrumView m_view;  // what refresh() drew (spectrum_view.h)
};

}  // namespace pha::gui
