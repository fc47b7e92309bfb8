// CurvePlot's hover readout (the nearest point of every series under the cursor, as
// TensorBoard's tooltip) and its data export (every point, raw and smoothed columns by name).
#include <QEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <map>
#include <qcustomplot.h>

#include "widgets/csv_file.h"
#include "widgets/curve_plot.h"
#include "widgets/replot_throttle.h"
#include "widgets/smoothing.h"

namespace pha::widgets {

namespace {

QString wallText(double s) {
  if (s < 120) return QString::number(s, 'f', 1) + " s";
  const long long t = std::llround(s);
  if (t < 3600) return QString("%1 m %2 s").arg(t / 60).arg(t % 60);
  return QString("%1 h %2 m").arg(t / 3600).arg((t % 3600) / 60);
}

QString tokensText(double t) { return QLocale(QLocale::English).toString(static_cast<qint64>(std::llround(t))); }

QString value4(double v) { return QString::number(v, 'f', 4); }

// Hover tolerance: a series is "under the cursor" when the cursor is within this many pixels of
// its x range.
constexpr int kHoverPixels = 12;

}  // namespace

int CurvePlot::nearestIndex(const Data& d, double x) const {
  const std::vector<double>& v = xs(d);
  if (v.empty()) return -1;
  const auto it = std::lower_bound(v.begin(), v.end(), x);
  if (it == v.begin()) return 0;
  if (it == v.end()) return static_cast<int>(v.size()) - 1;
  const auto i = static_cast<int>(it - v.begin());
  return std::abs(v[static_cast<std::size_t>(i)] - x) < std::abs(v[static_cast<std::size_t>(i - 1)] - x) ? i : i - 1;
}

QString CurvePlot::readoutAt(double x) const {
  const double tol = std::abs(m_plot->xAxis->pixelToCoord(kHoverPixels) - m_plot->xAxis->pixelToCoord(0));
  QStringList lines;
  const Data* head = nullptr;
  int headIndex = -1;
  struct Hit {
    QString name;
    const Data* d;
    int i;
  };
  std::vector<Hit> hits;
  for (const QString& name : m_order) {
    const Data& d = *m_series.constFind(name);
    const std::vector<double>& v = xs(d);
    if (v.empty() || x < v.front() - tol || x > v.back() + tol) continue;
    const int i = nearestIndex(d, x);
    hits.push_back({name, &d, i});
    // The header's step / tokens / time come from the first dense series (a point every step).
    if (!head || (head->kind == SeriesKind::Sparse && d.kind == SeriesKind::Dense)) {
      head = &d;
      headIndex = i;
    }
  }
  if (!head) return {};
  const auto at = [](const std::vector<double>& v, int i) { return v[static_cast<std::size_t>(i)]; };
  const double headStep = at(head->step, headIndex);
  lines << tr("step %1 · %2 tokens · %3")
               .arg(static_cast<qint64>(std::llround(headStep)))
               .arg(tokensText(at(head->tokens, headIndex)), wallText(at(head->wall, headIndex)));
  for (const Hit& h : hits) {
    const double raw = at(h.d->value, h.i), step = at(h.d->step, h.i);
    QString line = tr("%1: raw %2").arg(h.name, value4(raw));
    if (h.d->kind == SeriesKind::Dense && m_smoothing > 0 && h.i < static_cast<int>(h.d->smoothed.size()))
      line += tr(", smoothed %1").arg(value4(at(h.d->smoothed, h.i)));
    if (h.d->kind == SeriesKind::Sparse) line += tr(" (evaluation, not smoothed)");
    if (std::llround(step) != std::llround(headStep)) line += tr(" at step %1").arg(std::llround(step));
    lines << line;
  }
  return lines.join('\n');
}

void CurvePlot::onMouseMove(QMouseEvent* event) {
  const QPoint pos = event->pos();
  if (m_series.isEmpty() || !m_plot->axisRect()->rect().contains(pos)) {
    hideHover();
    return;
  }
  const double x = m_plot->xAxis->pixelToCoord(pos.x());
  m_hoverText = readoutAt(x);
  if (m_hoverText.isEmpty()) {
    hideHover();
    return;
  }
  m_cursor->point1->setCoords(x, 0);
  m_cursor->point2->setCoords(x, 1);
  m_cursor->setVisible(true);
  QToolTip::showText(m_plot->mapToGlobal(pos + QPoint(14, 10)), m_hoverText, m_plot);
  m_throttle->request();
}

void CurvePlot::hideHover() {
  m_hoverText.clear();
  if (m_cursor && m_cursor->visible()) {
    m_cursor->setVisible(false);
    m_throttle->request();
  }
  QToolTip::hideText();
}

bool CurvePlot::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_plot && event->type() == QEvent::Leave) hideHover();
  // A legend under the plot takes as many columns as the new width allows; one inside a short
  // plot lays its entries side by side.
  if (watched == m_plot && event->type() == QEvent::Resize && m_plot->legend->visible()) placeLegend();
  return QWidget::eventFilter(watched, event);
}

std::vector<CurveData> CurvePlot::data() const {
  std::vector<CurveData> out;
  for (const QString& name : m_order) {
    const Data& d = *m_series.constFind(name);
    out.push_back({name, d.kind, d.step, d.tokens, d.wall, d.value});
  }
  return out;
}

bool CurvePlot::writeCsv(const QString& path, QString* error) const {
  return writeCurvesCsv(path, data(), m_smoothing, error);
}

bool writeCurvesCsv(const QString& path, const std::vector<CurveData>& series, double smoothing, QString* error) {
  struct Row {
    double tokens = 0, wall = 0;
    bool haveX = false;
    std::vector<std::pair<int, double>> cells;  // column, value
  };
  std::map<long long, Row> rows;
  QStringList header{"step", "tokens", "wall_s"};
  const QString weight = QString::number(smoothing, 'f', 2);
  int column = 0;
  for (const CurveData& s : series) {
    const bool dense = s.kind == SeriesKind::Dense;
    const std::vector<double> smoothed = dense ? debiasedEma(s.value, smoothing) : std::vector<double>();
    header << csvField(s.name + " raw");
    if (dense) header << csvField(QString("%1 smoothed (w=%2)").arg(s.name, weight));
    for (std::size_t i = 0; i < s.step.size() && i < s.value.size(); ++i) {
      Row& r = rows[std::llround(s.step[i])];
      // Tokens and time from the first series that has the step (the dense one when it does).
      if (!r.haveX && i < s.tokens.size() && i < s.wall.size()) {
        r.tokens = s.tokens[i];
        r.wall = s.wall[i];
        r.haveX = true;
      }
      r.cells.push_back({column, s.value[i]});
      if (dense) r.cells.push_back({column + 1, smoothed[i]});
    }
    column += dense ? 2 : 1;
  }
  return writeCsvFile(path, header.join(','), [&](QTextStream& out) {
    for (const auto& [step, r] : rows) {
      out << step << ',' << csvNumber(r.tokens) << ',' << csvNumber(r.wall);
      int next = 0;
      for (const auto& [c, v] : r.cells) {
        for (; next <= c; ++next) out << ',';
        out << csvNumber(v);
      }
      for (; next < column; ++next) out << ',';
      out << '\n';
    }
  }, error);
}

}  // namespace pha::widgets
