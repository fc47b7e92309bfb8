#include "gui/checks/responsiveness_bench.h"

#include <QApplication>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <fstream>
#include <nlohmann/json.hpp>
#include <qcustomplot.h>
#include <vector>

#include "gui/main_window.h"
#include "gui/project/project_session.h"
#include "gui/queue/queue_controller.h"
#include "gui/queue/run_queue.h"

namespace pha::gui {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point origin) {
  return std::chrono::duration<double, std::milli>(Clock::now() - origin).count();
}

struct Gap {
  double atMs;   // when the late tick came
  double gapMs;  // time since the previous tick
};

// A precise timer on the GUI thread; each tick records the time since the previous one.
class EventLoopProbe : public QObject {
 public:
  EventLoopProbe(int intervalMs, Clock::time_point origin) : m_origin(origin) {
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, [this] {
      const double t = nowMs();
      gaps.push_back({t, t - m_last});
      m_last = t;
    });
  }
  void start() {
    m_last = nowMs();
    m_timer.start();
  }
  void stop() { m_timer.stop(); }
  double nowMs() const { return msSince(m_origin); }
  std::vector<Gap> gaps;

 private:
  QTimer m_timer;
  Clock::time_point m_origin;
  double m_last = 0.0;
};

// The control: a plain thread that sleeps the same interval and records its own gaps. It runs
// no GUI code, so a gap it shares with the event loop is the machine's (CPU load, a paused VM),
// not the workbench's.
class ReferenceProbe {
 public:
  ReferenceProbe(int intervalMs, Clock::time_point origin) {
    m_thread = std::thread([this, intervalMs, origin] {
      double last = msSince(origin);
      while (!m_stop.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(intervalMs));
        const double t = msSince(origin);
        gaps.push_back({t, t - last});
        last = t;
      }
    });
  }
  ~ReferenceProbe() { stop(); }
  void stop() {
    m_stop.store(true);
    if (m_thread.joinable()) m_thread.join();
  }
  std::vector<Gap> gaps;  // read after stop()

 private:
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

// The largest of `gaps` that overlaps [fromMs, toMs].
double largestOverlapping(const std::vector<Gap>& gaps, double fromMs, double toMs) {
  double best = 0.0;
  for (const Gap& g : gaps)
    if (g.atMs >= fromMs && g.atMs - g.gapMs <= toMs) best = std::max(best, g.gapMs);
  return best;
}

struct PlotStats {
  QString name;
  std::vector<double> atMs;      // when each replot finished
  std::vector<double> replotMs;  // how long it took (QCustomPlot::replotTime)
};

// The nearest named widget above a plot: lossPlot, qualityPlot, mixerPanel, efficiencyPanel, ...
QString plotName(const QCustomPlot* plot) {
  for (const QObject* o = plot; o; o = o->parent())
    if (!o->objectName().isEmpty()) return o->objectName();
  return QStringLiteral("plot");
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::min<double>(static_cast<double>(v.size() - 1), p * static_cast<double>(v.size())));
  return v[i];
}

int maxInOneSecond(const std::vector<double>& at) {
  int best = 0;
  for (std::size_t i = 0, j = 0; j < at.size(); ++j) {
    while (at[j] - at[i] >= 1000.0) ++i;
    best = std::max(best, static_cast<int>(j - i + 1));
  }
  return best;
}

QString loadAverage() {
  QFile f("/proc/loadavg");
  if (!f.open(QIODevice::ReadOnly)) return QStringLiteral("unknown");
  return QString::fromLatin1(f.readLine()).section(' ', 0, 2);
}

// The project to train: a copy of project.json in `dir` (its store and checkpoints land there,
// never in the original project). Returns an error message, empty on success.
QString copyProject(const ResponsivenessOptions& o, const QString& dir) {
  QString file = o.project.isEmpty() ? ProjectSession::templatesDir() + "/quickstart/project.json" : o.project;
  if (QFileInfo(file).isDir()) file += "/project.json";
  std::ifstream in(file.toStdString());
  if (!in) return QObject::tr("cannot read %1").arg(file);
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return QObject::tr("%1 is not a JSON object").arg(file);
  if (!o.profile) j.erase("profile");
  std::ofstream out((dir + "/project.json").toStdString());
  out << j.dump(2) << "\n";
  return out ? QString() : QObject::tr("cannot write %1/project.json").arg(dir);
}

struct Measurement {
  std::vector<Gap> gaps;                              // the event loop's
  std::vector<Gap> referenceGaps;                     // the control thread's
  std::vector<PlotStats> plots;
  std::vector<std::pair<double, QString>> timeline;  // what the queue was doing from when
  double totalMs = 0.0;
  QString loadBefore, loadAfter;

  QString contextAt(double t) const {
    QString what = "start";
    for (const auto& [at, label] : timeline)
      if (at <= t) what = label;
    return what;
  }
};

// Presses Run in `window` and records until the queue has finished (and 1 s more, for the
// end's store reads and redraws).
Measurement measure(MainWindow& window, int probeMs, bool search) {
  Measurement m;
  const Clock::time_point origin = Clock::now();
  EventLoopProbe probe(probeMs, origin);
  const auto allPlots = window.findChildren<QCustomPlot*>();
  m.plots.reserve(static_cast<std::size_t>(allPlots.size()));
  for (QCustomPlot* p : allPlots) {
    m.plots.push_back({plotName(p), {}, {}});
    PlotStats* stats = &m.plots.back();  // reserved: the address stays
    QObject::connect(p, &QCustomPlot::afterReplot, &probe, [stats, &probe, p] {
      stats->atMs.push_back(probe.nowMs());
      stats->replotMs.push_back(p->replotTime());
    });
  }
  auto mark = [&](const QString& what) { m.timeline.emplace_back(probe.nowMs(), what); };
  RunQueue* q = window.queue();
  QObject::connect(q, &RunQueue::runStarted, &probe, [&](const QString&, const QString& run) { mark("training " + run); });
  QObject::connect(q, &RunQueue::runEnded, &probe, [&](const QString& run, qint64, const QString& status, const QString&) {
    mark("after " + run + " (" + status + ")");
  });
  QObject::connect(q, &RunQueue::profileStarted, &probe, [&](const QString&, int points, const QStringList&) {
    mark(QString("efficiency profile (%1 points)").arg(points));
  });
  QObject::connect(q, &RunQueue::profileEnded, &probe, [&](const QString& status, const QString& message, int) {
    mark("after the profile (" + status + ": " + message + ")");
  });
  QObject::connect(q, &RunQueue::searchRunStarted, &probe,
                   [&](const QString&, const QString& job, const QString&, int index, int planned) {
                     mark(QString("search rung run %1 of %2 (%3)").arg(index).arg(planned).arg(job));
                   });
  QObject::connect(q, &RunQueue::searchUpdated, &probe, [&](const search_runner::SearchSummary&) { mark("rung decided"); });
  QObject::connect(q, &RunQueue::searchEnded, &probe, [&](const QString& status, const QString& message,
                                                          const search_runner::SearchSummary&) {
    mark("after the search (" + status + ": " + message + ")");
  });
  QEventLoop done;
  QObject::connect(q, &RunQueue::queueFinished, &probe, [&] {
    mark("queue finished");
    QTimer::singleShot(1000, &done, &QEventLoop::quit);
  });
  m.loadBefore = loadAverage();
  ReferenceProbe reference(probeMs, origin);
  probe.start();
  mark("start");
  if (search)
    window.queueController()->runSearch(*window.session(), 1);
  else
    window.runProject();
  done.exec();
  probe.stop();
  reference.stop();
  m.totalMs = probe.nowMs();
  m.loadAfter = loadAverage();
  m.gaps = std::move(probe.gaps);
  m.referenceGaps = std::move(reference.gaps);
  return m;
}

void printGaps(const Measurement& m, int probeMs) {
  std::vector<double> values, refValues;
  for (const auto& g : m.gaps) values.push_back(g.gapMs);
  for (const auto& g : m.referenceGaps) refValues.push_back(g.gapMs);
  auto maxOf = [](const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); };
  int over50 = 0, over16 = 0, ownStalls = 0;
  for (const auto& g : m.gaps) {
    over50 += g.gapMs > 50.0 ? 1 : 0;
    over16 += g.gapMs > 16.7 ? 1 : 0;
    // A stall of the event loop that the reference thread did not share.
    if (g.gapMs > 50.0 && largestOverlapping(m.referenceGaps, g.atMs - g.gapMs, g.atMs) < 0.5 * g.gapMs) ++ownStalls;
  }
  std::printf("event-loop gap between ticks (ms): median %.2f, p99 %.2f, p99.9 %.2f, max %.2f; gaps > 16.7 ms: %d, "
              "> 50 ms: %d\n",
              percentile(values, 0.5), percentile(values, 0.99), percentile(values, 0.999), maxOf(values), over16, over50);
  std::printf("reference thread (sleeps %d ms, no GUI code) gap (ms): median %.2f, p99 %.2f, max %.2f\n", probeMs,
              percentile(refValues, 0.5), percentile(refValues, 0.99), maxOf(refValues));
  std::printf("event-loop gaps > 50 ms not shared by the reference thread (the workbench's own stalls): %d\n", ownStalls);
  auto largest = m.gaps;
  std::sort(largest.begin(), largest.end(), [](const auto& a, const auto& b) { return a.gapMs > b.gapMs; });
  std::printf("largest event-loop gaps (with the reference thread's largest gap over the same time):\n");
  for (std::size_t i = 0; i < std::min<std::size_t>(5, largest.size()); ++i)
    std::printf("  %9.2f ms at %7.1f s (reference %9.2f ms), during: %s\n", largest[i].gapMs, largest[i].atMs / 1000.0,
                largestOverlapping(m.referenceGaps, largest[i].atMs - largest[i].gapMs, largest[i].atMs),
                qPrintable(m.contextAt(largest[i].atMs)));
}

void printPlots(const Measurement& m) {
  std::printf("plot redraws (afterReplot), per plot: count, mean per second, most in any 1 s, replot time mean / max:\n");
  for (const auto& p : m.plots) {
    if (p.atMs.empty()) continue;
    double sum = 0.0, worst = 0.0;
    for (double r : p.replotMs) {
      sum += r;
      worst = std::max(worst, r);
    }
    std::printf("  %-18s %6zu  %6.1f/s  %3d  %6.2f ms / %6.2f ms\n", qPrintable(p.name), p.atMs.size(),
                static_cast<double>(p.atMs.size()) * 1000.0 / m.totalMs, maxInOneSecond(p.atMs),
                sum / static_cast<double>(p.replotMs.size()), worst);
  }
}

}  // namespace

int runResponsivenessBench(const ResponsivenessOptions& o) {
  // The benchmark's window must not touch the user's settings (recent projects, layout).
  QCoreApplication::setApplicationName("pha-workbench-bench");
  QTemporaryDir tmp;
  if (!tmp.isValid()) {
    std::fprintf(stderr, "bench: cannot create a temporary folder\n");
    return 1;
  }
  if (const QString err = copyProject(o, tmp.path()); !err.isEmpty()) {
    std::fprintf(stderr, "bench: %s\n", qPrintable(err));
    return 1;
  }
  MainWindow window;
  window.show();
  window.resize(o.width, o.height);
  if (!window.openProject(tmp.path())) {
    std::fprintf(stderr, "bench: %s\n", qPrintable(window.lastError()));
    return 1;
  }
  const QStringList runs = window.session()->runNames();
  if (o.steps > 0 && !o.search)  // shortened by the engine queue's one rule (runtime::shortened_training)
    window.queue()->setTrainingOverrides(QString::fromStdString(nlohmann::json{{"steps", o.steps}}.dump()));
  const bool profiles = window.session()->profileSettings().present && window.session()->profileSettings().after_runs;
  {
    QEventLoop settle;  // let the window lay out and paint before measuring
    QTimer::singleShot(1000, &settle, &QEventLoop::quit);
    settle.exec();
  }

  const Measurement m = measure(window, o.probeMs, o.search);

  std::printf("pha-workbench --bench-responsiveness\n");
  if (o.search)
    std::printf("project: copy of %s in %s; the project's search (Run > Search): its rung runs, each of its rung's "
                "steps (the budget's; --bench-steps does not apply)\n",
                qPrintable(o.project.isEmpty() ? QString("the quickstart template") : o.project), qPrintable(tmp.path()));
  else
    std::printf("project: copy of %s in %s; runs: %s; steps per run: %s; efficiency profile after the runs: %s\n",
              qPrintable(o.project.isEmpty() ? QString("the quickstart template") : o.project), qPrintable(tmp.path()),
              qPrintable(runs.join(", ")), o.steps > 0 ? qPrintable(QString::number(o.steps)) : "the project's",
              profiles ? "yes" : "no");
  std::printf("platform: %s; window %dx%d; %d hardware threads; load average before %s, after %s\n",
              qPrintable(QGuiApplication::platformName()), window.width(), window.height(), QThread::idealThreadCount(),
              qPrintable(m.loadBefore), qPrintable(m.loadAfter));
  std::printf("duration: %.1f s; probe: %d ms precise timer on the GUI thread, %zu ticks\n", m.totalMs / 1000.0,
              o.probeMs, m.gaps.size());
  std::printf("timeline:");
  for (const auto& [at, label] : m.timeline) std::printf(" %.1f s %s;", at / 1000.0, qPrintable(label));
  std::printf("\n");
  printGaps(m, o.probeMs);
  printPlots(m);
  std::fflush(stdout);
  window.close();
  return 0;
}

}  // namespace pha::gui
