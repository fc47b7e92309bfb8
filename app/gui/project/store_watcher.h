// StoreWatcher: the window's one notification path for store changes (docs/gui.md, "One store,
// every view current"). The run store is shared by design: `pha` processes, the window's
// worker threads and the window's own actions all write it. The watcher keeps its own
// connection and, every interval (500 ms), asks SQLite whether anyone committed since
// (PRAGMA data_version: a few microseconds); only then it reads every run's signature (name,
// status, notes, tags, group, times, evaluation count: one query, store/store_changes.h) and
// emits runsChanged with the runs added, removed and changed. Every view subscribes: the run
// table, Live curves, Compare, the notes panel, Report and Search refresh what changed.
//
// Runs the window deleted but has not yet removed from the store (RunActions' undo) count as
// removed (setHiddenRuns). checkNow() looks at once (after the window's own writes).
#pragma once

#include <QObject>
#include <QSet>
#include <QString>
#include <memory>
#include <vector>

class QTimer;

namespace pha::store {
class Store;
struct RunSignature;
}  // namespace pha::store

namespace pha::gui {

struct StoreChange {
  QSet<qint64> added, removed, changed;
  bool isEmpty() const { return added.isEmpty() && removed.isEmpty() && changed.isEmpty(); }
  bool touches(qint64 runId) const { return removed.contains(runId) || changed.contains(runId); }
};

class StoreWatcher : public QObject {
  Q_OBJECT
 public:
  explicit StoreWatcher(QObject* parent = nullptr);
  ~StoreWatcher() override;

  // Follows this store ("" or a damaged store: none). The first look records the runs as they
  // are (no signal); a store file that does not exist yet is looked for at every tick.
  void setStore(const QString& path);
  QString storePath() const { return m_path; }
  // Runs hidden in the window (deleted, not yet committed): reported as removed; unhiding them
  // reports them as added. Looks at once.
  void setHiddenRuns(const QSet<qint64>& ids);
  void setIntervalMs(int ms);
  int intervalMs() const;
  // Looks now, whether or not data_version moved (after the window's own writes).
  void checkNow();
  // How long the last signature read took (ms) and how many looks found a change (for the
  // responsiveness bench and tests).
  double lastReadMs() const { return m_lastReadMs; }
  qint64 changesSeen() const { return m_changes; }

 signals:
  void runsChanged(const QString& storePath, const pha::gui::StoreChange& change);

 private:
  void tick();
  void look(bool force);
  bool ensureOpen();

  QString m_path;
  QTimer* m_timer;
  std::unique_ptr<pha::store::Store> m_store;
  std::vector<pha::store::RunSignature> m_seen;  // without the hidden runs
  QSet<qint64> m_hidden;
  std::int64_t m_version = -1;
  bool m_primed = false;
  double m_lastReadMs = 0;
  qint64 m_changes = 0;
};

}  // namespace pha::gui
