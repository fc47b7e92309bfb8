// LayerStrip: the per-layer pattern of the best trials, one row per trial, one cell per layer
// (layer 0, the input side, on the left), coloured by the layer's kind (GSS, attention, the PHA
// parallel mix, sequential, and the PHA branch subsets), each cell printing its kind's short
// name, with a legend of the kinds shown. A small widget of its own rather than the mixer
// heatmap: the heatmap draws weights on a 0..1 colour scale and prints numbers, while a
// pattern is a category per layer.
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <vector>

namespace pha::gui {

class LayerStrip : public QWidget {
  Q_OBJECT
 public:
  struct Row {
    QString title;     // "1. t12  val/bpb 2.3104"
    QStringList kinds;  // per layer: "gss", "attn", "parallel", "gss+attn", ...
    bool emphasised = false;  // finished / promoted
  };
  explicit LayerStrip(QWidget* parent = nullptr);

  void setRows(const std::vector<Row>& rows, const QString& emptyMessage = {});
  const std::vector<Row>& rows() const { return m_rows; }
  QString message() const { return m_message; }

  static QColor kindColor(const QString& kind);
  static QString kindShort(const QString& kind);  // "G", "A", "P", "S", "G+A", ...

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  int titleWidth() const;
  QStringList kindsShown() const;

  std::vector<Row> m_rows;
  QString m_message;
};

}  // namespace pha::gui
