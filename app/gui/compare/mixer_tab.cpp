#include "gui/compare/mixer_tab.h"

#include <QComboBox>
#include <QFile>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QResizeEvent>
#include <QScrollArea>
#include <QLabel>
#include <QSlider>
#include <QTextStream>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <set>
#include <qcustomplot.h>

#include "widgets/csv_file.h"
#include "widgets/export_menu.h"
#include "widgets/lens_rows.h"
#include "widgets/mixer_heatmap.h"
#include "widgets/plot_export.h"

namespace pha::gui {

namespace {

// The latest snapshot at or before step; the first one when all are later.
const pha::store::MixerSnapshot* snapshotAt(const LoadedRun& run, qint64 step) {
  const pha::store::MixerSnapshot* found = nullptr;
  for (const auto& s : run.mixers) {
    if (s.step > step) break;
    found = &s;
  }
  return found ? found : (run.mixers.empty() ? nullptr : &run.mixers.front());
}

// kind: "raw" (the snapshot's mixer weights) or "effective_share" (the Lens's recorded shares).
bool writeMixerCsv(const QString& path, const QString& label, const pha::store::MixerSnapshot* s, QString* error,
                   const char* kind = "raw") {
  if (!s) {
    if (error) *error = QObject::tr("This run has no mixer snapshot to export.");
    return false;
  }
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
    if (error) *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  QTextStream out(&file);
  out << "run,step,layer,branch,weight,kind\n";
  for (int l = 0; l < s->layers; ++l)
    for (int b = 0; b < s->branches; ++b)
      out << widgets::csvField(label) << ',' << s->step << ',' << l << ',' << b << ','
          << QString::number(s->weights[static_cast<std::size_t>(l * s->branches + b)], 'g', 9) << ',' << kind << '\n';
  return true;
}

// A run with a mixer: a snapshot with a weight. Single-branch models (sequential, transformer,
// GSS-only) record snapshots whose weights are all NaN: "no layer has a mixer".
bool hasMixer(const LoadedRun& run) {
  for (const auto& s : run.mixers)
    if (std::any_of(s.weights.begin(), s.weights.end(), [](float w) { return !std::isnan(w); })) return true;
  return false;
}

}  // namespace

MixerTab::MixerTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Training step"), this));
  m_slider = new QSlider(Qt::Horizontal, this);
  m_slider->setObjectName("mixerStepSlider");
  top->addWidget(m_slider, 1);
  m_stepLabel = new QLabel(this);
  m_stepLabel->setMinimumWidth(90);
  top->addWidget(m_stepLabel);
  m_kind = new QComboBox(this);
  m_kind->setObjectName("compareMixerWeightKind");
  m_kind->addItems({tr("raw"), tr("effective")});
  m_kind->setToolTip(tr("raw: the mixer weights recorded while training; effective: each branch's share of w_b x RMS "
                        "of its normed output, stored by the Lens dock (Weights > Record)"));
  top->addWidget(m_kind);
  layout->addLayout(top);
  connect(m_kind, &QComboBox::currentIndexChanged, this, [this](int i) { setShowEffective(i == 1); });
  m_scroll = new QScrollArea(this);
  m_scroll->setObjectName("mixerGridScroll");
  m_scroll->setWidgetResizable(true);
  m_scroll->setFrameShape(QFrame::NoFrame);
  auto* gridHost = new QWidget(m_scroll);
  m_grid = new QGridLayout(gridHost);
  m_grid->setContentsMargins(0, 0, 0, 0);
  m_scroll->setWidget(gridHost);
  layout->addWidget(m_scroll, 1);
  m_message = new QLabel(this);
  m_message->setWordWrap(true);
  m_message->setAlignment(Qt::AlignCenter);
  layout->addWidget(m_message);
  connect(m_slider, &QSlider::valueChanged, this, [this] { showStep(); });
  setRuns(nullptr);
}

void MixerTab::setRuns(std::shared_ptr<const LoadedRuns> runs) {
  m_runs = std::move(runs);
  m_effective.clear();
  qDeleteAll(m_columns);
  m_columns.clear();
  m_heatmaps.clear();
  m_titles.clear();
  m_runOf.clear();
  std::set<qint64> steps;
  if (m_runs) {
    for (std::size_t i = 0; i < m_runs->size(); ++i) {
      const LoadedRun& run = (*m_runs)[i];
      if (!run.ok() || !hasMixer(run)) continue;  // listed in the message line
      for (const auto& s : run.mixers) steps.insert(s.step);
      auto* column = new QWidget(m_scroll->widget());
      column->setMinimumSize(kPanelWidth - 20, 200);
      auto* v = new QVBoxLayout(column);
      v->setContentsMargins(0, 0, 0, 0);
      auto* title = new QLabel(run.label, column);
      title->setAlignment(Qt::AlignCenter);
      title->setWordWrap(true);
      title->setToolTip(run.label);
      auto* heatmap = new widgets::MixerHeatmap(column);
      v->addWidget(title);
      v->addWidget(heatmap, 1);
      m_columns << column;
      m_titles << title;
      m_heatmaps << heatmap;
      m_runOf << static_cast<int>(i);
      const int index = m_heatmaps.size() - 1;
      const QString label = run.label;
      widgets::installExportMenu(heatmap->plot(), "mixer-" + label, [this, index, label](const QString& path, QString* error) {
        const int run = m_runOf.value(index);
        if (m_showEffective) {  // what the heatmap shows: the recorded effective shares
          const auto it = m_effective.find(run);
          if (it == m_effective.end() || !it->second) {
            if (error) *error = widgets::effectiveNotMeasuredMessage();
            return false;
          }
          const pha::store::MixerSnapshot shares{it->second->step, it->second->layers, it->second->branches,
                                                 it->second->weights};
          return writeMixerCsv(path, label, &shares, error, "effective_share");
        }
        const auto& r = (*m_runs)[static_cast<std::size_t>(run)];
        return writeMixerCsv(path, label, snapshotAt(r, m_shown.value(index, -1)), error);
      });
    }
  }
  m_gridColumns = 0;
  layoutGrid();
  m_steps.assign(steps.begin(), steps.end());
  m_slider->blockSignals(true);
  m_slider->setRange(0, std::max(0, static_cast<int>(m_steps.size()) - 1));
  m_slider->setValue(m_slider->maximum());
  m_slider->setEnabled(m_steps.size() > 1);
  m_slider->blockSignals(false);
  showStep();
}

void MixerTab::setStep(qint64 step) {
  auto it = std::upper_bound(m_steps.begin(), m_steps.end(), step);
  m_slider->setValue(it == m_steps.begin() ? 0 : static_cast<int>(it - m_steps.begin()) - 1);
  showStep();
}

qint64 MixerTab::step() const {
  return m_steps.empty() ? -1 : m_steps[static_cast<std::size_t>(m_slider->value())];
}

void MixerTab::showStep() {
  const qint64 step = this->step();
  m_stepLabel->setText(step < 0 ? tr("no snapshots") : tr("step %1").arg(step));
  m_shown.clear();
  QStringList problems;
  for (int i = 0; i < m_heatmaps.size(); ++i) {
    const LoadedRun& run = (*m_runs)[static_cast<std::size_t>(m_runOf[i])];
    if (m_showEffective) {
      auto it = m_effective.find(m_runOf[i]);
      if (it == m_effective.end())
        it = m_effective.emplace(m_runOf[i], widgets::readEffectiveShares(run.ref.storePath, run.ref.runId)).first;
      const auto& shares = it->second;
      if (shares) m_heatmaps[i]->setMatrix(shares->layers, shares->branches, shares->weights);
      else m_heatmaps[i]->clear(widgets::effectiveNotMeasuredMessage());
      m_shown << (shares ? shares->step : -1);
      m_titles[i]->setText(shares ? tr("%1 — effective, step %2").arg(run.label).arg(shares->step) : run.label);
      continue;
    }
    const auto* snapshot = snapshotAt(run, step);
    if (snapshot) m_heatmaps[i]->setMatrix(snapshot->layers, snapshot->branches, snapshot->weights);
    m_shown << (snapshot ? snapshot->step : -1);
    m_titles[i]->setText(snapshot ? tr("%1 — step %2").arg(run.label).arg(snapshot->step) : run.label);
  }
  QStringList without, unreadable;
  if (m_runs)
    for (const LoadedRun& run : *m_runs) {
      if (!run.ok()) unreadable << run.error;
      else if (!hasMixer(run)) without << run.label;
    }
  if (!m_runs || m_runs->empty()) {
    problems << tr("Select two or more saved runs to compare their mixer weights.");
  } else if (m_heatmaps.isEmpty()) {
    problems << tr("None of the compared runs recorded mixer weights (only parallel-mix variants such as pha have a "
                   "mixer; snapshots every training.mixer_every steps).");
  } else if (!without.isEmpty()) {
    problems << tr("No mixer (no parallel mix, or none logged): %1.").arg(without.join(", "));
  }
  problems << unreadable;
  m_message->setText(problems.join('\n'));
  m_message->setVisible(!problems.isEmpty());
}

void MixerTab::setShowEffective(bool effective) {
  m_showEffective = effective;
  if (m_kind->currentIndex() != (effective ? 1 : 0)) {
    QSignalBlocker block(m_kind);
    m_kind->setCurrentIndex(effective ? 1 : 0);
  }
  m_slider->setEnabled(!effective && m_steps.size() > 1);
  showStep();
}

qint64 MixerTab::shownStep(int index) const { return m_shown.value(index, -1); }

QString MixerTab::heatmapTitle(int index) const { return m_titles.value(index) ? m_titles[index]->text() : QString(); }

// As many columns as kPanelWidth fits in the dock's width; the rest in rows below (scrolled).
void MixerTab::layoutGrid() {
  const int available = std::max(1, width() - 24);  // the scroll bar's room kept
  const int columns = std::clamp(available / kPanelWidth, 1, std::max(1, static_cast<int>(m_columns.size())));
  if (columns == m_gridColumns) return;
  m_gridColumns = columns;
  for (QWidget* c : m_columns) m_grid->removeWidget(c);
  for (int i = 0; i < m_columns.size(); ++i) m_grid->addWidget(m_columns[i], i / columns, i % columns);
  for (int c = 0; c < m_grid->columnCount(); ++c) m_grid->setColumnStretch(c, c < columns ? 1 : 0);
}

void MixerTab::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  layoutGrid();
}

QString MixerTab::message() const { return m_message->isHidden() ? QString() : m_message->text(); }

}  // namespace pha::gui
