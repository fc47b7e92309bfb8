#include "widgets/replot_throttle.h"

#include <qcustomplot.h>

namespace pha::widgets {

ReplotThrottle::ReplotThrottle(QCustomPlot* plot, int minIntervalMs)
    : QObject(plot), m_plot(plot), m_intervalMs(minIntervalMs) {
  m_pending.setSingleShot(true);
  m_pending.setTimerType(Qt::PreciseTimer);
  connect(&m_pending, &QTimer::timeout, this, [this] { m_plot->replot(QCustomPlot::rpQueuedReplot); });
  connect(m_plot, &QCustomPlot::afterReplot, this, [this] { m_last.restart(); });
}

void ReplotThrottle::request() {
  if (m_pending.isActive()) return;  // the deferred replot will draw the newest data
  const qint64 since = m_last.isValid() ? m_last.elapsed() : m_intervalMs;
  if (since >= m_intervalMs)
    m_plot->replot(QCustomPlot::rpQueuedReplot);
  else
    m_pending.start(static_cast<int>(m_intervalMs - since));
}

}  // namespace pha::widgets
