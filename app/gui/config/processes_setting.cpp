#include "gui/config/processes_setting.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>
#include <QThread>
#include <algorithm>

namespace pha::gui {

int ProcessesSetting::maximum() { return std::max(2, QThread::idealThreadCount()); }

int ProcessesSetting::saved() { return std::clamp(QSettings().value(kSettingsKey, 1).toInt(), 1, maximum()); }

int ProcessesSetting::savedJobs() { return std::clamp(QSettings().value(kJobsKey, 0).toInt(), 0, maximum()); }

ProcessesSetting::ProcessesSetting(QWidget* parent) : QWidget(parent) {
  setObjectName("processesSetting");
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(4, 2, 4, 2);
  auto* label = new QLabel(tr("Processes"), this);
  m_spin = new QSpinBox(this);
  m_spin->setObjectName("processesSpin");
  m_spin->setRange(1, maximum());
  m_spin->setValue(saved());
  label->setBuddy(m_spin);
  const QString tip =
      tr("Data-parallel worker processes for this window's runs (local data parallel, like pha train --nproc N). "
         "Each process trains batch_size / N rows of the same global batch and the gradients are averaged, so the "
         "run and its losses are the same as with one process; the cores are split between the processes. On one "
         "machine this rarely beats one process with all the threads: it is here to check a multi-process setup "
         "before a cluster. A setting of this window (not saved in project.json); it applies to the next run.");
  m_spin->setToolTip(tip);
  label->setToolTip(tip);
  auto* note = new QLabel(tr("(this window's runs; 1 = one process)"), this);
  note->setEnabled(false);
  auto* jobsLabel = new QLabel(tr("Runs at once"), this);
  m_jobs = new QSpinBox(this);
  m_jobs->setObjectName("jobsSpin");
  m_jobs->setRange(0, maximum());
  m_jobs->setSpecialValueText(tr("auto"));
  m_jobs->setValue(savedJobs());
  jobsLabel->setBuddy(m_jobs);
  const QString jobsTip =
      tr("Training runs of the queue that train side by side, each in its own pha process on its own threads (like "
         "pha train --jobs N). auto: this machine's cores divided by each run's threads (a model of up to 4M "
         "parameters trains on one core), so on 2 cores two tiny runs train at once. A run's threads come from its "
         "plan, never from this setting, so every run's numbers are the same whatever runs beside it. 1: one after "
         "another. Data-parallel runs (Processes > 1) train one after another.");
  m_jobs->setToolTip(jobsTip);
  jobsLabel->setToolTip(jobsTip);
  row->addWidget(label);
  row->addWidget(m_spin);
  row->addWidget(note, 1);
  row->addWidget(jobsLabel);
  row->addWidget(m_jobs);
  connect(m_spin, &QSpinBox::valueChanged, this, [](int v) { QSettings().setValue(kSettingsKey, v); });
  connect(m_jobs, &QSpinBox::valueChanged, this, [](int v) { QSettings().setValue(kJobsKey, v); });
}

int ProcessesSetting::jobs() const { return m_jobs->value(); }

void ProcessesSetting::setJobs(int jobs) { m_jobs->setValue(jobs); }

int ProcessesSetting::value() const { return m_spin->value(); }

void ProcessesSetting::setValue(int processes) { m_spin->setValue(processes); }

}  // namespace pha::gui
