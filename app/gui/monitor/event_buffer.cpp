#include "gui/monitor/event_buffer.h"

#include <utility>

namespace pha::gui {

bool EventBuffer::Batch::empty() const {
  return steps.empty() && mixers.empty() && norms.empty() && evals.empty() && efficiency.empty() && logs.empty() &&
         statuses.empty();
}

void EventBuffer::on_step(const runtime::StepMetrics& e) {
  std::lock_guard lock(m_mutex);
  m_batch.steps.push_back(e);
}
void EventBuffer::on_mixer(const runtime::MixerEvent& e) {
  std::lock_guard lock(m_mutex);
  m_batch.mixers.push_back(e);
}
void EventBuffer::on_branch_norms(const runtime::BranchNormEvent& e) {
  std::lock_guard lock(m_mutex);
  m_batch.norms.push_back(e);
}
void EventBuffer::on_eval(const runtime::EvalEvent& e) {
  std::lock_guard lock(m_mutex);
  m_batch.evals.push_back(e);
}
void EventBuffer::on_efficiency(const runtime::EfficiencyEvent& e) {
  std::lock_guard lock(m_mutex);
  m_batch.efficiency.push_back(e);
}
void EventBuffer::on_log(const runtime::LogEvent& e) {
  std::lock_guard lock(m_mutex);
  m_batch.logs.push_back(e);
}
void EventBuffer::on_status(const runtime::StatusEvent& e) {
  std::lock_guard lock(m_mutex);
  m_batch.statuses.push_back(e);
}

EventBuffer::Batch EventBuffer::take() {
  std::lock_guard lock(m_mutex);
  Batch out;
  std::swap(out, m_batch);
  return out;
}

}  // namespace pha::gui
