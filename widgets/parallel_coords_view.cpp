#include "widgets/parallel_coords_view.h"

#include <QEvent>
#include <QFontMetricsF>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

namespace pha::widgets {

namespace {

constexpr double kLeft = 84;       // room for the first axis's tick labels
constexpr double kBarArea = 92;    // the colour bar, its labels and its title
constexpr double kNoBar = 30;
constexpr double kMinSpacing = 84;  // between axes, below which the view asks for more width
constexpr double kHoverPx = 5;
constexpr double kBrushHalfWidth = 8;

const ParallelAxis* metricAxis(const ParallelData& d) {
  for (const auto& a : d.axes)
    if (a.metric) return &a;
  return nullptr;
}

}  // namespace

ParallelCoordsView::ParallelCoordsView(QWidget* parent) : QWidget(parent) {
  setObjectName("compareParallelView");
  setMouseTracking(true);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void ParallelCoordsView::setData(ParallelData data) {
  // Keep the order the user made: the axes whose keys stay take the places they had, in that
  // order, the new ones follow in the data's order. The metric axis keeps its place when
  // another metric replaces it.
  auto orderKey = [](const ParallelAxis& a) { return a.metric ? QStringLiteral("\n metric") : a.key; };
  QStringList before;
  for (const auto& a : m_data.axes) before << orderKey(a);
  std::vector<std::pair<qsizetype, std::size_t>> rank;  // (place before, or past the end; index now)
  for (std::size_t i = 0; i < data.axes.size(); ++i) {
    const qsizetype at = before.indexOf(orderKey(data.axes[i]));
    rank.emplace_back(at < 0 ? before.size() + qsizetype(i) : at, i);
  }
  std::sort(rank.begin(), rank.end());
  std::vector<ParallelAxis> ordered;
  for (const auto& r : rank) ordered.push_back(std::move(data.axes[r.second]));
  data.axes = std::move(ordered);
  const bool hadBrushes = !m_brushes.isEmpty();
  const QString currentKey = m_current >= 0 && m_current < axisCount() ? axis(m_current).key : QString();
  m_data = std::move(data);
  m_brushes.clear();
  m_hover = -1;
  m_drag = Drag::None;
  m_current = axisKeys().indexOf(currentKey);
  recolor();
  updateGeometry();
  update();
  if (hadBrushes) emit brushChanged();
}

QStringList ParallelCoordsView::axisKeys() const {
  QStringList keys;
  for (const auto& a : m_data.axes) keys << a.key;
  return keys;
}

void ParallelCoordsView::moveAxis(int from, int to) {
  const int n = axisCount();
  if (from < 0 || from >= n) return;
  to = std::clamp(to, 0, n - 1);
  if (from == to) return;
  const QString currentKey = m_current >= 0 ? axis(m_current).key : QString();
  ParallelAxis moved = std::move(m_data.axes[static_cast<std::size_t>(from)]);
  m_data.axes.erase(m_data.axes.begin() + from);
  m_data.axes.insert(m_data.axes.begin() + to, std::move(moved));
  m_current = axisKeys().indexOf(currentKey);
  update();
  emit axesMoved();
  emit currentAxisChanged(m_current);
}

void ParallelCoordsView::setCurrentAxis(int i) {
  i = i >= 0 && i < axisCount() ? i : -1;
  if (i == m_current) return;
  m_current = i;
  update();
  emit currentAxisChanged(i);
}

void ParallelCoordsView::setBrush(int a, double lowPosition, double highPosition) {
  if (a < 0 || a >= axisCount()) return;
  if (lowPosition > highPosition) std::swap(lowPosition, highPosition);
  m_brushes[axis(a).key] = AxisBrush{std::clamp(lowPosition, 0.0, 1.0), std::clamp(highPosition, 0.0, 1.0)};
  update();
  emit brushChanged();
}

void ParallelCoordsView::setBrushValues(int a, double low, double high) {
  if (a < 0 || a >= axisCount()) return;
  setBrush(a, axis(a).positionOf(low), axis(a).positionOf(high));
}

void ParallelCoordsView::clearBrush(int a) {
  if (a < 0 || a >= axisCount() || !m_brushes.remove(axis(a).key)) return;
  update();
  emit brushChanged();
}

void ParallelCoordsView::clearBrushes() {
  if (m_brushes.isEmpty()) return;
  m_brushes.clear();
  update();
  emit brushChanged();
}

bool ParallelCoordsView::hasBrush(int a) const { return a >= 0 && a < axisCount() && m_brushes.contains(axis(a).key); }

void ParallelCoordsView::recolor() {
  const std::size_t n = static_cast<std::size_t>(m_data.refs.size());
  m_quality.assign(n, std::numeric_limits<double>::quiet_NaN());
  m_colors.assign(n, QColor(150, 150, 150));
  const ParallelAxis* m = metricAxis(m_data);
  if (!m) return;
  for (std::size_t i = 0; i < n; ++i) {
    m_quality[i] = metricQuality(*m, m_data.goal, m->values[i]);
    if (std::isfinite(m_quality[i])) m_colors[i] = sequentialColor(m_quality[i]);
  }
}

QColor ParallelCoordsView::runColor(int run) const {
  return run >= 0 && run < int(m_colors.size()) ? m_colors[static_cast<std::size_t>(run)] : QColor();
}

ParallelCoordsView::Frame ParallelCoordsView::frame(const QSize& size) const {
  const double line = QFontMetricsF(font()).height();
  Frame f{};
  f.top = 4 * line + 16;  // up to three lines of key and one of notes
  f.bottom = size.height() - line - 4;
  // Room for the first axis's tick labels (a family's name), within limits.
  const QFontMetricsF fm(font());
  double widest = 0;
  if (axisCount() > 0)
    for (const auto& tick : axis(0).ticks()) widest = std::max(widest, fm.horizontalAdvance(tick.second));
  f.left = std::clamp(widest + 14, 40.0, kLeft + 40);
  f.right = size.width() - (metricAxis(m_data) ? kBarArea : kNoBar);
  f.barX = size.width() - kBarArea + 34;
  return f;
}

double ParallelCoordsView::axisXIn(const Frame& f, int a) const {
  const int n = axisCount();
  if (n <= 1) return (f.left + f.right) / 2;
  return f.left + (f.right - f.left) * a / double(n - 1);
}

double ParallelCoordsView::axisX(int a) const { return axisXIn(frame(size()), a); }

double ParallelCoordsView::positionY(double position) const {
  const Frame f = frame(size());
  return f.bottom - position * (f.bottom - f.top);
}

double ParallelCoordsView::titleY() const { return frame(size()).top / 2; }

int ParallelCoordsView::axisNear(double x, double tolerance) const {
  int best = -1;
  double bestDist = tolerance;
  for (int a = 0; a < axisCount(); ++a) {
    const double d = std::abs(axisX(a) - x);
    if (d <= bestDist) {
      best = a;
      bestDist = d;
    }
  }
  return best;
}

int ParallelCoordsView::slotAt(double x) const {
  int best = 0;
  for (int a = 1; a < axisCount(); ++a)
    if (std::abs(axisX(a) - x) < std::abs(axisX(best) - x)) best = a;
  return best;
}

int ParallelCoordsView::runAt(const QPointF& point) const {
  const int n = axisCount();
  if (n < 2 || !m_data.emptyMessage.isEmpty()) return -1;
  int seg = -1;
  for (int a = 0; a + 1 < n; ++a)
    if (point.x() >= axisX(a) - kHoverPx && point.x() <= axisX(a + 1) + kHoverPx) {
      seg = a;
      break;
    }
  if (seg < 0) return -1;
  const double x0 = axisX(seg), x1 = axisX(seg + 1);
  const double t = std::clamp((point.x() - x0) / (x1 - x0), 0.0, 1.0);
  const std::vector<bool> kept = keptRuns();
  int best = -1;
  double bestDist = kHoverPx;
  bool bestKept = false;
  for (int r = 0; r < m_data.refs.size(); ++r) {
    const double p0 = axis(seg).position(r), p1 = axis(seg + 1).position(r);
    if (!std::isfinite(p0) || !std::isfinite(p1)) continue;
    const double d = std::abs(positionY(p0 + t * (p1 - p0)) - point.y());
    const bool k = kept[static_cast<std::size_t>(r)];
    if (d > kHoverPx || (bestKept && !k)) continue;  // a drawn line wins over a faded one
    if (d < bestDist || (k && !bestKept)) {
      best = r;
      bestDist = d;
      bestKept = k;
    }
  }
  return best;
}

QString ParallelCoordsView::hoverText(int run) const {
  if (run < 0 || run >= m_data.refs.size()) return {};
  QStringList lines{QStringLiteral("<b>%1</b> (run %2)").arg(m_data.labels[run].toHtmlEscaped()).arg(m_data.refs[run].runId)};
  for (const auto& a : m_data.axes) {
    QString line = QStringLiteral("%1: %2").arg(a.key.toHtmlEscaped(), a.texts[static_cast<std::size_t>(run)].toHtmlEscaped());
    if (!a.followers.isEmpty()) line += tr(" (and %1 settings that change with it)").arg(a.followers.size());
    lines << line;
  }
  return lines.join(QStringLiteral("<br>"));
}

QString ParallelCoordsView::axisToolTip(int a) const {
  if (a < 0 || a >= axisCount()) return {};
  const ParallelAxis& ax = axis(a);
  QString tip = tr("<b>%1</b>, %2 axis").arg(ax.key.toHtmlEscaped(), ax.scaleName());
  if (ax.metric) tip += tr(": each run's final value; %1").arg(ax.note);
  if (!ax.followers.isEmpty()) {
    QStringList keys;
    for (const QString& k : ax.followers) keys << k.toHtmlEscaped();
    tip += tr("<br>Stands also for %1 settings that split the runs the same way: %2")
               .arg(ax.followers.size())
               .arg(keys.join(QStringLiteral(", ")));
  }
  return tip + tr("<br>Drag the title to move the axis; drag on the axis to brush; double-click to clear its brush.");
}

QSize ParallelCoordsView::minimumSizeHint() const {
  const int n = std::max(2, axisCount());
  return QSize(int(kLeft + kBarArea + (n - 1) * kMinSpacing), 180);
}

QSize ParallelCoordsView::sizeHint() const { return minimumSizeHint().expandedTo(QSize(800, 420)); }

QStringList ParallelCoordsView::titleLines(const ParallelAxis& a, double width) const {
  const QFontMetricsF fm(font());
  QStringList parts = a.key.split('.');
  QStringList lines;
  for (int i = 0; i < parts.size(); ++i) {
    const QString piece = parts[i] + (i + 1 < parts.size() ? QStringLiteral(".") : QString());
    if (!lines.isEmpty() && fm.horizontalAdvance(lines.back() + piece) <= width) lines.back() += piece;
    else lines << piece;
  }
  while (lines.size() > 3) lines[lines.size() - 2] += lines.takeLast();  // the rest elided on the third line
  for (QString& l : lines) l = fm.elidedText(l, Qt::ElideMiddle, width);
  return lines;
}

void ParallelCoordsView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paintInto(p, size());
}

void ParallelCoordsView::paintInto(QPainter& p, const QSize& size) const {
  p.fillRect(QRect(QPoint(0, 0), size), palette().base());
  p.setRenderHint(QPainter::Antialiasing);
  p.setFont(font());
  if (!m_data.emptyMessage.isEmpty() || axisCount() == 0) {
    paintEmpty(p, size);
    return;
  }
  const Frame f = frame(size);
  paintLines(p, f);
  paintAxes(p, f);
  if (metricAxis(m_data)) paintColorBar(p, f);
}

void ParallelCoordsView::paintEmpty(QPainter& p, const QSize& size) const {
  p.setPen(palette().color(QPalette::PlaceholderText));
  const QString text = m_data.emptyMessage.isEmpty() ? tr("Nothing to draw.") : m_data.emptyMessage;
  p.drawText(QRectF(24, 24, size.width() - 48, size.height() - 48), Qt::AlignCenter | Qt::TextWordWrap, text);
}

void ParallelCoordsView::paintLines(QPainter& p, const Frame& f) const {
  const std::vector<bool> kept = keptRuns();
  const bool anyBrush = !m_brushes.isEmpty();
  auto pathOf = [&](int r) {
    QPainterPath path;
    bool open = false;
    for (int a = 0; a < axisCount(); ++a) {
      const double pos = axis(a).position(r);
      if (!std::isfinite(pos)) {
        open = false;  // no value here: the line breaks
        continue;
      }
      const QPointF pt(axisXIn(f, a), f.bottom - pos * (f.bottom - f.top));
      if (open) path.lineTo(pt);
      else path.moveTo(pt);
      open = true;
    }
    return path;
  };
  std::vector<int> order(static_cast<std::size_t>(m_data.refs.size()));
  std::iota(order.begin(), order.end(), 0);
  // Faded runs first, then the kept ones from worst to best: the best lines lie on top.
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (kept[ua] != kept[ub]) return !kept[ua];
    const double qa = std::isfinite(m_quality[ua]) ? m_quality[ua] : -1, qb = std::isfinite(m_quality[ub]) ? m_quality[ub] : -1;
    return qa < qb;
  });
  QColor faded = palette().color(QPalette::Text);
  faded.setAlpha(40);
  for (int r : order) {
    const auto u = static_cast<std::size_t>(r);
    if (!kept[u]) {
      p.setPen(QPen(faded, 1.0));
    } else {
      QColor c = m_colors[u];
      c.setAlpha(anyBrush ? 255 : 220);
      p.setPen(QPen(c, anyBrush ? 2.2 : 1.6));
    }
    p.drawPath(pathOf(r));
  }
  if (m_hover >= 0 && m_hover < m_data.refs.size()) {
    const QPainterPath path = pathOf(m_hover);
    p.setPen(QPen(palette().color(QPalette::Text), 4.5));
    p.drawPath(path);
    p.setPen(QPen(m_colors[static_cast<std::size_t>(m_hover)], 2.5));
    p.drawPath(path);
  }
}

// Each axis's line, ticks, brush and title, and the dragged axis's ghost.
void ParallelCoordsView::paintAxes(QPainter& p, const Frame& f) const {
  const QFontMetricsF fm(font());
  const double spacing = axisCount() > 1 ? (f.right - f.left) / (axisCount() - 1) : f.right - f.left;
  const double axisLabelWidth = std::clamp(spacing - 16, 30.0, 120.0);
  const QColor text = palette().color(QPalette::Text);
  QColor halo = palette().color(QPalette::Base);
  halo.setAlpha(200);
  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.9);
  QFont bold = font();
  bold.setBold(true);
  for (int a = 0; a < axisCount(); ++a) {
    const ParallelAxis& ax = axis(a);
    const double x = axisXIn(f, a);
    const double labelWidth = a == 0 ? f.left - 8 : axisLabelWidth;
    p.setPen(QPen(text, 1.2));
    p.drawLine(QPointF(x, f.top), QPointF(x, f.bottom));
    for (const auto& [pos, label] : ax.ticks()) {
      const double y = f.bottom - pos * (f.bottom - f.top);
      p.drawLine(QPointF(x - 4, y), QPointF(x, y));
      const QString shown = fm.elidedText(label, Qt::ElideMiddle, labelWidth);
      const QRectF box(x - 6 - labelWidth, y - fm.height() / 2, labelWidth, fm.height());
      const double w = fm.horizontalAdvance(shown);
      p.fillRect(QRectF(box.right() - w - 2, box.top(), w + 3, box.height()), halo);  // readable over the lines
      p.drawText(box, Qt::AlignRight | Qt::AlignVCenter, shown);
    }
    if (auto it = m_brushes.find(ax.key); it != m_brushes.end()) {
      const double y0 = f.bottom - it->high * (f.bottom - f.top), y1 = f.bottom - it->low * (f.bottom - f.top);
      QColor fill = palette().color(QPalette::Highlight);
      fill.setAlpha(70);
      p.setPen(QPen(palette().color(QPalette::Highlight), 1.5));
      p.setBrush(fill);
      p.drawRect(QRectF(x - kBrushHalfWidth, y0, 2 * kBrushHalfWidth, std::max(2.0, y1 - y0)));
      p.setBrush(Qt::NoBrush);
    }
    if (m_drag == Drag::Axis && a == m_dragAxis && m_moved) continue;  // drawn at the mouse below
    QStringList lines = titleLines(ax, spacing - 6);
    QStringList notes;
    if (ax.metric) notes << ax.note;
    else if (ax.scale == AxisScale::Log) notes << tr("log");
    if (!ax.followers.isEmpty()) notes << tr("+%1 with it").arg(ax.followers.size());
    const QString note = notes.join(QStringLiteral(", "));
    const double lineH = fm.height();
    double y = f.top - 10 - lineH * (lines.size() + (note.isEmpty() ? 0 : 1));
    p.setPen(text);
    p.setFont(a == m_current || ax.metric ? bold : font());
    if (a == m_current) {
      QColor sel = palette().color(QPalette::Highlight);
      sel.setAlpha(45);
      p.fillRect(QRectF(x - spacing / 2 + 3, y - 2, spacing - 6, f.top - 6 - y), sel);
    }
    for (const QString& l : lines) {
      p.drawText(QRectF(x - spacing / 2, y, spacing, lineH), Qt::AlignCenter, l);
      y += lineH;
    }
    p.setFont(small);
    if (!note.isEmpty()) p.drawText(QRectF(x - spacing / 2, y, spacing, lineH), Qt::AlignCenter, note);
    p.setFont(font());
  }
  if (m_drag == Drag::Axis && m_moved && m_dragAxis >= 0 && m_dragAxis < axisCount()) {
    const double slotX = axisXIn(f, slotAt(m_mouse.x()));
    p.setPen(QPen(palette().color(QPalette::Highlight), 2, Qt::DashLine));
    p.drawLine(QPointF(slotX, f.top - 8), QPointF(slotX, f.bottom));
    const QStringList lines = titleLines(axis(m_dragAxis), spacing - 6);
    const QRectF box(m_mouse.x() - spacing / 2, f.top - 10 - fm.height() * lines.size(), spacing, fm.height() * lines.size());
    QColor sel = palette().color(QPalette::Highlight);
    sel.setAlpha(90);
    p.fillRect(box, sel);
    p.setPen(text);
    p.setFont(bold);
    p.drawText(box, Qt::AlignCenter, lines.join('\n'));
    p.setFont(font());
  }
}

void ParallelCoordsView::paintColorBar(QPainter& p, const Frame& f) const {
  const ParallelAxis& m = *metricAxis(m_data);
  const QFontMetricsF fm(font());
  const QRectF bar(f.barX, f.top, 12, f.bottom - f.top);
  QLinearGradient g(bar.bottomLeft(), bar.topLeft());  // stop 0 = bottom = the axis's low end
  for (int i = 0; i <= 16; ++i) {
    const double pos = i / 16.0;
    g.setColorAt(pos, sequentialColor(m_data.goal == core::MetricGoal::Minimize ? 1.0 - pos : pos));
  }
  p.setPen(QPen(palette().color(QPalette::Text), 0.8));
  p.setBrush(g);
  p.drawRect(bar);
  p.setBrush(Qt::NoBrush);
  const bool bestLow = m_data.goal == core::MetricGoal::Minimize;
  const bool marked = m_data.goal != core::MetricGoal::None;
  const double lx = bar.right() + 4, lw = 50;
  QFont bold = font();
  bold.setBold(true);
  auto label = [&](double y, double value, bool best, Qt::Alignment v) {
    p.setFont(best && marked ? bold : font());
    const QString t = QString::number(value, 'g', 4) + (best && marked ? QStringLiteral("\n") + tr("best") : QString());
    const double h = fm.height() * (best && marked ? 2 : 1);
    p.drawText(QRectF(lx, v == Qt::AlignTop ? y : y - h, lw, h), Qt::AlignLeft | v, t);
  };
  label(bar.top(), m.valueAt(1.0), !bestLow, Qt::AlignTop);
  label(bar.bottom(), m.valueAt(0.0), bestLow, Qt::AlignBottom);
  p.setFont(font());
  // The bar's title, upright along its left side: which key colours the lines, and which end is better.
  p.save();
  p.translate(bar.left() - 6, (bar.top() + bar.bottom()) / 2);
  p.rotate(-90);
  const QString title = QStringLiteral("%1: %2").arg(m.key, m.note);
  p.drawText(QRectF(-(bar.height() / 2), -fm.height(), bar.height(), fm.height()), Qt::AlignCenter,
             fm.elidedText(title, Qt::ElideMiddle, bar.height()));
  p.restore();
}

void ParallelCoordsView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || axisCount() == 0 || !m_data.emptyMessage.isEmpty()) return;
  const QPointF pos = event->position();
  const Frame f = frame(size());
  m_press = m_mouse = pos;
  m_moved = false;
  const double spacing = axisCount() > 1 ? (f.right - f.left) / (axisCount() - 1) : 200;
  if (pos.y() < f.top - 4) {
    const int a = axisNear(pos.x(), spacing / 2);
    if (a < 0) return;
    setCurrentAxis(a);
    m_drag = Drag::Axis;
    m_dragAxis = a;
    setCursor(Qt::ClosedHandCursor);
  } else if (const int a = axisNear(pos.x(), kBrushHalfWidth + 6); a >= 0 && pos.y() <= f.bottom + 6) {
    m_drag = Drag::Brush;
    m_dragAxis = a;
    m_anchor = std::clamp((f.bottom - pos.y()) / (f.bottom - f.top), 0.0, 1.0);
  }
}

void ParallelCoordsView::mouseMoveEvent(QMouseEvent* event) {
  const QPointF pos = event->position();
  m_mouse = pos;
  const Frame f = frame(size());
  if (m_drag == Drag::Brush) {
    if (std::abs(pos.y() - m_press.y()) < 3 && !m_moved) return;
    m_moved = true;
    const double at = std::clamp((f.bottom - pos.y()) / (f.bottom - f.top), 0.0, 1.0);
    m_brushes[axis(m_dragAxis).key] = AxisBrush{std::min(at, m_anchor), std::max(at, m_anchor)};
    update();
    return;
  }
  if (m_drag == Drag::Axis) {
    m_moved = m_moved || std::abs(pos.x() - m_press.x()) > 4;
    update();
    return;
  }
  const double spacing = axisCount() > 1 ? (f.right - f.left) / (axisCount() - 1) : 200;
  if (const int a = pos.y() < f.top - 4 ? axisNear(pos.x(), spacing / 2) : -1; a >= 0) {
    setCursor(Qt::OpenHandCursor);
    QToolTip::showText(event->globalPosition().toPoint(), axisToolTip(a), this);
    return;
  }
  if (axisNear(pos.x(), kBrushHalfWidth + 6) >= 0) setCursor(Qt::SizeVerCursor);
  else unsetCursor();
  const int run = runAt(pos);
  if (run != m_hover) {
    m_hover = run;
    update();
  }
  if (run >= 0) QToolTip::showText(event->globalPosition().toPoint(), hoverText(run), this);
  else QToolTip::hideText();
}

void ParallelCoordsView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const Drag drag = std::exchange(m_drag, Drag::None);
  unsetCursor();
  if (drag == Drag::Brush && m_moved) emit brushChanged();
  if (drag == Drag::Axis) {
    if (m_moved) moveAxis(m_dragAxis, slotAt(event->position().x()));
    update();
  }
  m_moved = false;
}

void ParallelCoordsView::mouseDoubleClickEvent(QMouseEvent* event) {
  const Frame f = frame(size());
  const double spacing = axisCount() > 1 ? (f.right - f.left) / (axisCount() - 1) : 200;
  const bool onTitle = event->position().y() < f.top - 4;
  const int a = axisNear(event->position().x(), onTitle ? spacing / 2 : kBrushHalfWidth + 6);
  m_drag = Drag::None;
  if (a >= 0) clearBrush(a);
}

void ParallelCoordsView::leaveEvent(QEvent*) {
  if (m_hover < 0) return;
  m_hover = -1;
  update();
}

}  // namespace pha::widgets
