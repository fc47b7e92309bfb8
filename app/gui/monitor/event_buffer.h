// EventBuffer: the events of the run that is training, between the queue's worker thread (the
// engine's RunObserver calls append) and the GUI thread, which takes them all at once and feeds
// the live views (RunMonitor, EfficiencyController). Thread-safe; no Qt objects.
#pragma once

#include <QMetaType>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/events.h"

namespace pha::gui {

// Thread-safe buffer: the trainer thread appends, the GUI thread takes everything at once.
class EventBuffer : public pha::runtime::RunObserver {
 public:
  struct Batch {
    std::vector<pha::runtime::StepMetrics> steps;
    std::vector<pha::runtime::MixerEvent> mixers;
    std::vector<pha::runtime::BranchNormEvent> norms;
    std::vector<pha::runtime::EvalEvent> evals;
    std::vector<pha::runtime::EfficiencyEvent> efficiency;
    std::vector<pha::runtime::LogEvent> logs;
    std::vector<pha::runtime::StatusEvent> statuses;
    // The run these events are of when runs train side by side (RunQueue::setJobs); "" for the
    // queue's one current item.
    std::string run;
    bool empty() const;
  };

  void on_step(const pha::runtime::StepMetrics& e) override;
  void on_mixer(const pha::runtime::MixerEvent& e) override;
  void on_branch_norms(const pha::runtime::BranchNormEvent& e) override;
  void on_eval(const pha::runtime::EvalEvent& e) override;
  void on_efficiency(const pha::runtime::EfficiencyEvent& e) override;
  void on_log(const pha::runtime::LogEvent& e) override;
  void on_status(const pha::runtime::StatusEvent& e) override;

  Batch take();

 private:
  std::mutex m_mutex;
  Batch m_batch;
};

}  // namespace pha::gui

Q_DECLARE_METATYPE(pha::gui::EventBuffer::Batch)
