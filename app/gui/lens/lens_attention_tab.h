// Lens dock, Attention tab: one head's T x T attention weights on one window, query rows against
// key columns, with the tokens on both axes; at most kShown tokens at a time (a range selector
// moves through the window) so that the token strings stay readable. A model without attention
// shows the engine's message ("... has no attention branch ...").
#pragma once

#include <QWidget>
#include <optional>

#include "runtime/lens.h"

class QComboBox;
class QLabel;
class QSpinBox;

namespace pha::widgets {
class MatrixHeatmap;
}

namespace pha::gui {

class LensAttentionTab : public QWidget {
  Q_OBJECT
 public:
  explicit LensAttentionTab(QWidget* parent = nullptr);
  static constexpr int kShown = 64;
  // The model's layers with attention (heads per layer; 0: none) and the windows measured.
  void setModel(const runtime::LensRunInfo& info, int windows);
  void setMap(const runtime::AttentionMap& map);
  void setError(const QString& error);
  void clear(const QString& message);
  void setRangeStart(int first);
  widgets::MatrixHeatmap* heatmap() const { return m_heatmap; }
  QString message() const;
  bool writeCsv(const QString& path, QString* error) const;

 signals:
  void attentionRequested(int window, int layer, int head);

 private:
  void refresh();
  void request();
  QComboBox* m_layer = nullptr;
  QSpinBox* m_head = nullptr;
  QSpinBox* m_window = nullptr;
  QSpinBox* m_first = nullptr;
  QLabel* m_message = nullptr;
  widgets::MatrixHeatmap* m_heatmap = nullptr;
  std::vector<int> m_heads;  // per layer
  std::optional<runtime::AttentionMap> m_map;
};

}  // namespace pha::gui
