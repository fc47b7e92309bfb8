#include "run_browser.h"

#include <QDateTime>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QTableView>

#include "runs_model.h"

namespace pha::gui {

RunBrowser::RunBrowser(QTableView* table, QLineEdit* filter, QObject* parent)
    : QObject(parent), m_table(table), m_model(new RunsModel(this)), m_proxy(new RunsFilterModel(this)) {
  m_proxy->setSourceModel(m_model);
  m_table->setModel(m_proxy);
  connect(filter, &QLineEdit::textChanged, m_proxy, &RunsFilterModel::setFilterText);
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunBrowser::onSelectionChanged);
}

QString RunBrowser::storePath() const { return m_model->storePath(); }

bool RunBrowser::reload(const QString& storePath, qint64 keepSelected) {
  if (!m_model->reload(storePath)) {
    emit errorOccurred(tr("Cannot read the run store: %1").arg(m_model->lastError()));
    return false;
  }
  m_lastReloadMs = QDateTime::currentMSecsSinceEpoch();
  const int row = m_model->rowOfRun(keepSelected);
  if (row >= 0) {
    QSignalBlocker block(m_table->selectionModel());
    m_table->selectRow(m_proxy->mapFromSource(m_model->index(row, 0)).row());
  }
  return true;
}

void RunBrowser::reloadThrottled(const QString& storePath, qint64 keepSelected, int minIntervalMs) {
  if (QDateTime::currentMSecsSinceEpoch() - m_lastReloadMs > minIntervalMs) reload(storePath, keepSelected);
}

QList<qint64> RunBrowser::selectedRunIds() const {
  QList<qint64> ids;
  for (const QModelIndex& r : m_table->selectionModel()->selectedRows())
    ids << m_proxy->data(r, RunsModel::RunIdRole).toLongLong();
  return ids;
}

QList<qint64> RunBrowser::finishedTrainingRunIds() const {
  QList<qint64> ids;
  for (int r = 0; r < m_model->rowCount(); ++r) {
    const auto& run = m_model->entry(r)->run;
    if (run.status == store::RunStatus::Finished && run.kind == store::RunKind::Train) ids << run.id;
  }
  return ids;
}

bool RunBrowser::selectRunByName(const QString& name) {
  int best = -1;
  for (int r = 0; r < m_model->rowCount(); ++r)
    if (QString::fromStdString(m_model->entry(r)->run.name) == name &&
        (best < 0 || m_model->entry(r)->run.id > m_model->entry(best)->run.id))
      best = r;
  if (best < 0) return false;
  m_table->selectRow(m_proxy->mapFromSource(m_model->index(best, 0)).row());
  return true;
}

void RunBrowser::onSelectionChanged() {
  const QList<qint64> ids = selectedRunIds();
  if (ids.size() != 1) return;
  const int row = m_model->rowOfRun(ids.first());
  if (row < 0) return;
  emit runChosen(m_model->storePath(), ids.first(), QString::fromStdString(m_model->entry(row)->run.name));
}

}  // namespace pha::gui
