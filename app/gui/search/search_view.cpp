#include "gui/search/search_view.h"

#include <QApplication>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>

#include "gui/search/layer_strip.h"
#include "widgets/number_format.h"
#include "gui/project/project_session.h"
#include "gui/queue/queue_controller.h"
#include "gui/queue/run_queue.h"
#include "gui/search/rung_chart.h"
#include "project/project_files.h"
#include "gui/search/search_form.h"
#include "gui/search/search_leaderboard.h"
#include "gui/search/search_pareto.h"
#include "project/project_search.h"
#include "gui/search/search_state.h"

namespace pha::gui {

using search_runner::SearchSummary;

namespace {
constexpr int kStripRows = 8;  // the best trials whose patterns the strip draws
}

SearchView::SearchView(ProjectSession* session, RunQueue* queue, QWidget* parent)
    : QWidget(parent), m_session(session), m_queue(queue) {
  setObjectName("searchView");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* top = new QHBoxLayout;
  m_status = new QLabel(tr("No project open."), this);
  m_status->setObjectName("searchStatus");
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  top->addWidget(m_status, 1);
  top->addWidget(new QLabel(tr("Runs at once"), this));
  m_jobs = new QSpinBox(this);
  m_jobs->setObjectName("searchJobs");
  m_jobs->setRange(1, std::max(1, QThread::idealThreadCount()));
  m_jobs->setValue(1);
  m_jobs->setToolTip(tr("Rung runs trained at once (pha search --jobs N). With more than one, each runs in its own "
                        "`pha search --only` process and the live curves stay empty; the trials, values and "
                        "decisions are the same either way."));
  top->addWidget(m_jobs);
  m_start = new QPushButton(tr("Start"), this);
  m_start->setObjectName("searchStart");
  m_start->setToolTip(tr("Run or continue the search (pha search): finished rung runs are reused, interrupted ones "
                         "resumed from their checkpoints"));
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setObjectName("searchCancel");
  m_cancel->setToolTip(tr("Cancel the search (Run > Cancel): the running rung run writes a checkpoint; Start "
                          "continues from there"));
  m_refresh = new QPushButton(tr("Reload"), this);
  m_refresh->setObjectName("searchReload");
  m_refresh->setToolTip(tr("Read the section and the store again (a search run by `pha search` elsewhere)"));
  for (QPushButton* b : {m_start, m_cancel, m_refresh}) top->addWidget(b);
  layout->addLayout(top);

  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName("searchTabs");
  m_tabs->addTab(buildResults(), tr("Results"));
  m_form = new SearchForm(this);
  m_form->setObjectName("searchForm");
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(m_form);
  m_tabs->addTab(scroll, tr("Section"));
  layout->addWidget(m_tabs, 1);

  connect(m_start, &QPushButton::clicked, this, [this] { start(); });
  connect(m_cancel, &QPushButton::clicked, this, &SearchView::cancel);
  connect(m_refresh, &QPushButton::clicked, this, &SearchView::refresh);
  connect(m_promote, &QPushButton::clicked, this, [this] { promoteSelected(); });
  connect(m_compare, &QPushButton::clicked, this, &SearchView::compareSelected);
  connect(m_form, &SearchForm::saved, this, [this] {
    emit message(tr("Saved the search section to %1").arg(m_session->dir() + "/project.json"), 8000);
    refresh();
  });
  connect(m_session, &ProjectSession::projectOpened, this, &SearchView::refresh);
  connectQueue();
  refresh();
}

QWidget* SearchView::buildResults() {
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->setObjectName("searchResultsSplit");
  auto* left = new QWidget(split);
  auto* ll = new QVBoxLayout(left);
  ll->setContentsMargins(0, 0, 0, 0);
  m_model = new SearchLeaderboardModel(this);
  m_proxy = new QSortFilterProxyModel(this);
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(Qt::UserRole);
  m_table = new QTableView(left);
  m_table->setObjectName("searchLeaderboard");
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(SearchLeaderboardModel::Rank, Qt::AscendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_table->setWordWrap(false);
  m_table->setTextElideMode(Qt::ElideMiddle);
  m_table->setAlternatingRowColors(true);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setMinimumWidth(300);
  ll->addWidget(m_table, 1);
  auto* buttons = new QHBoxLayout;
  m_compare = new QPushButton(tr("Compare selected"), left);
  m_compare->setObjectName("searchCompare");
  m_compare->setToolTip(tr("The selected trials' rung runs (their latest rung's) in the Compare dock"));
  m_promote = new QPushButton(tr("Promote to variant..."), left);
  m_promote->setObjectName("searchPromote");
  m_promote->setToolTip(tr("Add the selected trial to project.json as a variant (its model and training settings "
                           "written out; pha search --promote)"));
  buttons->addWidget(m_compare);
  buttons->addWidget(m_promote);
  buttons->addStretch(1);
  ll->addLayout(buttons);

  auto* right = new QSplitter(Qt::Vertical, split);
  m_rungs = new RungChart(right);
  m_sideTabs = new QTabWidget(right);
  m_sideTabs->setObjectName("searchSideTabs");
  m_strip = new LayerStrip(m_sideTabs);
  auto* stripScroll = new QScrollArea(m_sideTabs);
  stripScroll->setWidgetResizable(true);
  stripScroll->setFrameShape(QFrame::NoFrame);
  stripScroll->setWidget(m_strip);
  m_sideTabs->addTab(stripScroll, tr("Layer patterns"));
  m_pareto = new SearchParetoChart(m_sideTabs);
  m_sideTabs->addTab(m_pareto, tr("Pareto"));
  right->setChildrenCollapsible(false);
  right->setStretchFactor(0, 3);
  right->setStretchFactor(1, 2);
  split->addWidget(left);
  split->addWidget(right);
  split->setChildrenCollapsible(false);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    m_rungs->setHighlighted(selectedTrials());
    updateButtons();
  });
  return split;
}

void SearchView::setQueueController(QueueController* controller) {
  m_controller = controller;
  if (m_controller) connect(m_controller, &QueueController::stateChanged, this, &SearchView::updateButtons);
  updateButtons();
}

void SearchView::connectQueue() {
  connect(m_queue, &RunQueue::searchRunStarted, this, &SearchView::onRunStarted);
  connect(m_queue, &RunQueue::searchUpdated, this, &SearchView::onUpdated);
  connect(m_queue, &RunQueue::searchEnded, this, &SearchView::onEnded);
}

void SearchView::refresh() {
  if (m_live) return;  // the running search's state is the live one
  m_error.clear();
  m_progress.clear();
  const bool had = m_hasSection;
  m_hasSection = false;
  m_base = {};
  if (!m_session->isOpen()) {
    m_form->clear(tr("Open a project to see or add its \"search\" section."));
    showSummary({});
    m_status->setText(tr("No project open."));
    if (had) emit sectionPresenceChanged(false);
    updateButtons();
    return;
  }
  const QString dir = m_session->dir();
  QString problem;
  try {
    const project::SearchSectionFile file = project::read_search_section(dir.toStdString());
    m_hasSection = !file.section.is_null();
    m_form->load(dir, file);
  } catch (const std::exception& e) {
    problem = QString::fromUtf8(e.what());
    m_form->clear(tr("Cannot read project.json: %1").arg(problem));
  }
  if (m_hasSection && m_session->isStoreDamaged()) {
    problem = tr("the run store is damaged (the Project dock's banner says how to recover it); its search is not read.");
  } else if (m_hasSection) {
    try {
      m_base = search_runner::search_status(dir.toStdString());
    } catch (const std::exception& e) {
      problem = tr("cannot read the search's state: %1").arg(QString::fromUtf8(e.what()));
    }
  }
  showSummary(m_base);
  if (!m_hasSection && problem.isEmpty())
    m_status->setText(tr("<b>%1</b> has no \"search\" section. The Section tab proposes one to add (or write it in "
                         "project.json: docs/search.md); then Start runs it here, as <code>pha search</code>.")
                          .arg(m_session->name().toHtmlEscaped()));
  else if (!problem.isEmpty())
    m_status->setText(tr("Search of %1: %2").arg(m_session->name().toHtmlEscaped(), problem.toHtmlEscaped()));
  if (!m_hasSection) {
    m_tabs->setCurrentIndex(1);
    m_rungs->clear(tr("No search in this project yet: its Section tab proposes one."));
  }
  if (had != m_hasSection) emit sectionPresenceChanged(m_hasSection);
  updateButtons();
}

namespace {
// What the leaderboard shows of a search: each trial's state, rung, value and runs, and whether
// it is complete (not the counters of the pass that produced it).
bool sameStanding(const SearchSummary& a, const SearchSummary& b) {
  if (a.complete != b.complete || a.trials.size() != b.trials.size()) return false;
  for (std::size_t i = 0; i < a.trials.size(); ++i) {
    const auto &x = a.trials[i], &y = b.trials[i];
    if (x.search != y.search || x.bracket != y.bracket || x.trial != y.trial || x.state != y.state ||
        x.rung != y.rung || x.mean != y.mean || x.run_ids != y.run_ids)
      return false;
  }
  return true;
}
}  // namespace

void SearchView::refreshStatus() {
  if (m_live || !m_hasSection || !m_session->isOpen() || m_session->isStoreDamaged()) return;
  SearchSummary now;
  try {
    now = search_runner::search_status(m_session->dir().toStdString());
  } catch (const std::exception& e) {
    m_status->setText(tr("Search of %1: %2")
                          .arg(m_session->name().toHtmlEscaped(),
                               tr("cannot read the search's state: %1").arg(QString::fromUtf8(e.what())).toHtmlEscaped()));
    return;
  }
  // Unchanged standing (the store changed elsewhere, or the search that just ended wrote what
  // the view already shows): the view and its status line, e.g. the end message, stay.
  if (sameStanding(now, m_shown)) return;
  m_base = std::move(now);
  showSummary(m_base);
  updateButtons();
}

void SearchView::showSummary(const SearchSummary& summary) {
  const QStringList selected = selectedTrials();
  m_shown = summary;
  m_model->setSummary(m_shown);
  selectTrials(selected);
  m_rungs->setSummary(m_shown);
  m_pareto->setSummary(m_shown);
  if (m_shown.objectives.size() > 1 && m_sideTabs->currentIndex() == 0 && m_strip->rows().empty())
    m_sideTabs->setCurrentIndex(1);
  updateStrip();
  if (m_session->isOpen() && !m_shown.trials.empty()) {
    QString text = tr("Search of <b>%1</b>: %2; %3 optimizer steps over every rung run")
                       .arg(QString::fromStdString(m_shown.project).toHtmlEscaped(),
                            searchStandingText(m_shown).toHtmlEscaped(), widgets::formatCount(m_shown.steps_total));
    if (!m_progress.isEmpty()) text += "<br>" + m_progress.toHtmlEscaped();
    m_status->setText(text);
  }
  for (int c = 0; c < m_model->columnCount() - 1; ++c) m_table->resizeColumnToContents(c);
  if (m_table->columnWidth(SearchLeaderboardModel::Settings) > 260) m_table->setColumnWidth(SearchLeaderboardModel::Settings, 260);
}

void SearchView::updateStrip() {
  std::vector<LayerStrip::Row> rows;
  bool anyPattern = false;
  const std::vector<int> order = searchLeaderboardOrder(m_shown);
  int rank = 0;
  std::string last;
  for (int i : order) {
    const auto& t = m_shown.trials[static_cast<std::size_t>(i)];
    rank = t.search == last ? rank + 1 : 1;
    last = t.search;
    const QStringList pattern = searchTrialPattern(t);
    if (pattern.isEmpty()) continue;
    anyPattern = true;
    if (static_cast<int>(rows.size()) >= kStripRows || t.state == "failed") continue;
    QString title = QString("%1. %2").arg(rank).arg(searchTrialName(t, m_shown.searches.size() > 1, false));
    const QString mean = searchMeanText(t.mean, t.stdev, 0);
    if (!mean.isEmpty() && !m_shown.objectives.empty())
      title += QString("  %1 %2").arg(QString::fromStdString(m_shown.objectives[0]), mean);
    rows.push_back({title, pattern, t.state == "finished" || t.state == "promoted"});
  }
  QString empty;
  if (!anyPattern)
    empty = m_shown.trials.empty() ? tr("The best trials' layer patterns appear here.")
                                   : tr("This search varies no layer pattern (no \"patterns\" in its section): every "
                                        "trial has its base variant's layers.");
  m_strip->setRows(rows, empty);
}

QStringList SearchView::selectedTrials() const {
  QStringList ids;
  if (!m_table || !m_table->selectionModel()) return ids;
  for (const QModelIndex& i : m_table->selectionModel()->selectedRows())
    if (const auto* t = m_model->trialAt(m_proxy->mapToSource(i).row())) ids << searchTrialId(*t);
  return ids;
}

void SearchView::selectTrials(const QStringList& trialIds) {
  QItemSelection selection;
  for (const QString& id : trialIds) {
    const int row = m_model->rowOfTrial(id);
    if (row < 0) continue;
    const QModelIndex at = m_proxy->mapFromSource(m_model->index(row, 0));
    selection.select(at, at.siblingAtColumn(m_model->columnCount() - 1));
  }
  m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void SearchView::updateButtons() {
  const bool busy = m_queue->isBusy();
  const bool open = m_session->isOpen();
  QString why;
  if (!open) why = tr("Open a project first.");
  else if (!m_hasSection) why = tr("The project has no \"search\" section (the Section tab proposes one).");
  else if (m_session->isStoreDamaged()) why = tr("The run store is damaged; recover it first (Project dock).");
  else if (!m_session->hasLocalData()) why = m_session->missingDataReason();
  else if (busy) why = m_live ? tr("The search is running.") : tr("The run queue is busy; wait or cancel it.");
  m_start->setEnabled(why.isEmpty() && m_controller);
  m_start->setToolTip(why.isEmpty() ? tr("Run or continue the search (pha search): finished rung runs are reused, "
                                         "interrupted ones resumed from their checkpoints")
                                    : why);
  m_cancel->setEnabled(m_live);
  m_refresh->setEnabled(open && !m_live);
  m_jobs->setEnabled(!m_live);
  const int selected = static_cast<int>(selectedTrials().size());
  m_promote->setEnabled(selected == 1 && !busy);
  m_promote->setToolTip(busy ? tr("Wait for the queue to finish: the project opens again with the new variant")
                             : tr("Add the selected trial to project.json as a variant (its model and training "
                                  "settings written out; pha search --promote)"));
  m_compare->setEnabled(selected >= 1);
  m_form->setEditable(!m_live, tr("The search is running: its section cannot change under it."));
}

bool SearchView::start(int jobs) {
  if (!m_controller) return false;
  if (!m_hasSection) {
    fail(tr("This project has no \"search\" section: add one in the Search dock's Section tab (docs/search.md)."));
    return false;
  }
  if (!m_session->hasLocalData()) {
    fail(tr("The search trains on the project's data, which is not on this machine: %1").arg(m_session->missingDataReason()));
    return false;
  }
  m_liveJobs = jobs > 0 ? jobs : m_jobs->value();
  if (!m_controller->runSearch(*m_session, m_liveJobs)) return false;
  m_live = true;
  m_progress = tr("Starting: reading the store (finished rung runs are reused, interrupted ones resumed)");
  showSummary(m_shown);
  m_tabs->setCurrentIndex(0);
  updateButtons();
  return true;
}

void SearchView::cancel() {
  if (m_controller && m_live) m_controller->cancelAll();
}

void SearchView::onRunStarted(const QString& project, const QString& job, const QString& label, int index, int planned) {
  if (!m_session->isOpen() || QDir(project).absolutePath() != QDir(m_session->dir()).absolutePath()) return;
  if (!m_live) {  // started elsewhere (Run > Search, a test): follow it from the store's state
    m_live = true;
    m_liveJobs = m_queue->isSearching() ? std::max(1, m_liveJobs) : 1;
  }
  if (m_liveJobs <= 1)  // one at a time: a trial still marked running has trained (the engine's
    for (auto& t : m_shown.trials)  // update with its value, searchUpdated, normally came first)
      if (t.state == "running") {
        t.state = "trained";
        t.why = tr("trained; awaiting the rung's decision (when every run of rung %1 has ended)").arg(t.rung).toStdString();
        if (!t.history.empty()) t.history.back().state = "trained";
      }
  markSearchRunStarted(m_shown, job);
  m_progress = tr("Training rung run %1 of %2 (planned so far): %3, %4").arg(index).arg(planned).arg(job, label);
  showSummary(m_shown);
  updateButtons();
}

void SearchView::onUpdated(const SearchSummary& summary) {
  if (!m_live) return;
  showSummary(mergeSearchSummary(m_base, summary));
}

void SearchView::onEnded(const QString& status, const QString& message, const SearchSummary& summary) {
  if (!m_live) return;
  m_live = false;
  refresh();  // the store is the truth: what finished, where a cancelled search stopped
  if (m_shown.trials.empty() && !summary.trials.empty()) showSummary(mergeSearchSummary(m_base, summary));
  const QString line = tr("Search %1: %2").arg(status, message);
  m_status->setText(m_status->text() + "<br>" + line.toHtmlEscaped());
  emit this->message(line, 10000);
  updateButtons();
}

bool SearchView::promoteSelected(const QString& name) {
  const QStringList ids = selectedTrials();
  if (ids.size() != 1) {
    fail(tr("Select one trial to promote."));
    return false;
  }
  if (m_queue->isBusy()) {
    fail(tr("Wait for the queue to finish before promoting a trial (the project opens again with the new variant)."));
    return false;
  }
  const auto* t = m_model->trialAt(m_model->rowOfTrial(ids.first()));
  const std::string dir = m_session->dir().toStdString();
  QString chosen = name.trimmed();
  if (chosen.isEmpty()) {
    QString proposed;
    try {
      proposed = QString::fromStdString(project::unique_variant_name(dir, t->search + "-t" + std::to_string(t->trial)));
    } catch (const std::exception&) {
      proposed = QString::fromStdString(t->search + "-t" + std::to_string(t->trial));
    }
    bool ok = true;
    if (QApplication::platformName() == "offscreen")
      chosen = proposed;
    else
      chosen = QInputDialog::getText(this, tr("Promote to variant"),
                                     tr("Name of the new variant in project.json (trial %1: %2):")
                                         .arg(ids.first(), QString::fromStdString(t->label)),
                                     QLineEdit::Normal, proposed, &ok);
    if (!ok) return false;
    chosen = chosen.trimmed();
  }
  QString added;
  try {
    added = QString::fromStdString(search_runner::promote_search_trial(dir, ids.first().toStdString(), chosen.toStdString()));
  } catch (const std::exception& e) {
    fail(tr("Cannot promote %1: %2").arg(ids.first(), QString::fromUtf8(e.what())));
    return false;
  }
  emit projectFileChanged(tr("Added trial %1 (%2) to %3 as variant %4")
                              .arg(ids.first(), QString::fromStdString(t->label), m_session->dir() + "/project.json", added));
  return true;
}

bool SearchView::compareSelected() {
  QList<qint64> runs;
  for (const QString& id : selectedTrials())
    if (const auto* t = m_model->trialAt(m_model->rowOfTrial(id)))
      for (qint64 r : searchTrialRuns(*t))
        if (!runs.contains(r)) runs << r;
  if (runs.size() < 2) {
    fail(tr("Select trials with two or more rung runs in the store to compare (Ctrl- or Shift-click in the "
            "leaderboard); pending trials have none yet."));
    return false;
  }
  emit compareRequested(runs);
  return true;
}

void SearchView::fail(const QString& message) {
  m_error = message;
  emit errorOccurred(message);
}

QString SearchView::statusText() const { return m_status->text(); }

}  // namespace pha::gui
