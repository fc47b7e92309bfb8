// EfficiencyController: the Efficiency dock's Training tab's data. The store's profile runs
// (newest per model; not the inference benchmark's, which the Inference tab shows) and, while
// a profile is being measured, its points as they arrive, shown in place of the stored ones;
// read back from the store when the profile ends. No measuring here: the profile job runs in
// the queue's worker thread (runtime::run_profile_job through RunQueue).
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <vector>

#include "widgets/efficiency_panel.h"
#include "runtime/events.h"

namespace pha::gui {

class EfficiencyController : public QObject {
  Q_OBJECT
 public:
  explicit EfficiencyController(widgets::EfficiencyPanel* panel, QObject* parent = nullptr);

  // Reads the profile runs of the store (empty path: clears the dock).
  void load(const QString& storePath);
  // A profile begins: drops the points of an earlier live profile.
  void beginProfile(int points);
  // Points measured by the running profile; returns a status line for the last one.
  QString addEvents(const std::vector<pha::runtime::EfficiencyEvent>& events);
  // The profile ended: live points are replaced by what the store holds.
  void endProfile(const QString& storePath);

  int pointsExpected() const { return m_points; }
  int pointsDone() const { return m_done; }

 signals:
  void errorOccurred(const QString& message);
  void pointFailed(const QString& message);

 private:
  void show();

  widgets::EfficiencyPanel* m_panel;
  std::vector<widgets::EfficiencySeries> m_stored;
  std::map<QString, std::vector<pha::store::PerfRow>> m_live;
  int m_points = 0;
  int m_done = 0;
};

}  // namespace pha::gui
