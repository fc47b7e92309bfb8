#include "gui/project/store_watcher.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QTimer>
#include <algorithm>
#include <exception>

#include "store/store.h"
#include "store/store_changes.h"
#include "widgets/window_store.h"

namespace pha::gui {

StoreWatcher::StoreWatcher(QObject* parent) : QObject(parent), m_timer(new QTimer(this)) {
  m_timer->setInterval(500);
  connect(m_timer, &QTimer::timeout, this, &StoreWatcher::tick);
}

StoreWatcher::~StoreWatcher() = default;

void StoreWatcher::setStore(const QString& path) {
  m_store.reset();
  m_seen.clear();
  m_hidden.clear();
  m_version = -1;
  m_primed = false;
  m_path = path;
  if (path.isEmpty()) {
    m_timer->stop();
    return;
  }
  m_timer->start();
  // A store that does not exist yet has no runs: whatever it holds when it appears was added.
  if (!QFileInfo::exists(path)) m_primed = true;
  look(true);
}

void StoreWatcher::setHiddenRuns(const QSet<qint64>& ids) {
  if (ids == m_hidden) return;
  m_hidden = ids;
  look(true);
}

void StoreWatcher::setIntervalMs(int ms) { m_timer->setInterval(std::max(10, ms)); }

int StoreWatcher::intervalMs() const { return m_timer->interval(); }

void StoreWatcher::checkNow() { look(true); }

void StoreWatcher::tick() { look(false); }

bool StoreWatcher::ensureOpen() {
  if (m_store) return true;
  if (m_path.isEmpty() || !QFileInfo::exists(m_path)) return false;  // never create it here
  try {
    m_store = std::make_unique<store::Store>(store::Store::open(m_path.toStdString(), widgets::windowReadOptions()));
  } catch (const std::exception&) {
    return false;  // damaged or busy: the banner and the views say so; try again next tick
  }
  return true;
}

void StoreWatcher::look(bool force) {
  if (!ensureOpen()) return;
  try {
    const std::int64_t v = store::data_version(*m_store);
    if (!force && m_primed && v == m_version) return;
    m_version = v;
    QElapsedTimer t;
    t.start();
    std::vector<store::RunSignature> now = store::run_signatures(*m_store);
    m_lastReadMs = static_cast<double>(t.nsecsElapsed()) / 1e6;
    now.erase(std::remove_if(now.begin(), now.end(), [&](const auto& r) { return m_hidden.contains(r.id); }),
              now.end());
    const store::RunChanges diff = store::diff_runs(m_seen, now);
    m_seen = std::move(now);
    if (!m_primed) {
      m_primed = true;
      return;
    }
    if (diff.empty()) return;
    StoreChange c;
    for (auto id : diff.added) c.added.insert(id);
    for (auto id : diff.removed) c.removed.insert(id);
    for (auto id : diff.changed) c.changed.insert(id);
    ++m_changes;
    emit runsChanged(m_path, c);
  } catch (const std::exception&) {
    m_store.reset();  // the file went away or was replaced (a recovery): reopen next tick
  }
}

}  // namespace pha::gui
