#include "gui/inference/inference_measure_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace pha::gui {

InferenceMeasureDialog::InferenceMeasureDialog(const QStringList& models, const QString& modelsError, QWidget* parent)
    : QDialog(parent), m_models(models) {
  setWindowTitle(tr("Measure inference"));
  setObjectName("inferenceMeasureDialog");
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(
      modelsError.isEmpty()
          ? tr("Prefill, decode and end-to-end speed and the decode memory of the project's %n model(s): %1. Each "
               "point runs in a fresh pha process (its peak memory is its own); the results are recorded in the "
               "project's store as runs named \"inference: <model>\".",
               nullptr, static_cast<int>(models.size()))
                .arg(models.join(", "))
          : tr("The project's models could not be read: %1").arg(modelsError),
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  auto* form = new QFormLayout;
  m_lengths = new QLineEdit(this);
  m_lengths->setObjectName("inferenceLengths");
  m_lengths->setToolTip(tr("Comma-separated prompt lengths L (decode is timed at depth L)"));
  m_batches = new QLineEdit(this);
  m_batches->setObjectName("inferenceBatches");
  m_batches->setToolTip(tr("Comma-separated batch sizes; a point with batch > 1 and batch x L above %1 is skipped")
                            .arg(m_sweep.max_batch_tokens));
  m_generate = new QSpinBox(this);
  m_generate->setObjectName("inferenceGenerate");
  m_generate->setRange(2, 1 << 20);
  m_generate->setToolTip(tr("Tokens generated after the prompt (end to end; the KV caches are reserved for L + these)"));
  m_decodeTimed = new QSpinBox(this);
  m_decodeTimed->setObjectName("inferenceDecodeTimed");
  m_decodeTimed->setRange(1, 1 << 20);
  m_decodeTimed->setToolTip(tr("Decode steps whose median is \"ms per token\" (after %1 untimed ones)")
                                .arg(m_sweep.decode_warmup));
  form->addRow(tr("Prompt lengths L:"), m_lengths);
  form->addRow(tr("Batch sizes:"), m_batches);
  form->addRow(tr("Generate (tokens):"), m_generate);
  form->addRow(tr("Timed decode steps:"), m_decodeTimed);
  layout->addLayout(form);
  m_message = new QLabel(this);
  m_message->setObjectName("inferenceSettingsMessage");
  m_message->setWordWrap(true);
  layout->addWidget(m_message);
  m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults,
                                   this);
  m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Measure"));
  layout->addWidget(m_buttons);
  connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
    if (!m_valid) return;
    saveInferenceSettings(settings());
    accept();
  });
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this,
          [this] { setSettings(defaultInferenceSettings()); });
  for (QLineEdit* e : {m_lengths, m_batches}) connect(e, &QLineEdit::textChanged, this, &InferenceMeasureDialog::check);
  for (QSpinBox* s : {m_generate, m_decodeTimed})
    connect(s, &QSpinBox::valueChanged, this, &InferenceMeasureDialog::check);
  setSettings(savedInferenceSettings());  // check() keeps Measure disabled without models
  setMinimumWidth(480);
}

InferenceSettingsText InferenceMeasureDialog::settings() const {
  return {m_lengths->text(), m_batches->text(), m_generate->value(), m_decodeTimed->value()};
}

void InferenceMeasureDialog::setSettings(const InferenceSettingsText& text) {
  m_lengths->setText(text.lengths);
  m_batches->setText(text.batches);
  m_generate->setValue(text.generate);
  m_decodeTimed->setValue(text.decodeTimed);
  check();
}

QString InferenceMeasureDialog::message() const { return m_message->text(); }

void InferenceMeasureDialog::check() {
  QString error;
  runtime::InferenceSweep sweep;
  m_valid = applyInferenceSettings(settings(), &sweep, &error);
  if (m_valid) {
    m_sweep = sweep;
    m_sweep.models = m_models.isEmpty() ? std::vector<std::string>{"model"} : std::vector<std::string>{};
    for (const QString& m : m_models) m_sweep.models.push_back(m.toStdString());
    const std::size_t points = runtime::inference_point_count(m_sweep);
    m_message->setStyleSheet(QString());
    m_message->setText(tr("%1 point(s): %2 model(s) x %3 L x %4 batch size(s)%5.")
                           .arg(points)
                           .arg(m_models.size())
                           .arg(sweep.seq_lens.size())
                           .arg(sweep.batches.size())
                           .arg(points < m_sweep.models.size() * sweep.seq_lens.size() * sweep.batches.size()
                                    ? tr(", leaving out batch x L above %1").arg(sweep.max_batch_tokens)
                                    : QString()));
  } else {
    m_message->setStyleSheet("color: #d55e00;");
    m_message->setText(error);
  }
  m_buttons->button(QDialogButtonBox::Ok)->setEnabled(m_valid && !m_models.isEmpty());
}

}  // namespace pha::gui
