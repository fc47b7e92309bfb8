#include "gui/report/report_view.h"

#include <QElapsedTimer>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <cmath>
#include <exception>
#include <utility>

// The report's one document (every view renders it) and the function `pha report` calls.
#include "analysis/report_document.h"
#include "project/project_report.h"
#include "gui/report/report_page.h"

#include "core/atomic_file.h"

namespace pha::gui {

namespace an = pha::analysis;

// The dock's widgets and their layout, top to bottom as shown.
ReportView::ReportView(QWidget* parent) : QWidget(parent) {
  setObjectName("reportView");
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(2, 2, 2, 2);
  auto* top = new QHBoxLayout;
  m_header = new QLabel(tr("Open a project to see its report."), this);
  m_header->setObjectName("reportHeader");
  m_header->setWordWrap(true);
  m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
  top->addWidget(m_header, 1);
  m_refresh = new QPushButton(tr("Refresh"), this);
  m_refresh->setObjectName("reportRefresh");
  m_refresh->setToolTip(tr("Build the report again from the project's run store"));
  m_export = new QPushButton(tr("Export report as HTML..."), this);
  m_export->setObjectName("reportExportHtml");
  m_export->setToolTip(tr("The same self-contained HTML (tables and SVG plots) as pha report --format html"));
  top->addWidget(m_refresh);
  top->addWidget(m_export);
  outer->addLayout(top);
  m_message = new QLabel(this);
  m_message->setObjectName("reportMessage");
  m_message->setWordWrap(true);
  m_message->hide();
  outer->addWidget(m_message);
  m_verdicts = new QWidget(this);
  m_verdicts->setObjectName("reportVerdicts");
  auto* verdicts = new QVBoxLayout(m_verdicts);
  verdicts->setContentsMargins(4, 2, 4, 4);
  verdicts->setSpacing(2);
  m_verdicts->hide();
  outer->addWidget(m_verdicts);

  auto* scroll = new QScrollArea(this);
  scroll->setObjectName("reportScroll");
  scroll->setWidgetResizable(true);
  m_page = new ReportPage(scroll);
  scroll->setWidget(m_page);
  outer->addWidget(scroll, 1);
  m_noGroups = new QTableWidget(0, 0, this);
  m_noGroups->setObjectName("reportNoGroups");
  m_noGroups->hide();

  connect(m_refresh, &QPushButton::clicked, this, &ReportView::refresh);
  connect(m_export, &QPushButton::clicked, this, &ReportView::exportDialog);
  m_export->setEnabled(false);
}

ReportView::~ReportView() {
  // A QThread must not be destroyed while it runs; a build takes milliseconds to seconds.
  if (m_thread) m_thread->wait();
}

void ReportView::setProject(const QString& projectDir) {
  if (projectDir != m_project) {  // another project: nothing of the previous report stays
    m_report.reset();
    clearContent();
    m_header->setText(projectDir.isEmpty() ? tr("Open a project to see its report.")
                                           : tr("<b>Report: %1</b>").arg(projectDir.toHtmlEscaped()));
    m_export->setEnabled(false);
  }
  m_project = projectDir;
  m_unavailable.clear();
  refresh();
}

void ReportView::setUnavailable(const QString& projectDir, const QString& why) {
  m_project = projectDir;
  m_unavailable = why;
  m_report.reset();
  m_error = why;
  clearContent();
  m_header->setText(tr("<b>Report: %1</b>").arg(projectDir.toHtmlEscaped()));
  m_message->setText(tr("No report: %1").arg(why));
  m_message->show();
  m_export->setEnabled(false);
}

void ReportView::clearContent() {
  m_document.reset();
  m_page->clear();
  showVerdicts();
}

int ReportView::verdictLineCount() const { return m_verdicts->findChildren<QLabel*>("reportVerdictLine").size(); }

QStringList ReportView::claimGroups(const an::ClaimReport& claim) {
  QStringList groups;
  auto add = [&](const std::string& g) {
    if (!g.empty() && !groups.contains(QString::fromStdString(g))) groups << QString::fromStdString(g);
  };
  for (const auto& row : claim.rows) {
    add(row.better);
    add(row.than);
  }
  if (groups.isEmpty())
    for (const auto& row : claim.rows)
      for (const auto& m : row.measured) add(m.label);
  return groups;
}

void ReportView::requestEvidence(int claimIndex, const QString& view) {
  if (!m_report || claimIndex < 0 || claimIndex >= static_cast<int>(m_report->claims.size())) return;
  const QStringList groups = claimGroups(m_report->claims[static_cast<std::size_t>(claimIndex)]);
  if (!groups.isEmpty()) emit evidenceRequested(groups, view);
}

void ReportView::showVerdicts() {
  for (QWidget* w : m_verdicts->findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly)) delete w;
  auto* layout = static_cast<QVBoxLayout*>(m_verdicts->layout());
  if (!m_report || m_report->claims.empty()) {
    m_verdicts->hide();
    return;
  }
  auto* title = new QLabel(tr("<b>Verdicts</b> (Holm over the design's family; each table below gives the test, "
                              "budget and seeds)"), m_verdicts);
  title->setWordWrap(true);
  layout->addWidget(title);
  for (std::size_t i = 0; i < m_report->claims.size(); ++i) {
    const an::ClaimReport& c = m_report->claims[i];
    const QString verdict = QString::fromStdString(an::verdict_text(c.claim, c.verdict));
    const QString what = QString::fromStdString(c.claim.title.empty() ? c.statement : c.claim.title);
    auto* line = new QLabel(m_verdicts);
    line->setObjectName("reportVerdictLine");
    line->setWordWrap(true);
    line->setTextFormat(Qt::RichText);
    // What was measured, in short: the first row's effect with its interval and adjusted p
    // (the table below has every row); else the summary when it says more than the verdict.
    QString figures;
    if (!c.rows.empty() && std::isfinite(c.rows.front().effect)) {
      const an::ClaimRow& r = c.rows.front();
      figures = tr("%1 = %2 [%3, %4]")
                    .arg(QString::fromStdString(r.effect_label.empty() ? r.label : r.effect_label))
                    .arg(r.effect, 0, 'f', 3)
                    .arg(r.effect_low, 0, 'f', 3)
                    .arg(r.effect_high, 0, 'f', 3);
      if (std::isfinite(r.p_adjusted)) figures += tr(", adjusted p %1").arg(QString::number(r.p_adjusted, 'g', 2));
      if (!r.measured.empty()) figures += tr(", n = %1").arg(r.measured.front().stats.n);
      if (c.rows.size() > 1) figures += tr("; %1 rows").arg(c.rows.size());
    } else if (QString::fromStdString(c.summary) != verdict) {
      figures = QString::fromStdString(c.summary);
    }
    line->setText(tr("%1. <span style=\"background-color:%2; font-weight:600\">&nbsp;%3&nbsp;</span> %4%5 "
                     "&nbsp;<a href=\"compare:%6\">runs in Compare</a> · <a href=\"lens:%6\">tokens in the Lens</a>")
                      .arg(i + 1)
                      .arg(solid(verdictColor(c.verdict)), verdict.toHtmlEscaped(), what.toHtmlEscaped(),
                           figures.isEmpty() ? QString() : QStringLiteral(": ") + figures.toHtmlEscaped())
                      .arg(i));
    line->setToolTip(tr("Groups: %1").arg(claimGroups(c).join(", ")));
    connect(line, &QLabel::linkActivated, this, [this](const QString& link) {
      const int colon = link.indexOf(':');
      requestEvidence(link.mid(colon + 1).toInt(), link.left(colon));
    });
    layout->addWidget(line);
  }
  m_verdicts->show();
}

QTableWidget* ReportView::table(const QString& id) const { return m_page->table(id); }

QTableWidget* ReportView::groupsTable() const {
  QTableWidget* t = table(QStringLiteral("groups"));
  return t ? t : m_noGroups;
}

int ReportView::claimTableCount() const {
  int n = 0;
  for (QTableWidget* t : m_page->tables()) n += t->objectName().startsWith("report-claim") ? 1 : 0;
  return n;
}

bool ReportView::isBuilding() const { return m_thread != nullptr; }

void ReportView::refresh() {
  if (m_thread) {
    m_again = true;
    return;
  }
  startBuild();
}

// project_report opens its own store connection in the worker thread (one Store per thread) and
// reads every replica's summaries and evaluations: milliseconds for a few runs, more for large
// stores, and never on the event loop (docs/gui-compare.md, Report).
void ReportView::startBuild() {
  if (!m_unavailable.isEmpty()) return;  // setUnavailable said why; nothing is read
  if (m_project.isEmpty()) {
    m_report.reset();
    clearContent();
    m_header->setText(tr("Open a project to see its report."));
    m_export->setEnabled(false);
    emit reportReady();
    return;
  }
  m_refresh->setEnabled(false);
  m_message->setText(tr("Building the report of %1...").arg(m_project));
  m_message->show();
  const std::string dir = m_project.toStdString();
  auto built = std::make_shared<Built>();
  m_pending = built;
  m_thread = QThread::create([built, dir] {
    QElapsedTimer clock;
    clock.start();
    std::shared_ptr<const an::Report> report;
    QString error;
    try {
      report = std::make_shared<const an::Report>(project::project_report(dir));
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    // Handed over under the mutex showBuilt takes: a hand-off ThreadSanitizer sees (the
    // finished() signal crosses threads through Qt's queue, which it does not).
    std::lock_guard<std::mutex> lock(built->mutex);
    built->report = std::move(report);
    built->error = error;
    built->ms = clock.elapsed();
  });
  connect(m_thread, &QThread::finished, this, &ReportView::showBuilt);
  m_thread->start();
}

void ReportView::showBuilt() {
  m_thread->wait();
  m_thread->deleteLater();
  m_thread = nullptr;
  m_refresh->setEnabled(true);
  std::shared_ptr<const an::Report> builtReport;
  {
    std::lock_guard<std::mutex> lock(m_pending->mutex);
    builtReport = m_pending->report;
    m_buildMs = m_pending->ms;
    m_error = m_pending->error;
  }
  m_pending.reset();
  if (!builtReport) {
    // Nothing of a previous report (another project's, under its store's name) stays.
    m_report.reset();
    clearContent();
    m_header->setText(tr("<b>Report: %1</b>").arg(m_project.toHtmlEscaped()));
    m_message->setText(tr("No report: %1").arg(m_error));
    m_message->show();
  } else {
    m_report = builtReport;
    // The document is laid out here, on the GUI thread: it formats times with the C library's
    // time zone state (local_time), which the GUI thread uses too (ThreadSanitizer reported the
    // worker's tzset against Qt's); formatting takes milliseconds, the reading is the slow part.
    m_document = std::make_shared<const an::ReportDocument>(an::report_document(*m_report));
    m_message->hide();
    m_header->setText(tr("<b>Report: %1</b> &nbsp; read in %2 ms; the same report as pha report (its tables and "
                         "reasons below, its plots in the HTML export too).")
                          .arg(QString::fromStdString(m_report->project).toHtmlEscaped())
                          .arg(m_buildMs));
    m_page->showDocument(*m_document);
    showVerdicts();
  }
  m_export->setEnabled(m_report != nullptr);
  emit reportReady();
  if (m_again) {
    m_again = false;
    startBuild();
  }
}

QString ReportView::message() const { return m_message->isHidden() ? QString() : m_message->text(); }

bool ReportView::exportHtml(const QString& path, QString* error) const {
  if (!m_report) {
    if (error) *error = tr("There is no report to export: %1").arg(m_error.isEmpty() ? tr("open a project") : m_error);
    return false;
  }
  try {
    core::write_file_atomic(path.toStdString(), {an::render_html(*m_document)});  // the one writer
    return true;
  } catch (const std::exception& e) {  // core::Error naming the file
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

void ReportView::exportDialog() {
  const QString name = m_report ? QString::fromStdString(m_report->project) + "-report.html" : QStringLiteral("report.html");
  const QString path = QFileDialog::getSaveFileName(this, tr("Export report as HTML"), m_project + "/" + name,
                                                    tr("HTML (*.html)"));
  if (path.isEmpty()) return;
  QString error;
  if (!exportHtml(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
}

}  // namespace pha::gui
