// ReplotThrottle: redraws a QCustomPlot at most once per interval (default 33 ms, ~30 times a
// second) however often its data changes; a request inside the interval is deferred to its
// end, so the last data is always drawn. Every replot counts, whatever asked for it (a resize
// too), and the deferred one uses rpQueuedReplot, so the event loop coalesces the rest.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

class QCustomPlot;

namespace pha::widgets {

class ReplotThrottle : public QObject {
  Q_OBJECT
 public:
  explicit ReplotThrottle(QCustomPlot* plot, int minIntervalMs = 33);

  // Replots now when the last replot is at least the interval old, else once the interval ends.
  void request();
  bool isPending() const { return m_pending.isActive(); }

 private:
  QCustomPlot* m_plot;
  int m_intervalMs;
  QElapsedTimer m_last;  // since the last replot finished
  QTimer m_pending;
};

}  // namespace pha::widgets
