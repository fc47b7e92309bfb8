#include "gui/monitor/efficiency_controller.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "runtime/profile_store.h"
#include "widgets/window_store.h"
#include "store/inference_store.h"
#include "store/store.h"

namespace pha::gui {

EfficiencyController::EfficiencyController(widgets::EfficiencyPanel* panel, QObject* parent)
    : QObject(parent), m_panel(panel) {}

void EfficiencyController::load(const QString& storePath) {
  m_stored.clear();
  if (storePath.isEmpty()) {
    show();
    return;
  }
  try {
    auto s = store::Store::open(storePath.toStdString(), widgets::windowReadOptions());
    // Newest first, so that a re-measured model replaces its older profile. Only profile runs
    // have perf rows; the inference benchmark's runs are profile runs too, but theirs are
    // prefill / decode rows against the prompt length: the Inference tab shows them, not this view.
    store::RunListQuery q;
    q.kind = store::RunKind::Profile;
    q.include_config = true;
    auto list = s.list_runs(q);
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.run.id > b.run.id; });
    std::set<std::string> seen;
    for (const auto& e : list) {
      if (store::is_inference_run_config(e.run.config_json)) continue;
      auto rows = s.perf(e.run.id);
      if (rows.empty() || !seen.insert(e.run.name).second) continue;
      m_stored.push_back({QString::fromStdString(e.run.name), std::move(rows)});
    }
    std::reverse(m_stored.begin(), m_stored.end());  // oldest first: stable colours
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromUtf8(e.what()));
  }
  show();
}

void EfficiencyController::beginProfile(int points) {
  m_points = points;
  m_done = 0;
  m_live.clear();
  show();
}

QString EfficiencyController::addEvents(const std::vector<runtime::EfficiencyEvent>& events) {
  QString status;
  for (const auto& e : events) {
    ++m_done;
    const QString model = QString::fromStdString(e.variant);
    const store::PerfRow& row = e.row;
    if (!e.error.empty() || row.tokens_per_s <= 0) {
      emit pointFailed(tr("Efficiency point %1, T = %2, %3 failed: %4")
                           .arg(model)
                           .arg(row.seq_len)
                           .arg(QString::fromStdString(row.phase),
                                QString::fromStdString(e.error.empty() ? row.method : e.error)));
      continue;
    }
    m_live[QString::fromStdString(runtime::profile_run_name(e.variant))].push_back(row);
    status = tr("Measuring efficiency %1/%2: %3, T = %4, %5: %6 tokens/s, peak %7 MB")
                 .arg(m_done)
                 .arg(m_points)
                 .arg(model)
                 .arg(row.seq_len)
                 .arg(QString::fromStdString(row.phase))
                 .arg(std::lround(row.tokens_per_s))
                 .arg(std::lround(row.peak_bytes / 1e6));
  }
  show();
  return status;
}

void EfficiencyController::endProfile(const QString& storePath) {
  m_live.clear();
  load(storePath);
}

void EfficiencyController::show() {
  std::vector<widgets::EfficiencySeries> series;
  for (const auto& s : m_stored)
    if (!m_live.count(s.label)) series.push_back(s);
  for (const auto& [label, rows] : m_live) series.push_back({label, rows});
  m_panel->setSeries(std::move(series));
}

}  // namespace pha::gui
