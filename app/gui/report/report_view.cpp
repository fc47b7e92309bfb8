#include "report_view.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <exception>

// The report's own number formats (mean ± std (n), [lo, hi]), so the window prints the figures
// exactly as `pha report` does.
#include "analysis/report_format.h"
#include "runtime/project_report.h"

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

// Green for holds, red for does not hold, amber for inconclusive and mixed (Okabe-Ito hues).
QColor verdictColor(an::Verdict v) {
  switch (v) {
    case an::Verdict::Holds: return QColor(0, 158, 115, 70);
    case an::Verdict::DoesNotHold: return QColor(213, 94, 0, 70);
    default: return QColor(230, 159, 0, 55);
  }
}

QString measuredText(const an::ClaimRow& row) {
  QStringList parts;
  for (const auto& m : row.measured) {
    QString s = qs(m.label + ": " + an::mean_std(m.stats));
    if (m.stats.has_interval()) s += " " + qs(an::interval(m.stats.ci_low, m.stats.ci_high));
    parts << s;
  }
  return parts.isEmpty() ? QStringLiteral("-") : parts.join('\n');
}

}  // namespace

// Longer than 60 lines: the dock's widgets and their layout, top to bottom as shown.
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
  title(tr("Claims")
            + tr("</b>: measured as mean ± sample std (n) [95% interval] over each side's replicas; the effect is "
                 "the difference of means with Welch's 95% interval<b>"));
  m_claims = makeTable("reportClaims", {tr("claim"), tr("at"), tr("measured"), tr("effect"), tr("95% interval"),
                                        tr("verdict"), tr("paper")}, page);
  m_claims->horizontalHeaderItem(5)->setToolTip(tr("Hover a verdict for its reason"));
  // The long texts (claim, measured, paper) share the width and wrap; the short ones fit.
  for (int c : {0, 2, 6}) m_claims->horizontalHeader()->setSectionResizeMode(c, QHeaderView::Stretch);
  // "at" and "effect" name the compared groups ("pha-tiny/lr=0.003 vs ..." with tuned settings):
  // a fixed width that wraps, so they do not squeeze the claim and measured columns to nothing.
  for (int c : {1, 3}) {
    m_claims->horizontalHeader()->setSectionResizeMode(c, QHeaderView::Interactive);
    m_claims->setColumnWidth(c, 170);
  }
  layout->addWidget(m_claims);
  keepFitted(m_claims);
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
  for (QTableWidget* t : {m_claims, m_efficiency, m_groups}) {
    t->clearSpans();
    t->setRowCount(0);
    fitRows(t);
  }
  m_notes->clear();
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
                         "difference: Welch); a claim holds when the interval of its effect lies on the claimed side "
                         "(docs/report.md).")
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

void ReportView::fillClaims(const an::Report& r) {
  m_claims->clearSpans();
  m_claims->setRowCount(0);
  for (std::size_t i = 0; i < r.claims.size(); ++i) {
    const an::ClaimReport& c = r.claims[i];
    const int first = m_claims->rowCount();
    QString claim = QStringLiteral("%1. %2\n(%3; verdict: %4)")
                        .arg(i + 1)
                        .arg(qs(c.claim.title.empty() ? c.statement : c.claim.title + ": " + c.statement),
                             qs(an::to_string(c.claim.kind)), qs(c.summary));
    if (!c.tuning.empty()) claim += "\n" + qs(c.tuning);
    for (const auto& x : c.crossings) claim += "\n" + qs(x.label + ", " + an::crossing_text(x));
    const std::size_t rows = std::max<std::size_t>(1, c.rows.size());
    for (std::size_t k = 0; k < rows; ++k) {
      const int row = m_claims->rowCount();
      m_claims->insertRow(row);
      if (k >= c.rows.size()) {  // a claim without rows: its summary says why
        m_claims->setItem(row, 5, item(qs(c.summary)));
        continue;
      }
      const an::ClaimRow& cr = c.rows[k];
      const bool effect = !cr.effect_label.empty() && !std::isnan(cr.effect);
      m_claims->setItem(row, 1, item(qs(cr.label)));
      m_claims->setItem(row, 2, item(measuredText(cr)));
      m_claims->setItem(row, 3, item(effect ? qs(cr.effect_label + ": " + an::num(cr.effect)) : "-"));
      const std::string ci = effect ? an::interval(cr.effect_low, cr.effect_high) : "";
      m_claims->setItem(row, 4, item(ci.empty() ? QStringLiteral("-") : qs(ci)));
      auto* verdict = item(qs(an::to_string(cr.verdict)), qs(cr.reason));
      verdict->setBackground(verdictColor(cr.verdict));
      m_claims->setItem(row, 5, verdict);
    }
    m_claims->setItem(first, 0, item(claim, qs(c.claim.json.dump())));
    m_claims->item(first, 0)->setBackground(verdictColor(c.verdict));
    m_claims->setItem(first, 6, item(c.claim.paper.empty() ? QStringLiteral("-") : qs(c.claim.paper)));
    if (rows > 1) {
      m_claims->setSpan(first, 0, int(rows), 1);
      m_claims->setSpan(first, 6, int(rows), 1);
    }
  }
  if (r.claims.empty()) {
    m_claims->insertRow(0);
    m_claims->setItem(0, 0, item(tr("The project declares no claims (project.json \"claims\", docs/project-format.md).")));
    m_claims->setSpan(0, 0, 1, m_claims->columnCount());
  }
  fitRows(m_claims);
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
