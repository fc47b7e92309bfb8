#include "report_view.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLayoutItem>
#include <QPalette>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <exception>
#include <utility>

// The report's own number formats (mean ± std (n), [lo, hi]), so the window prints the figures
// exactly as `pha report` does.
#include "analysis/report_format.h"
#include "project/project_report.h"

#include "core/atomic_file.h"

namespace pha::gui {

namespace an = pha::analysis;

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

QTableWidget* makeTable(const QString& name, const QStringList& headers, QWidget* parent) {
  auto* t = new QTableWidget(0, headers.size(), parent);
  t->setObjectName(name);
  t->setHorizontalHeaderLabels(headers);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->setWordWrap(true);
  t->verticalHeader()->hide();
  t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  t->horizontalHeader()->setStretchLastSection(true);
  t->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // The page scrolls, not each table: every row in view.
  t->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  t->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  return t;
}

// Rows as tall as their wrapped text, and the table as tall as its rows (the page scrolls).
void fitRows(QTableWidget* t) {
  t->resizeRowsToContents();
  int h = t->horizontalHeader()->height() + 2 * t->frameWidth();
  for (int r = 0; r < t->rowCount(); ++r) h += t->rowHeight(r);
  t->setFixedHeight(h + 2);
}

// Wrapped text changes height with the column widths: fit again whenever a column resizes.
void keepFitted(QTableWidget* t) {
  QObject::connect(t->horizontalHeader(), &QHeaderView::sectionResized, t, [t] { fitRows(t); });
}

QTableWidgetItem* item(const QString& text, const QString& tip = {}) {
  auto* it = new QTableWidgetItem(text);
  if (!tip.isEmpty()) it->setToolTip(tip);
  return it;
}

// Green for holds, red for does not hold, amber for inconclusive and mixed, blue for too few
// replicas (no verdict given) (Okabe-Ito hues).
QColor verdictColor(an::Verdict v) {
  switch (v) {
    case an::Verdict::Holds: return QColor(0, 158, 115, 70);
    case an::Verdict::DoesNotHold: return QColor(213, 94, 0, 70);
    case an::Verdict::TooFewReplicas: return QColor(86, 180, 233, 60);
    case an::Verdict::Inconclusive:
    case an::Verdict::Mixed: break;
  }
  return QColor(230, 159, 0, 55);
}

// Each side's values (analysis::measured_text, as pha report prints them) and the evaluation's SE.
QString measuredText(const an::ClaimRow& row) {
  QStringList parts;
  for (const auto& m : row.measured) parts << qs(an::measured_text(m));
  const std::string se = an::eval_se_text(row);
  if (!se.empty()) parts << qs(se);
  return parts.isEmpty() ? QStringLiteral("-") : parts.join('\n');
}

// The columns of a claim's table; the long texts (measured, reason) share the width and wrap.
enum ClaimColumn { kAt, kMeasured, kEffect, kTest, kP, kPower, kBudget, kVerdict, kReason, kClaimColumns };

QTableWidget* makeClaimTable(int index, QWidget* parent) {
  auto* t = makeTable(QStringLiteral("reportClaim%1").arg(index),
                      {QObject::tr("at"), QObject::tr("measured"), QObject::tr("effect [95% interval]"), QObject::tr("test"),
                       QObject::tr("p (raw / adjusted)"), QObject::tr("MDE / seeds needed"), QObject::tr("budget"),
                       QObject::tr("verdict"), QObject::tr("reason")},
                      parent);
  QHeaderView* h = t->horizontalHeader();
  for (int c : {kMeasured, kReason}) h->setSectionResizeMode(c, QHeaderView::Stretch);
  // Names of groups and budgets: a fixed width that wraps, so they do not squeeze the others.
  const std::pair<int, int> widths[] = {{kAt, 110}, {kEffect, 150}, {kTest, 130}, {kPower, 120}, {kBudget, 140}};
  for (const auto& [c, width] : widths) {
    h->setSectionResizeMode(c, QHeaderView::Interactive);
    t->setColumnWidth(c, width);
  }
  h->setStretchLastSection(false);
  keepFitted(t);
  return t;
}

}  // namespace

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

  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  auto* page = new QWidget(scroll);
  auto* layout = new QVBoxLayout(page);
  auto title = [&](const QString& text) {
    auto* l = new QLabel(QStringLiteral("<b>%1</b>").arg(text), page);
    layout->addWidget(l);
    return l;
  };
  m_claimsTitle = title(tr("Claims"));
  m_claimsTitle->setObjectName("reportClaimsTitle");
  m_claimsTitle->setWordWrap(true);
  m_claimsBox = new QWidget(page);
  m_claimsBox->setObjectName("reportClaims");
  auto* claimsLayout = new QVBoxLayout(m_claimsBox);
  claimsLayout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_claimsBox);
  m_efficiencyTitle = title(tr("Parameter efficiency"));
  m_efficiency = makeTable("reportEfficiency", {tr("family"), tr("group"), tr("parameters"),
                                                tr("accuracy: mean ± std (n)"), tr("95% interval")}, page);
  layout->addWidget(m_efficiency);
  keepFitted(m_efficiency);
  title(tr("Metrics per group (final values)"));
  m_groups = makeTable("reportGroups", {}, page);
  layout->addWidget(m_groups);
  keepFitted(m_groups);
  m_notes = new QLabel(page);
  m_notes->setObjectName("reportNotes");
  m_notes->setWordWrap(true);
  m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_notes);
  layout->addStretch(1);
  scroll->setWidget(page);
  outer->addWidget(scroll, 1);

  connect(m_refresh, &QPushButton::clicked, this, &ReportView::refresh);
  connect(m_export, &QPushButton::clicked, this, &ReportView::exportDialog);
  m_export->setEnabled(false);
  m_efficiency->hide();
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
  clearClaims();
  m_claimsTitle->setText(tr("<b>Claims</b>"));
  for (QTableWidget* t : {m_efficiency, m_groups}) {
    t->clearSpans();
    t->setRowCount(0);
    fitRows(t);
  }
  m_notes->clear();
}

void ReportView::clearClaims() {
  m_claimTables.clear();
  m_claimHeadings.clear();
  while (QLayoutItem* it = m_claimsBox->layout()->takeAt(0)) {
    delete it->widget();
    delete it;
  }
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
      report = std::make_shared<const an::Report>(runtime::project_report(dir));
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
    m_message->hide();
    const an::Report& r = *m_report;
    m_header->setText(tr("<b>Report: %1</b> &nbsp; store %2, generated %3, read in %4 ms. Each group's replicas are "
                         "its finished runs, one per seed; mean ± sample std (n), 95% intervals Student t (a "
                         "comparison: paired by seed when both sides have the same seeds, else Welch); a claim holds "
                         "when its adjusted p is below alpha with the effect on the claimed side (docs/report.md).")
                          .arg(qs(r.project).toHtmlEscaped(), qs(r.store_path).toHtmlEscaped(),
                               qs(an::local_time(r.generated_at_ms)))
                          .arg(m_buildMs));
    fillClaims(r);
    fillEfficiency(r);
    fillGroups(r);
    QStringList notes;
    // The tuning choices and scaling crossovers in a line each (the full tables: Export HTML).
    for (const auto& t : r.tuning) {
      const QString where = qs(t.entry + (t.grid_point.empty() ? "" : " at " + t.grid_point));
      notes << (t.chosen < 0 ? tr("• Tuning of %1: %2").arg(where, qs(t.note).toHtmlEscaped())
                             : tr("• Tuning of %1: chose %2 (%3 %4)")
                                   .arg(where, qs(t.settings[std::size_t(t.chosen)].tune_point), qs(t.metric),
                                        qs(an::mean_std(t.settings[std::size_t(t.chosen)].select))));
    }
    for (const auto& ax : r.scaling.axes)
      for (const auto& x : ax.crossovers)
        notes << "• " + tr("Scaling against %1: ").arg(qs(ax.x_label)) + qs(an::crossover_text(x, ax.x_label)).toHtmlEscaped();
    for (const auto& n : r.notes) notes << "• " + qs(n).toHtmlEscaped();
    m_notes->setText(notes.isEmpty() ? QString() : tr("<b>Notes</b><br>") + notes.join("<br>"));
  }
  m_export->setEnabled(m_report != nullptr);
  emit reportReady();
  if (m_again) {
    m_again = false;
    startBuild();
  }
}

// One heading and one table per claim: the heading says the claim, its overall verdict, how it
// was compared and the paper's figure; each row its test, p, power, budget and the full reason.
void ReportView::fillClaims(const an::Report& r) {
  clearClaims();
  m_claimsTitle->setText(tr("<b>Claims</b>: measured as mean ± sample std (n) [95% interval] over each side's "
                            "replicas (accuracy thresholds: the seeds reaching it, Wilson 95%).<br><b>Statistics</b>: %1")
                             .arg(qs(r.statistics).toHtmlEscaped()));
  auto* box = static_cast<QVBoxLayout*>(m_claimsBox->layout());
  if (r.claims.empty()) {
    auto* none = new QLabel(tr("The project declares no claims (project.json \"claims\", docs/project-format.md)."),
                            m_claimsBox);
    none->setObjectName("reportNoClaims");
    box->addWidget(none);
    return;
  }
  for (std::size_t i = 0; i < r.claims.size(); ++i) {
    const an::ClaimReport& c = r.claims[i];
    QStringList lines;
    lines << tr("<b>%1. %2</b>").arg(i + 1).arg(qs(c.claim.title.empty() ? c.statement : c.claim.title + ": " + c.statement).toHtmlEscaped());
    lines << tr("%1; <b>verdict: %2</b>").arg(qs(an::to_string(c.claim.kind)), qs(c.summary).toHtmlEscaped());
    if (!c.early.empty()) lines << tr("<b>%1</b>: a verdict this early in training may not last").arg(qs(c.early).toHtmlEscaped());
    if (!c.tuning.empty()) lines << qs(c.tuning).toHtmlEscaped();
    for (const auto& x : c.crossings) lines << qs(x.label + ", " + an::crossing_text(x)).toHtmlEscaped();
    lines << tr("paper: %1").arg(c.claim.paper.empty() ? QStringLiteral("-") : qs(c.claim.paper).toHtmlEscaped());
    auto* heading = new QLabel(lines.join("<br>"), m_claimsBox);
    heading->setObjectName(QStringLiteral("reportClaimHeading%1").arg(i));
    heading->setWordWrap(true);
    heading->setTextInteractionFlags(Qt::TextSelectableByMouse);
    heading->setToolTip(qs(c.claim.json.dump()));
    heading->setAutoFillBackground(true);
    QPalette pal = heading->palette();
    pal.setColor(QPalette::Window, verdictColor(c.verdict));
    heading->setPalette(pal);
    box->addWidget(heading);
    QTableWidget* t = makeClaimTable(int(i), m_claimsBox);
    for (const an::ClaimRow& cr : c.rows) {
      const int row = t->rowCount();
      t->insertRow(row);
      t->setItem(row, kAt, item(qs(cr.label)));
      t->setItem(row, kMeasured, item(measuredText(cr)));
      const bool effect = !cr.effect_label.empty() && !std::isnan(cr.effect);
      t->setItem(row, kEffect, item(effect ? qs(cr.effect_label + ": " + an::effect_text(cr)) : QStringLiteral("-")));
      t->setItem(row, kTest, item(cr.test.text.empty() ? QStringLiteral("-") : qs(cr.test.text), qs(cr.adjustment)));
      t->setItem(row, kP, item(qs(an::p_pair_text(cr)), qs(cr.adjustment)));
      t->setItem(row, kPower, item(qs(an::power_text(cr))));
      auto* budget = item(qs(an::budget_text(cr.budget, r.settings.early_tokens_per_param)));
      if (cr.budget.early) budget->setBackground(QColor(230, 159, 0, 55));
      t->setItem(row, kBudget, budget);
      auto* verdict = item(qs(an::to_string(cr.verdict)));
      verdict->setBackground(verdictColor(cr.verdict));
      t->setItem(row, kVerdict, verdict);
      t->setItem(row, kReason, item(qs(cr.reason)));
    }
    box->addWidget(t);
    fitRows(t);
    m_claimTables.push_back(t);
    m_claimHeadings.push_back(heading);
  }
}

void ReportView::fillEfficiency(const an::Report& r) {
  m_efficiency->setRowCount(0);
  m_efficiency->setVisible(r.is_task);
  m_efficiencyTitle->setText(r.is_task ? tr("<b>Parameter efficiency</b>: held-out accuracy (%1) against parameters, "
                                            "per architecture family").arg(qs(r.accuracy_key).toHtmlEscaped())
                                       : tr("<b>Parameter efficiency</b>: task projects only (held-out accuracy "
                                            "against parameters); this project trains on text."));
  if (!r.is_task) return;
  // In the report's order: by family, then parameters.
  for (const std::string& family : an::family_names()) {
    std::vector<const an::GroupReport*> rows;
    for (const auto& g : r.groups)
      if (g.family == family) rows.push_back(&g);
    std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->n_params < b->n_params; });
    for (const an::GroupReport* g : rows) {
      const auto it = g->metrics.find(r.accuracy_key);
      const an::Stats st = it == g->metrics.end() ? an::summarize({}) : it->second;
      const int row = m_efficiency->rowCount();
      m_efficiency->insertRow(row);
      m_efficiency->setItem(row, 0, item(qs(family)));
      m_efficiency->setItem(row, 1, item(qs(g->group)));
      m_efficiency->setItem(row, 2, item(g->n_params ? QString::number(g->n_params) : QStringLiteral("-")));
      m_efficiency->setItem(row, 3, item(qs(an::mean_std(st))));
      const std::string ci = st.has_interval() ? an::interval(st.ci_low, st.ci_high) : "";
      m_efficiency->setItem(row, 4, item(ci.empty() ? QStringLiteral("-") : qs(ci)));
    }
  }
  fitRows(m_efficiency);
}

void ReportView::fillGroups(const an::Report& r) {
  QStringList headers = {tr("group"), tr("family"), tr("parameters"), tr("replicas")};
  for (const auto& k : r.metric_keys) headers << qs(k);
  m_groups->setRowCount(0);
  m_groups->setColumnCount(headers.size());
  m_groups->setHorizontalHeaderLabels(headers);
  for (const auto& g : r.groups) {
    const int row = m_groups->rowCount();
    m_groups->insertRow(row);
    QStringList missing;
    for (const auto& m : g.missing) missing << qs(m);
    m_groups->setItem(row, 0, item(qs(g.group)));
    m_groups->setItem(row, 1, item(qs(g.family)));
    m_groups->setItem(row, 2, item(g.n_params ? QString::number(g.n_params) : QStringLiteral("-")));
    m_groups->setItem(row, 3, item(tr("%1 of %2").arg(g.replicas.size()).arg(g.seeds.size()), missing.join('\n')));
    for (int k = 0; k < int(r.metric_keys.size()); ++k)
      m_groups->setItem(row, 4 + k, item(qs(an::mean_std(g.metrics.at(r.metric_keys[std::size_t(k)])))));
  }
  fitRows(m_groups);
}

QString ReportView::message() const { return m_message->isHidden() ? QString() : m_message->text(); }

bool ReportView::exportHtml(const QString& path, QString* error) const {
  if (!m_report) {
    if (error) *error = tr("There is no report to export: %1").arg(m_error.isEmpty() ? tr("open a project") : m_error);
    return false;
  }
  try {
    pha::write_file_atomic(path.toStdString(), {an::render_html(*m_report)});  // the one writer
    return true;
  } catch (const std::exception& e) {  // pha::Error naming the file
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

void ReportView::exportDialog() {
  const QString name = m_report ? qs(m_report->project) + "-report.html" : QStringLiteral("report.html");
  const QString path = QFileDialog::getSaveFileName(this, tr("Export report as HTML"), m_project + "/" + name,
                                                    tr("HTML (*.html)"));
  if (path.isEmpty()) return;
  QString error;
  if (!exportHtml(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
}

}  // namespace pha::gui
