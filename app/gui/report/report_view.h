// ReportView: the Report dock's content. It shows the open project's report, the one `pha report`
// prints (runtime::project_report, analysis::build_report): the report's one document
// (analysis::report_document: every claim's table with its reasons, the tuning tables and their
// warnings, the mixer tables and charts, scaling fits, metrics per group, parameter efficiency,
// sweeps, notes), laid out by ReportPage, the same blocks Markdown and HTML render.
// "Export report as HTML..." writes analysis::render_html of the shown document, the same bytes
// `pha report --format html` writes for it. The report is built in a worker thread (it opens its
// own store connection there); the window asks for a refresh when runs finish.
#pragma once

#include <QList>
#include <QString>
#include <QWidget>
#include <memory>
#include <mutex>

#include "analysis/report.h"
#include "analysis/report_document.h"

class QLabel;
class QPushButton;
class QThread;
class QTableWidget;

namespace pha::gui {

class ReportPage;

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

  // The shown document's widgets (ReportPage): every table by its id ("claim1", "tuning1",
  // "mixer1", "groups", "efficiency"); null where the report has no such table.
  ReportPage* page() const { return m_page; }
  QTableWidget* table(const QString& id) const;
  int claimTableCount() const;
  QTableWidget* claimTable(int i) const { return table(QStringLiteral("claim%1").arg(i + 1)); }
  QTableWidget* efficiencyTable() const { return table(QStringLiteral("efficiency")); }
  // The metrics per group; while no report is shown, an empty hidden table (never null).
  QTableWidget* groupsTable() const;

 signals:
  void reportReady();  // a build ended: a report is shown, or message() says why not

 private:
  void startBuild();
  void showBuilt();
  void exportDialog();
  void clearContent();  // nothing of a previous report stays

  QString m_project;
  QString m_unavailable;  // set: why no report is built for m_project
  std::shared_ptr<const analysis::Report> m_report;
  std::shared_ptr<const analysis::ReportDocument> m_document;  // of m_report
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
  ReportPage* m_page = nullptr;
  QTableWidget* m_noGroups = nullptr;  // groupsTable() without a report
};

}  // namespace pha::gui
