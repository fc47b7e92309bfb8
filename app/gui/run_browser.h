// RunBrowser: the run table of the Project dock. Owns the table's model over the store and its
// filter; re-reads the store on request (at most every 2 s while training), keeps the selected
// run selected across reloads, and says which runs the user picked (one: show it; several:
// compare them). MainWindow connects what a choice does.
#pragma once

#include <QList>
#include <QObject>
#include <QString>

class QLineEdit;
class QTableView;

namespace pha::gui {

class RunsModel;
class RunsFilterModel;

class RunBrowser : public QObject {
  Q_OBJECT
 public:
  RunBrowser(QTableView* table, QLineEdit* filter, QObject* parent = nullptr);

  // Re-reads the store; `keepSelected`: the run to keep selected (0: none). Returns false and
  // emits errorOccurred when the store cannot be read.
  bool reload(const QString& storePath, qint64 keepSelected = 0);
  // reload() unless the last one was less than `minIntervalMs` ago.
  void reloadThrottled(const QString& storePath, qint64 keepSelected, int minIntervalMs);
  QString storePath() const;

  QList<qint64> selectedRunIds() const;
  // Finished training runs (profile runs hold efficiency rows only, no curves).
  QList<qint64> finishedTrainingRunIds() const;
  // Selects the newest run of that name; false when there is none.
  bool selectRunByName(const QString& name);

  RunsModel* model() const { return m_model; }

 signals:
  // The user selected exactly one run.
  void runChosen(const QString& storePath, qint64 runId, const QString& name);
  void errorOccurred(const QString& message);

 private:
  void onSelectionChanged();

  QTableView* m_table;
  RunsModel* m_model;
  RunsFilterModel* m_proxy;
  qint64 m_lastReloadMs = 0;
};

}  // namespace pha::gui
