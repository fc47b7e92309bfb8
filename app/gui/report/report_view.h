// ReportView: the Report dock's content. It shows the open project's report, the one `pha report`
// prints (runtime::project_report, analysis::build_report): the statistics line (correction,
// m, alpha), one table per claim under a heading (claim, overall verdict, early training, paper)
// whose rows give at, measured per side, the effect with its 95% interval, the test, p raw /
// adjusted, MDE / seeds needed, the training budget, the verdict and its reason; the
// parameter-efficiency table (task projects), the metrics per group and the notes.
// "Export report as HTML..." writes analysis::render_html of the shown report, the same bytes
// `pha report --format html` writes for it. The report is built in a worker thread (it opens its
// own store connection there); the window asks for a refresh when runs finish.
#pragma once

#include <QList>
#include <QString>
#include <QWidget>
#include <memory>
#include <mutex>

#include "analysis/report.h"

class QLabel;
class QPushButton;
class QThread;
class QTableWidget;

namespace pha::gui {

class ReportView : public QWidget {
  Q_OBJECT
 public:
  explicit ReportView(QWidget* parent = nullptr);
  ~ReportView() override;

  // The project folder whose report to show ("" clears it); builds the report.
  void setProject(const QString& projectDir);
  // The project whose report cannot be built now (its store is damaged): nothing of another
  // project's report stays, `why` is shown, and nothing is read until setProject() again.
  void setUnavailable(const QString& projectDir, const QString& why);
  QString project() const { return m_project; }
  // Builds the report again (runs finished). A refresh asked while one is being built runs after it.
  void refresh();
  bool isBuilding() const;

  // The report shown (null before the first one, or when it could not be built: see message()).
  const analysis::Report* report() const { return m_report.get(); }
  QString message() const;
  bool exportHtml(const QString& path, QString* error) const;

  // One table per claim, in the report's order, with its heading above it.
  int claimTableCount() const { return int(m_claimTables.size()); }
  QTableWidget* claimTable(int i) const { return m_claimTables.value(i); }
  QLabel* claimHeading(int i) const { return m_claimHeadings.value(i); }
  QLabel* claimsTitle() const { return m_claimsTitle; }
  QTableWidget* efficiencyTable() const { return m_efficiency; }
  QTableWidget* groupsTable() const { return m_groups; }

 signals:
  void reportReady();  // a build ended: a report is shown, or message() says why not

 private:
  void startBuild();
  void showBuilt();
  void fillClaims(const analysis::Report& r);
  void fillEfficiency(const analysis::Report& r);
  void fillGroups(const analysis::Report& r);
  void exportDialog();
  void clearContent();  // empty tables and notes: nothing of a previous report stays
  void clearClaims();   // the claims' headings and tables are made per report

  QString m_project;
  QString m_unavailable;  // set: why no report is built for m_project
  std::shared_ptr<const analysis::Report> m_report;
  // What a build gives; written by the worker thread only, read on the GUI thread once it ended.
  struct Built {
    std::mutex mutex;  // the worker writes, showBuilt reads, each under it
    std::shared_ptr<const analysis::Report> report;
    QString error;
    qint64 ms = 0;
  };
  QThread* m_thread = nullptr;  // the build in progress, or null
  std::shared_ptr<Built> m_pending;
  QString m_error;      // why the last build gave no report
  qint64 m_buildMs = 0;
  bool m_again = false;  // a refresh came while building
  QLabel* m_header = nullptr;
  QLabel* m_message = nullptr;
  QPushButton* m_refresh = nullptr;
  QPushButton* m_export = nullptr;
  QLabel* m_efficiencyTitle = nullptr;
  QLabel* m_claimsTitle = nullptr;
  QWidget* m_claimsBox = nullptr;  // the claims' headings and tables, in order
  QList<QTableWidget*> m_claimTables;
  QList<QLabel*> m_claimHeadings;
  QTableWidget* m_efficiency = nullptr;
  QTableWidget* m_groups = nullptr;
  QLabel* m_notes = nullptr;
};

}  // namespace pha::gui
