#include "widgets/token_text_view.h"

#include <QHelpEvent>
#include <QLinearGradient>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace pha::widgets {

namespace {

constexpr int kLegendHeight = 34;
constexpr int kPad = 4;

QColor mix(const QColor& a, const QColor& b, double f) {
  f = std::clamp(f, 0.0, 1.0);
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}

// Sequential: white - orange - dark red; diverging: blue - white - vermilion (f in -1..1).
QColor heatColor(double f) {
  const QColor w(255, 255, 255), o(250, 170, 70), r(170, 20, 20);
  return f < 0.5 ? mix(w, o, f * 2) : mix(o, r, (f - 0.5) * 2);
}
QColor divergingColor(double f) {
  const QColor w(247, 247, 247), blue(0, 90, 160), red(200, 70, 0);
  return f < 0 ? mix(w, blue, -f) : mix(w, red, f);
}

}  // namespace

TokenTextView::TokenTextView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  QSizePolicy p(QSizePolicy::Preferred, QSizePolicy::Preferred);
  p.setHeightForWidth(true);
  setSizePolicy(p);
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, Qt::white);
  pal.setColor(QPalette::WindowText, Qt::black);
  setPalette(pal);
  clear(tr("Nothing measured yet."));
}

void TokenTextView::setTokens(std::vector<TokenSpan> tokens, Scale scale, double hi, const QString& legend) {
  m_tokens = std::move(tokens);
  m_scale = scale;
  m_hi = hi > 0 && std::isfinite(hi) ? hi : 1.0;
  m_legend = legend;
  m_message.clear();
  m_laidOutWidth = -1;
  setMinimumHeight(heightForWidth(std::max(200, width())));
  updateGeometry();
  update();
}

void TokenTextView::clear(const QString& message) {
  m_tokens.clear();
  m_rects.clear();
  m_message = message;
  m_legend.clear();
  m_laidOutWidth = -1;
  setMinimumHeight(80);
  updateGeometry();
  update();
}

QColor TokenTextView::colorOf(int i) const {
  const float v = m_tokens[static_cast<size_t>(i)].value;
  if (!std::isfinite(v)) return QColor(255, 255, 255);
  return m_scale == Scale::Sequential ? heatColor(v / m_hi) : divergingColor(std::clamp(v / m_hi, -1.0, 1.0));
}

QString TokenTextView::shown(const TokenSpan& t) const {
  if (t.separator) return t.text;
  QString s = t.text;
  if (s.endsWith('\n')) s.chop(1), s += QChar(0x21B5);  // a visible return mark
  else if (s.endsWith(QLatin1String("\\n"))) s.chop(2), s += QChar(0x21B5);  // escaped by the lens
  return s.isEmpty() ? QStringLiteral(" ") : s;
}

QFont TokenTextView::legendFont() const {
  QFont small = font();
  small.setPointSizeF(std::max(7.0, font().pointSizeF() * 0.85));
  return small;
}

// The legend's text beside the colour ramp wraps over as many lines as it needs (a comparison of
// two groups names both: it was cut at two lines); at least kLegendHeight.
QRect TokenTextView::legendTextRect(int width) const {
  const int left = kPad + std::min(220, width / 3) + 10;
  const int w = std::max(40, width - left - 4);
  const QRect need = QFontMetrics(legendFont()).boundingRect(QRect(0, 0, w, 10000), Qt::TextWordWrap, m_legend);
  return QRect(left, 2, w, std::max(kLegendHeight - 4, need.height() + 2));
}

int TokenTextView::layoutTokens(int width, std::vector<QRect>* rects) const {
  const QFontMetrics fm(font());
  const int lineH = fm.height() + 4;
  int x = kPad, y = legendTextRect(width).bottom() + 4 + kPad;
  if (rects) rects->assign(m_tokens.size(), QRect());
  for (size_t i = 0; i < m_tokens.size(); ++i) {
    const TokenSpan& t = m_tokens[i];
    if (t.separator) {
      if (x > kPad) y += lineH;
      y += 4;
      if (rects) (*rects)[i] = QRect(kPad, y, width - 2 * kPad, lineH);
      y += lineH;
      x = kPad;
      continue;
    }
    const int w = fm.horizontalAdvance(shown(t)) + 2;
    if (x + w > width - kPad && x > kPad) {
      x = kPad;
      y += lineH;
    }
    if (rects) (*rects)[i] = QRect(x, y, w, lineH - 2);
    x += w;
    if (t.lineBreak) {
      x = kPad;
      y += lineH;
    }
  }
  return y + lineH + kPad;
}

int TokenTextView::heightForWidth(int width) const {
  if (m_tokens.empty()) return 80;
  return layoutTokens(std::max(120, width), nullptr);
}

void TokenTextView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (width() != m_laidOutWidth && !m_tokens.empty()) {
    m_laidOutWidth = width();
    const int h = layoutTokens(width(), &m_rects);
    if (minimumHeight() != h) setMinimumHeight(h);
  }
}

int TokenTextView::tokenAt(const QPoint& pos) const {
  for (size_t i = 0; i < m_rects.size(); ++i)
    if (!m_tokens[i].separator && m_rects[i].contains(pos)) return static_cast<int>(i);
  return -1;
}

bool TokenTextView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const int i = tokenAt(help->pos());
    if (i >= 0 && !m_tokens[static_cast<size_t>(i)].toolTip.isEmpty())
      QToolTip::showText(help->globalPos(), m_tokens[static_cast<size_t>(i)].toolTip, this, m_rects[static_cast<size_t>(i)]);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(e);
}

void TokenTextView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  p.setPen(Qt::black);
  if (m_tokens.empty()) {
    p.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, m_message);
    return;
  }
  if (m_laidOutWidth != width()) {
    m_laidOutWidth = width();
    layoutTokens(width(), &m_rects);
  }
  // The legend: the colour ramp with its ends and middle, and what it measures.
  const QRect bar(kPad, 4, std::min(220, width() / 3), 12);
  QLinearGradient g(bar.topLeft(), bar.topRight());
  for (int k = 0; k <= 10; ++k) {
    const double f = k / 10.0;
    g.setColorAt(f, m_scale == Scale::Sequential ? heatColor(f) : divergingColor(2 * f - 1));
  }
  p.fillRect(bar, g);
  p.drawRect(bar);
  p.setFont(legendFont());
  const QString lo = m_scale == Scale::Sequential ? QStringLiteral("0") : QString::number(-m_hi, 'g', 2);
  const QString hi = QString::number(m_hi, 'g', 2);
  p.drawText(QRect(bar.left(), bar.bottom() + 1, bar.width(), 14), Qt::AlignLeft, lo);
  p.drawText(QRect(bar.left(), bar.bottom() + 1, bar.width(), 14), Qt::AlignRight, hi);
  if (m_scale == Scale::Diverging) p.drawText(QRect(bar.left(), bar.bottom() + 1, bar.width(), 14), Qt::AlignHCenter, "0");
  p.drawText(legendTextRect(width()), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, m_legend);
  p.setFont(font());
  for (size_t i = 0; i < m_tokens.size() && i < m_rects.size(); ++i) {
    const TokenSpan& t = m_tokens[i];
    const QRect& r = m_rects[i];
    if (!r.intersects(p.clipBoundingRect().toAlignedRect()) && !p.clipBoundingRect().isEmpty()) continue;
    if (t.separator) {
      p.setPen(QColor(110, 110, 110));
      p.drawLine(r.left(), r.center().y(), r.left() + 8, r.center().y());
      p.drawText(r.adjusted(12, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, t.text);
      continue;
    }
    const QColor c = colorOf(static_cast<int>(i));
    if (std::isfinite(t.value)) p.fillRect(r, c);
    p.setPen(c.lightnessF() < 0.45 ? Qt::white : Qt::black);
    p.drawText(r, Qt::AlignCenter, shown(t));
  }
}

}  // namespace pha::widgets
