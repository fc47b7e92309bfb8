#include "gui/lens/lens_view.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "gui/lens/lens_attention_tab.h"
#include "gui/lens/lens_knockout_tab.h"
#include "gui/lens/lens_spectrum_tab.h"
#include "gui/lens/lens_task.h"
#include "gui/lens/lens_tokens_tab.h"
#include "gui/lens/lens_weights_tab.h"
#include "store/lens_store.h"
#include "widgets/window_store.h"

namespace pha::gui {

namespace {

// Mean and sd over the replicas' stored knock-out rows, per (class, layer, branch); cells
// stored by fewer than two replicas are left out.
std::map<std::tuple<std::string, int, int>, SeedSpread> seedSpread(const std::string& storePath,
                                                                   const std::vector<qint64>& runs, int* withRows) {
  std::map<std::tuple<std::string, int, int>, std::vector<double>> values;
  *withRows = 0;
  if (runs.size() < 2) return {};
  auto s = store::Store::open(storePath, widgets::windowReadOptions());
  for (qint64 id : runs) {
    bool any = false;
    for (const auto& r : store::read_lens(s, id)) {
      if (r.kind != "knockout") continue;
      const int b = r.branch == "gss" ? 0 : r.branch == "attn" ? 1 : r.branch == "ffn" ? 2 : -1;
      if (b < 0) continue;
      values[{r.cls, r.layer, b}].push_back(r.value);
      any = true;
    }
    *withRows += any ? 1 : 0;
  }
  std::map<std::tuple<std::string, int, int>, SeedSpread> out;
  for (const auto& [key, v] : values) {
    if (v.size() < 2) continue;
    double mean = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    double ss = 0;
    for (double x : v) ss += (x - mean) * (x - mean);
    out[key] = SeedSpread{mean, std::sqrt(ss / static_cast<double>(v.size() - 1)), static_cast<int>(v.size())};
  }
  return out;
}

// Every view of one Run, each caught on its own: a model without attention still shows its
// weights, knock-outs, tokens and spectrum.
void measureAll(LensResults& r, const std::string& store, qint64 runId) {
  r.lens = std::make_shared<runtime::Lens>(store, runId);
  r.info = r.lens->info();
  r.windows = r.lens->windows(r.source);  // a source that does not fit the run throws: the Run fails
  auto caught = [](QString& error, const auto& f) {
    try {
      f();
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
  };
  caught(r.weightsError, [&] { r.weights = r.lens->effective_weights(r.windows); });
  caught(r.knockoutsError, [&] { r.knockouts = r.lens->knockouts(r.windows); });
  caught(r.tokensError, [&] { r.tokens = r.lens->token_losses(r.windows); });
  caught(r.spectrumError, [&] { r.spectrum = r.lens->spectrum(); });
  int layer = 0;  // the first layer with attention; none: the engine says the model has none
  for (size_t l = 0; l < r.info.heads.size(); ++l)
    if (r.info.heads[l] > 0) {
      layer = static_cast<int>(l);
      break;
    }
  caught(r.attentionError, [&] { r.attention = r.lens->attention(r.windows, 0, layer, 0); });
}

bool isTaskConfig(const std::string& configJson) {
  const auto j = nlohmann::json::parse(configJson, nullptr, false);
  if (!j.is_object() || !j.contains("data") || !j["data"].is_object()) return false;
  const auto& d = j["data"];
  return d.value("kind", std::string()) == "task" || d.contains("train") || d.contains("suite");
}

}  // namespace

LensView::LensView(QWidget* parent) : QWidget(parent) {
  m_tasks = new LensTasks(this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  m_runLabel = new QLabel(this);
  m_runLabel->setObjectName("lensRunLabel");
  m_runLabel->setWordWrap(true);
  layout->addWidget(m_runLabel);
  auto* bar = new QHBoxLayout;
  m_sourceKind = new QComboBox(this);
  m_sourceKind->setObjectName("lensSourceKind");
  m_sourceKind->addItems({tr("Validation window"), tr("Text...")});
  m_sourceKind->setToolTip(tr("Validation window: the first tokens of the run's validation split (task runs: the "
                              "first examples of the first held-out set). Text...: a text you paste (text runs only), "
                              "tokenized with the run's tokenizer"));
  bar->addWidget(m_sourceKind);
  m_tokenCount = new QSpinBox(this);
  m_tokenCount->setObjectName("lensTokens");
  m_tokenCount->setRange(16, 1 << 20);
  m_tokenCount->setValue(4096);
  m_tokenCount->setSuffix(tr(" tokens"));
  m_tokenCount->setToolTip(tr("Text runs: tokens of the validation split predicted"));
  bar->addWidget(m_tokenCount);
  m_examples = new QSpinBox(this);
  m_examples->setObjectName("lensExamples");
  m_examples->setRange(1, 100000);
  m_examples->setValue(64);
  m_examples->setSuffix(tr(" examples"));
  m_examples->setToolTip(tr("Task runs: examples of the first held-out set"));
  bar->addWidget(m_examples);
  m_runButton = new QPushButton(tr("Run"), this);
  m_runButton->setObjectName("lensRunButton");
  m_runButton->setToolTip(tr("Load the run's last checkpoint and measure every tab on the source (in the background)"));
  bar->addWidget(m_runButton);
  m_recordButton = new QPushButton(tr("Record"), this);
  m_recordButton->setObjectName("lensRecordButton");
  m_recordButton->setToolTip(tr("Store the measured weights (raw, effective, share) and knock-outs in the run store, "
                                "for the report's claims, the seeds' spread and the mixer's effective view"));
  bar->addWidget(m_recordButton);
  bar->addStretch(1);
  layout->addLayout(bar);
  m_text = new QPlainTextEdit(this);
  m_text->setObjectName("lensText");
  m_text->setPlaceholderText(tr("Paste a text here: the lens reads it with the run's tokenizer, in windows of the "
                                "run's context length"));
  m_text->setMaximumHeight(90);
  m_text->hide();
  layout->addWidget(m_text);
  m_status = new QLabel(this);
  m_status->setObjectName("lensStatus");
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_status);
  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName("lensTabs");
  m_weights = new LensWeightsTab(m_tabs);
  m_knockouts = new LensKnockoutTab(m_tabs);
  m_tokens = new LensTokensTab(m_tabs);
  m_spectrum = new LensSpectrumTab(m_tabs);
  m_attention = new LensAttentionTab(m_tabs);
  m_tabs->addTab(m_weights, tr("Weights"));
  m_tabs->addTab(m_knockouts, tr("Knock-outs"));
  m_tabs->addTab(m_tokens, tr("Tokens"));
  m_tabs->addTab(m_spectrum, tr("Spectrum"));
  m_tabs->addTab(m_attention, tr("Attention"));
  layout->addWidget(m_tabs, 1);

  connect(m_sourceKind, &QComboBox::currentIndexChanged, this, [this](int i) {
    m_text->setVisible(i == 1);
    updateButtons();
  });
  connect(m_runButton, &QPushButton::clicked, this, &LensView::run);
  connect(m_recordButton, &QPushButton::clicked, this, &LensView::record);
  connect(m_tasks, &LensTasks::busyChanged, this, [this] { updateButtons(); });
  connect(m_attention, &LensAttentionTab::attentionRequested, this, &LensView::requestAttention);
  connect(m_spectrum, &LensSpectrumTab::checkpointRequested, this, &LensView::requestSpectrum);
  connect(m_tokens, &LensTokensTab::compareRequested, this, &LensView::requestComparison);
  clearRun();
}

LensView::~LensView() = default;

void LensView::setRun(const QString& storePath, qint64 runId, const QString& name, const QList<qint64>& selected) {
  if (storePath == m_store && runId == m_runId) {
    m_replicas.clear();
  } else {
    m_tasks->cancelWaiting();
    m_results.reset();
    const QString msg = tr("Press Run to measure %1.").arg(name);
    m_weights->clear(msg);
    m_knockouts->clear(msg);
    m_tokens->clear(msg);
    m_spectrum->clear(msg);
    m_attention->clear(msg);
    setStatus({});
  }
  m_store = storePath;
  m_runId = runId;
  m_runName = name;
  m_replicas.clear();
  QList<CompareChoice> choices;
  QList<qint64> checkpoints;
  QString group;
  try {
    auto s = store::Store::open(storePath.toStdString(), widgets::windowReadOptions());
    const auto run = s.get_run(runId);
    if (!run) throw std::runtime_error("no run with id " + std::to_string(runId));
    group = QString::fromStdString(run->group);
    m_isTask = isTaskConfig(run->config_json);
    for (const auto& c : s.checkpoints(runId)) checkpoints << c.step;
    std::sort(checkpoints.begin(), checkpoints.end());
    store::RunListQuery q;
    q.project = run->project;
    q.kind = store::RunKind::Train;
    q.newest_first = false;
    std::vector<qint64> sameGroup;
    std::map<std::string, std::vector<int64_t>> groups;
    const auto runs = s.list_runs(q);
    for (const auto& e : runs) {
      if (e.run.status != store::RunStatus::Finished) continue;
      if (!e.run.group.empty()) groups[e.run.group].push_back(e.run.id);
      if (!run->group.empty() && e.run.group == run->group) sameGroup.push_back(e.run.id);
      if (e.run.id == runId) continue;
      choices << CompareChoice{tr("run %1: %2").arg(e.run.id).arg(QString::fromStdString(e.run.name)), {runId}, {e.run.id}, QString()};
    }
    // Groups of seeded replicas: this run's group (or this run alone) against each other group.
    const std::vector<int64_t> mine = sameGroup.size() >= 2 ? std::vector<int64_t>(sameGroup.begin(), sameGroup.end())
                                                            : std::vector<int64_t>{runId};
    for (const auto& [g, ids] : groups)
      if (ids.size() >= 2 && g != run->group)
        choices << CompareChoice{mine.size() >= 2 ? tr("group %1 (%2 runs) vs group %3 (%4 runs)")
                                                        .arg(group).arg(mine.size())
                                                        .arg(QString::fromStdString(g)).arg(ids.size())
                                                  : tr("group %1 (%2 runs)").arg(QString::fromStdString(g)).arg(ids.size()),
                                 mine, ids, QString::fromStdString(g)};
    // The seeds whose stored knock-outs give the spread: the selected replicas of this run's
    // group, else every replica of it in the store.
    for (qint64 id : selected)
      if (std::find(sameGroup.begin(), sameGroup.end(), id) != sameGroup.end()) m_replicas.push_back(id);
    if (m_replicas.size() < 2) m_replicas.assign(sameGroup.begin(), sameGroup.end());
  } catch (const std::exception& e) {
    setStatus(tr("Cannot read run %1: %2").arg(runId).arg(QString::fromUtf8(e.what())), true);
  }
  m_tokens->setCompareChoices(choices);
  m_spectrum->setCheckpoints(checkpoints);
  m_sourceKind->setItemData(1, m_isTask ? tr("A text source needs a text run; this is a task run.") : QVariant(),
                            Qt::ToolTipRole);
  m_runLabel->setText(tr("Run <b>%1</b> (id %2)%3, from its last checkpoint")
                          .arg(name.toHtmlEscaped())
                          .arg(runId)
                          .arg(group.isEmpty() ? QString() : tr(", group %1").arg(group.toHtmlEscaped())));
  updateButtons();
}

bool LensView::setCompareWithGroup(const QString& group) {
  const QList<CompareChoice>& choices = m_tokens->compareChoices();
  for (int i = 0; i < choices.size(); ++i)
    if (choices[i].group == group) {
      m_tokens->setCompareIndex(i);
      return true;
    }
  return false;
}

void LensView::clearRun(const QString& message) {
  m_tasks->cancelWaiting();
  m_store.clear();
  m_runId = 0;
  m_results.reset();
  m_replicas.clear();
  const QString msg = message.isEmpty() ? tr("Pick a trained run in the run table, then press Run.") : message;
  m_runLabel->setText(msg);
  m_weights->clear(msg);
  m_knockouts->clear(msg);
  m_tokens->clear(msg);
  m_tokens->setCompareChoices({});
  m_spectrum->clear(msg);
  m_attention->clear(msg);
  setStatus({});
  updateButtons();
}

void LensView::setSourceValidation(int tokens) {
  m_sourceKind->setCurrentIndex(0);
  m_tokenCount->setValue(tokens);
}

void LensView::setSourceText(const QString& text) {
  m_sourceKind->setCurrentIndex(1);
  m_text->setPlainText(text);
}

bool LensView::isBusy() const { return m_tasks->isBusy(); }
QString LensView::status() const { return m_status->text(); }

runtime::LensSource LensView::source() const {
  runtime::LensSource s;
  if (m_sourceKind->currentIndex() == 1) {
    s.text = m_text->toPlainText().toStdString();
    s.tokens = 0;  // the whole text
  } else if (m_isTask) {
    s.split = "";
    s.examples = m_examples->value();
  } else {
    s.tokens = m_tokenCount->value();
  }
  return s;
}

void LensView::setStatus(const QString& text, bool error) {
  m_status->setText(text);
  m_status->setStyleSheet(error ? "color: #b22222;" : QString());
}

void LensView::updateButtons() {
  const bool busy = m_tasks->isBusy();
  m_runButton->setEnabled(m_runId > 0 && !busy);
  m_recordButton->setEnabled(!busy && m_results && (m_results->weights || m_results->knockouts));
  m_tokenCount->setVisible(!m_isTask && m_sourceKind->currentIndex() == 0);
  m_examples->setVisible(m_isTask && m_sourceKind->currentIndex() == 0);
}

void LensView::run() {
  if (m_runId <= 0 || m_tasks->isBusy()) return;
  if (m_sourceKind->currentIndex() == 1 && m_text->toPlainText().trimmed().isEmpty()) {
    setStatus(tr("The text source is empty: paste a text, or choose Validation window."), true);
    emit failed(m_status->text());
    emit finished(false);
    return;
  }
  auto results = std::make_shared<LensResults>();
  results->source = source();
  results->spreadRuns.assign(m_replicas.begin(), m_replicas.end());
  const std::string store = m_store.toStdString();
  const qint64 runId = m_runId;
  setStatus(tr("Measuring %1 on %2... (the window stays usable)")
                .arg(m_runName, m_sourceKind->currentIndex() == 1 ? tr("the text") : m_sourceKind->currentText().toLower()));
  m_tasks->submit("run", [results, store, runId] {
    QElapsedTimer clock;
    clock.start();
    measureAll(*results, store, runId);
    int withRows = 0;
    try {
      results->seedSpread = seedSpread(store, results->spreadRuns, &withRows);
    } catch (const std::exception&) {
      results->seedSpread.clear();  // the spread is extra: its absence is not the run's failure
    }
    if (withRows < 2) results->seedSpread.clear();
    results->spreadRuns.resize(static_cast<size_t>(withRows));
    results->seconds = clock.elapsed() / 1000.0;
  }, [this, results](const QString& error) {
    if (!error.isEmpty()) {
      setStatus(tr("Cannot run the lens on %1: %2").arg(m_runName, error), true);
      emit failed(error);
      emit finished(false);
      emit jobEnded();
      return;
    }
    m_results = results;
    showResults();
    emit finished(true);
    emit jobEnded();
  });
  updateButtons();
}

void LensView::showResults() {
  const LensResults& r = *m_results;
  if (r.weights) m_weights->setWeights(*r.weights);
  else m_weights->clear(r.weightsError);
  if (r.knockouts) m_knockouts->setKnockouts(*r.knockouts, r.seedSpread, static_cast<int>(r.spreadRuns.size()));
  else m_knockouts->clear(r.knockoutsError);
  if (r.tokens) m_tokens->setTokens(*r.tokens, m_runName);
  else m_tokens->clear(r.tokensError);
  if (r.spectrum) m_spectrum->setSpectrum(*r.spectrum);
  else m_spectrum->setError(r.spectrumError);
  m_attention->setModel(r.info, r.windows.B);
  if (r.attention) m_attention->setMap(*r.attention);
  else m_attention->setError(r.attentionError);
  QStringList problems;
  for (const QString& e : {r.weightsError, r.knockoutsError, r.tokensError})
    if (!e.isEmpty()) problems << e;
  setStatus(tr("Measured in %1 s: %2 (%3 counted tokens), step %4%5")
                .arg(r.seconds, 0, 'f', 2)
                .arg(QString::fromStdString(r.windows.source))
                .arg(r.windows.counted())
                .arg(r.info.step)
                .arg(problems.isEmpty() ? QString() : tr("; ") + problems.join("; ")),
            !problems.isEmpty());
  if (m_tokens->compareIndex() >= 0) requestComparison(m_tokens->compareIndex());
  updateButtons();
}

void LensView::requestAttention(int window, int layer, int head) {
  if (!m_results || !m_results->lens) return;
  auto results = m_results;
  auto map = std::make_shared<runtime::AttentionMap>();
  m_tasks->submit("attention", [results, map, window, layer, head] {
    *map = results->lens->attention(results->windows, window, layer, head);
  }, [this, map](const QString& error) {
    if (error.isEmpty()) m_attention->setMap(*map);
    else m_attention->setError(error);
    emit jobEnded();
  });
}

void LensView::requestSpectrum(const runtime::LensOptions& options) {
  if (m_runId <= 0) return;
  const std::string store = m_store.toStdString();
  const qint64 runId = m_runId;
  auto spectrum = std::make_shared<runtime::KernelSpectrum>();
  m_tasks->submit("spectrum", [store, runId, options, spectrum] {
    runtime::Lens lens(store, runId, options);
    *spectrum = lens.spectrum();
  }, [this, spectrum](const QString& error) {
    if (error.isEmpty()) m_spectrum->setSpectrum(*spectrum);
    else m_spectrum->setError(error);
    emit jobEnded();
  });
}

void LensView::requestComparison(int index) {
  if (index < 0 || !m_results || index >= m_tokens->compareChoices().size()) return;
  const CompareChoice choice = m_tokens->compareChoices()[index];
  const std::string store = m_store.toStdString();
  const runtime::LensSource src = m_results->source;
  auto cmp = std::make_shared<runtime::TokenComparison>();
  setStatus(tr("Comparing with %1 on the same tokens...").arg(choice.label));
  m_tasks->submit("compare", [store, choice, src, cmp] {
    *cmp = runtime::compare_tokens(store, choice.a, choice.b, src);
  }, [this, cmp, index](const QString& error) {
    if (m_tokens->compareIndex() != index) return;  // another choice since
    if (error.isEmpty()) {
      m_tokens->setComparison(*cmp);
      setStatus(tr("Compared in %1 s: %2").arg(cmp->seconds, 0, 'f', 2).arg(m_tokens->status()));
    } else {
      m_tokens->setComparisonError(error);
      setStatus(tr("Cannot compare: %1").arg(error), true);
    }
    emit jobEnded();
  });
}

void LensView::record() {
  if (!m_results || m_tasks->isBusy()) return;
  auto results = m_results;
  const std::string store = m_store.toStdString();
  const qint64 runId = m_runId;
  auto count = std::make_shared<size_t>(0);
  m_tasks->submit("record", [results, store, runId, count] {
    std::vector<store::LensRow> rows;
    if (results->weights) rows = results->lens->rows(*results->weights);
    if (results->knockouts) {
      auto k = results->lens->rows(*results->knockouts);
      rows.insert(rows.end(), k.begin(), k.end());
    }
    auto s = store::Store::open(store);
    store::record_lens(s, runId, rows);
    *count = rows.size();
  }, [this, count, runId](const QString& error) {
    if (!error.isEmpty()) {
      setStatus(tr("Cannot record: %1").arg(error), true);
      emit failed(error);
    } else {
      setStatus(tr("Recorded %1 lens rows (weights and knock-outs) for run %2 in %3").arg(*count).arg(runId).arg(m_store));
      emit recorded(m_store, runId);
    }
    emit jobEnded();
  });
  updateButtons();
}

}  // namespace pha::gui
