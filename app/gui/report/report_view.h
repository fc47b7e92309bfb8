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
#include <QStringList>
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

  // The verdicts first: one line per claim over the report (its verdict on its colour, what it
  // says, the summary) with two links, "runs in Compare" and "tokens in the Lens", that open
  // the runs behind it (evidenceRequested). Empty while the report has no claims.
  QWidget* verdictsBox() const { return m_verdicts; }
  int verdictLineCount() const;
  // The groups a claim compares (its rows' better and than, else their measured groups), first
  // the side it says is better.
  static QStringList claimGroups(const analysis::ClaimReport& claim);
  // What a verdict line's link does (the tests press it): "compare" or "lens".
  void requestEvidence(int claimIndex, const QString& view);

 signals:
  void reportReady();  // a build ended: a report is shown, or message() says why not
  // A verdict line's link: show these groups' runs ("compare": in Compare; "lens": the first
  // group's first run in the Lens's Tokens tab, compared with the second group).
  void evidenceRequested(const QStringList& groups, const QString& view);

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
  QWidget* m_verdicts = nullptr;
  void showVerdicts();
  QTableWidget* m_noGroups = nullptr;  // groupsTable() without a report
};

}  // namespace pha::gui
