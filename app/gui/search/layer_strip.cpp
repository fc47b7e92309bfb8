#include "gui/search/layer_strip.h"

#include <QPainter>
#include <algorithm>

namespace pha::gui {

namespace {
constexpr int kRowHeight = 22, kGap = 4, kMargin = 6, kMinCell = 14, kMaxCell = 46;
}

LayerStrip::LayerStrip(QWidget* parent) : QWidget(parent) {
  setObjectName("searchLayerStrip");
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

// Okabe-Ito colours, distinct for colour-blind readers: GSS blue, attention vermilion.
QColor LayerStrip::kindColor(const QString& kind) {
  if (kind == "gss") return QColor(0, 114, 178);
  if (kind == "attn") return QColor(213, 94, 0);
  if (kind == "parallel") return QColor(204, 121, 167);
  if (kind == "sequential") return QColor(0, 158, 115);
  if (kind == "gss+attn") return QColor(230, 159, 0);
  if (kind == "gss+ffn") return QColor(86, 180, 233);
  if (kind == "attn+ffn") return QColor(240, 228, 66);
  return QColor(150, 150, 150);
}

QString LayerStrip::kindShort(const QString& kind) {
  if (kind == "gss") return "G";
  if (kind == "attn") return "A";
  if (kind == "parallel") return "P";
  if (kind == "sequential") return "S";
  QStringList parts;
  for (const QString& p : kind.split('+')) parts << (p == "gss" ? "G" : p == "attn" ? "A" : p == "ffn" ? "F" : p.left(1).toUpper());
  return parts.join('+');
}

void LayerStrip::setRows(const std::vector<Row>& rows, const QString& emptyMessage) {
  m_rows = rows;
  m_message = rows.empty() ? emptyMessage : QString();
  updateGeometry();
  update();
}

int LayerStrip::titleWidth() const {
  int w = 0;
  for (const Row& r : m_rows) w = std::max(w, fontMetrics().horizontalAdvance(r.title));
  return w + 10;
}

QStringList LayerStrip::kindsShown() const {
  QStringList kinds;
  for (const Row& r : m_rows)
    for (const QString& k : r.kinds)
      if (!kinds.contains(k)) kinds << k;
  return kinds;
}

QSize LayerStrip::sizeHint() const {
  int layers = 0;
  for (const Row& r : m_rows) layers = std::max(layers, static_cast<int>(r.kinds.size()));
  const int rows = static_cast<int>(m_rows.size());
  return {titleWidth() + layers * 30 + 2 * kMargin, kMargin * 2 + (rows + 2) * (kRowHeight + kGap)};
}

QSize LayerStrip::minimumSizeHint() const { return {200, 60}; }

void LayerStrip::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, false);
  const QColor text = palette().color(QPalette::WindowText);
  if (m_rows.empty()) {
    p.setPen(text);
    p.drawText(rect().adjusted(kMargin, kMargin, -kMargin, -kMargin), Qt::AlignCenter | Qt::TextWordWrap, m_message);
    return;
  }
  int layers = 0;
  for (const Row& r : m_rows) layers = std::max(layers, static_cast<int>(r.kinds.size()));
  const int left = kMargin + titleWidth();
  const int cell = std::clamp((width() - left - kMargin) / std::max(1, layers), kMinCell, kMaxCell);
  int y = kMargin;
  // Layer numbers over the cells (0: the input side).
  QFont small = font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.85));
  p.setFont(small);
  p.setPen(text);
  p.drawText(QRect(kMargin, y, left - kMargin - 4, kRowHeight), Qt::AlignRight | Qt::AlignVCenter, tr("layer"));
  for (int i = 0; i < layers; ++i)
    p.drawText(QRect(left + i * cell, y, cell, kRowHeight), Qt::AlignCenter, QString::number(i));
  y += kRowHeight;
  for (const Row& r : m_rows) {
    QFont f = font();
    f.setBold(r.emphasised);
    p.setFont(f);
    p.setPen(text);
    p.drawText(QRect(kMargin, y, left - kMargin - 4, kRowHeight), Qt::AlignLeft | Qt::AlignVCenter, r.title);
    p.setFont(small);
    for (int i = 0; i < r.kinds.size(); ++i) {
      const QRect c(left + i * cell, y + 1, cell - 2, kRowHeight - 2);
      const QColor fill = kindColor(r.kinds[i]);
      p.fillRect(c, fill);
      p.setPen(fill.lightness() > 150 ? QColor(20, 20, 20) : QColor(250, 250, 250));
      if (fontMetrics().horizontalAdvance(kindShort(r.kinds[i])) < cell - 2)
        p.drawText(c, Qt::AlignCenter, kindShort(r.kinds[i]));
    }
    y += kRowHeight + kGap;
  }
  // Legend: the kinds shown.
  y += kGap;
  int x = kMargin;
  p.setFont(font());
  for (const QString& k : kindsShown()) {
    const QString name = k == "gss" ? tr("GSS") : k == "attn" ? tr("attention") : k == "parallel" ? tr("parallel (PHA mix)") : k;
    p.fillRect(QRect(x, y + 5, 12, 12), kindColor(k));
    p.setPen(text);
    const int w = fontMetrics().horizontalAdvance(name);
    p.drawText(QRect(x + 16, y, w + 4, kRowHeight), Qt::AlignLeft | Qt::AlignVCenter, name);
    x += 16 + w + 14;
  }
}

}  // namespace pha::gui
