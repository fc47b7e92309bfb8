#include "gui/generate/generate_panel.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTextBrowser>
#include <QThread>
#include <mutex>
#include <QVBoxLayout>

#include "runtime/generation.h"

namespace pha::gui {

GeneratePanel::GeneratePanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  m_runLabel = new QLabel(tr("Pick a finished text run in the run browser."), this);
  m_runLabel->setWordWrap(true);
  layout->addWidget(m_runLabel);
  m_prompt = new QPlainTextEdit(this);
  m_prompt->setObjectName("generatePrompt");
  m_prompt->setPlaceholderText(tr("Prompt"));
  m_prompt->setPlainText("It was a");
  m_prompt->setMaximumHeight(70);
  layout->addWidget(m_prompt);
  auto* row = new QHBoxLayout;
  auto* form = new QFormLayout;
  m_tokens = new QSpinBox(this);
  m_tokens->setRange(1, 4096);
  m_tokens->setValue(200);
  m_temperature = new QDoubleSpinBox(this);
  m_temperature->setRange(0.0, 5.0);
  m_temperature->setSingleStep(0.1);
  m_temperature->setValue(0.8);
  m_temperature->setToolTip(tr("0 samples greedily"));
  m_topK = new QSpinBox(this);
  m_topK->setRange(0, 100000);
  m_topK->setToolTip(tr("0: off"));
  m_topP = new QDoubleSpinBox(this);
  m_topP->setRange(0.01, 1.0);
  m_topP->setSingleStep(0.05);
  m_topP->setValue(0.95);
  m_seed = new QSpinBox(this);
  m_seed->setRange(0, 1 << 30);
  form->addRow(tr("Tokens"), m_tokens);
  form->addRow(tr("Temperature"), m_temperature);
  auto* form2 = new QFormLayout;
  form2->addRow(tr("Top-k"), m_topK);
  form2->addRow(tr("Top-p"), m_topP);
  form2->addRow(tr("Seed"), m_seed);
  row->addLayout(form);
  row->addLayout(form2);
  layout->addLayout(row);
  m_button = new QPushButton(tr("Generate"), this);
  m_button->setObjectName("generateButton");
  m_button->setEnabled(false);
  layout->addWidget(m_button);
  m_output = new QTextBrowser(this);
  m_output->setObjectName("generateOutput");
  layout->addWidget(m_output, 1);
  m_status = new QLabel(this);
  m_status->setWordWrap(true);
  layout->addWidget(m_status);
  connect(m_button, &QPushButton::clicked, this, &GeneratePanel::generate);
}

GeneratePanel::~GeneratePanel() {
  if (m_thread) m_thread->wait();
}

void GeneratePanel::setRun(const QString& storePath, qint64 runId, const QString& runName) {
  m_store = storePath;
  m_runId = runId;
  m_runLabel->setText(tr("Run: <b>%1</b> (id %2), from its last checkpoint").arg(runName.toHtmlEscaped()).arg(runId));
  m_button->setEnabled(!m_busy);
}

void GeneratePanel::clearRun() {
  m_store.clear();
  m_runId = 0;
  m_runLabel->setText(tr("Pick a trained run in the run table to sample from its last checkpoint."));
  m_button->setEnabled(false);
}

void GeneratePanel::generate() {
  if (m_busy || m_runId == 0) return;
  m_busy = true;
  m_button->setEnabled(false);
  m_status->setText(tr("Sampling..."));
  const std::string store = m_store.toStdString();
  const std::string prompt = m_prompt->toPlainText().toStdString();
  const qint64 runId = m_runId;
  const int tokens = m_tokens->value();
  runtime::SamplingSettings s;
  s.temperature = m_temperature->value();
  s.top_k = m_topK->value();
  s.top_p = m_topP->value();
  s.seed = static_cast<uint64_t>(m_seed->value());
  auto result = std::make_shared<runtime::GenerationResult>();
  auto error = std::make_shared<QString>();
  auto handOff = std::make_shared<std::mutex>();  // the results cross threads under it (TSan sees it)
  m_thread = QThread::create([=] {
    runtime::GenerationResult r;
    QString e;
    try {
      r = runtime::generate_from_run(store, runId, prompt, tokens, s);
    } catch (const std::exception& ex) {
      e = QString::fromUtf8(ex.what());
    }
    std::lock_guard<std::mutex> lock(*handOff);
    *result = std::move(r);
    *error = e;
  });
  connect(m_thread, &QThread::finished, this, [this, result, error, prompt, handOff] {
    m_thread->wait();
    { std::lock_guard<std::mutex> lock(*handOff); }  // everything the worker wrote is visible now
    m_thread->deleteLater();
    m_thread = nullptr;
    m_busy = false;
    m_button->setEnabled(m_runId != 0);
    if (!error->isEmpty()) {
      m_status->setText(tr("Cannot generate: %1").arg(*error));
      emit failed(*error);
      return;
    }
    m_last = QString::fromStdString(result->text);
    m_output->setHtml(QString("<pre style='white-space:pre-wrap'><b>%1</b>%2</pre>")
                          .arg(QString::fromStdString(prompt).toHtmlEscaped(), m_last.toHtmlEscaped()));
    m_status->setText(tr("%1 tokens in %2 s from step %3 (%4)")
                          .arg(result->tokens)
                          .arg(result->seconds, 0, 'f', 2)
                          .arg(result->step)
                          .arg(QString::fromStdString(result->checkpoint)));
    emit generated(m_last);
  });
  m_thread->start();
}

QString GeneratePanel::output() const { return m_last; }
QString GeneratePanel::status() const { return m_status->text(); }

}  // namespace pha::gui
