#include "gui/config/config_summary.h"

#include <QFont>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QSignalBlocker>
#include <QToolButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "widgets/number_format.h"

namespace pha::gui {

namespace {

QLabel* cell(const QString& text, QWidget* parent, Qt::Alignment align) {
  auto* label = new QLabel(text, parent);
  label->setAlignment(align | Qt::AlignVCenter);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return label;
}

}  // namespace

QLayout* ConfigSummary::makeHeader() {
  auto* header = new QHBoxLayout;
  m_toggle = new QToolButton(this);
  m_toggle->setObjectName("summaryToggle");
  m_toggle->setText(tr("Size and cost"));
  m_toggle->setCheckable(true);
  m_toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  m_toggle->setAutoRaise(true);
  m_toggle->setToolTip(tr("Show or hide parameters, FLOPs per token and memory per branch"));
  QFont bold = m_toggle->font();
  bold.setBold(true);
  m_toggle->setFont(bold);
  m_headline = new QLabel(this);
  m_headline->setObjectName("summaryHeadline");
  m_headline->setWordWrap(true);  // a narrow dock must not be widened by it
  m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_headline->setToolTip(tr("Parameters (counted from the config), FLOPs per token of a forward pass at T, and the "
                            "training memory estimate for a batch of B × T in fp32 (T and B: open the table)"));
  header->addWidget(m_toggle);
  header->addWidget(m_headline, 1);
  return header;
}

QLayout* ConfigSummary::makeInputs() {
  auto* inputs = new QHBoxLayout;
  m_seqLen = new QSpinBox(this);
  m_seqLen->setObjectName("summarySeqLen");
  m_seqLen->setRange(1, 1 << 24);
  m_seqLen->setToolTip(tr("Sequence length T for the FLOP and memory figures (follows the config's context)"));
  m_batch = new QSpinBox(this);
  m_batch->setObjectName("summaryBatch");
  m_batch->setRange(1, 1 << 16);
  m_batch->setValue(pha::model::kReferenceBatch);  // the figure pha model and Compare show
  m_batch->setToolTip(tr("Batch size B for the memory estimate (and the GSS kernel work a batch shares)"));
  m_seqLen->setMaximumWidth(160);
  m_batch->setMaximumWidth(160);
  inputs->addWidget(new QLabel(tr("T"), this));
  inputs->addWidget(m_seqLen, 1);
  inputs->addSpacing(8);
  inputs->addWidget(new QLabel(tr("Batch"), this));
  inputs->addWidget(m_batch, 1);
  inputs->addStretch(1);
  return inputs;
}

QLayout* ConfigSummary::makeGrid() {
  auto* grid = new QGridLayout;
  grid->setHorizontalSpacing(10);
  grid->setVerticalSpacing(2);
  const QString headers[ColumnCount] = {tr("Parameters"), tr("Forward"), tr("Train step")};
  const QString headerTips[ColumnCount] = {tr("Trainable parameters"), tr("FLOPs per token, forward pass"),
                                           tr("FLOPs per token, forward + backward")};
  for (int c = 0; c < ColumnCount; ++c) {
    QLabel* h = cell(headers[c], this, Qt::AlignRight);
    h->setToolTip(headerTips[c]);
    QFont f = h->font();
    f.setBold(true);
    h->setFont(f);
    grid->addWidget(h, 0, c + 1);
  }
  const QString rows[RowCount] = {tr("GSS"), tr("Attention"), tr("FFN"), tr("Embedding / head"),
                                  tr("Norms + mixer"), tr("Total")};
  for (int r = 0; r < RowCount; ++r) {
    QLabel* name = cell(rows[r], this, Qt::AlignLeft);
    grid->addWidget(name, r + 1, 0);
    for (int c = 0; c < ColumnCount; ++c) {
      m_cells[r][c] = cell(QStringLiteral("—"), this, Qt::AlignRight);
      m_cells[r][c]->setObjectName(QStringLiteral("summary.%1.%2").arg(r).arg(c));
      grid->addWidget(m_cells[r][c], r + 1, c + 1);
    }
    if (r == Total) {
      for (QLabel* l : {name, m_cells[r][0], m_cells[r][1], m_cells[r][2]}) {
        QFont f = l->font();
        f.setBold(true);
        l->setFont(f);
      }
    }
  }
  // Compact when wide (the empty last column takes the slack), names first when narrow.
  grid->setColumnStretch(ColumnCount + 1, 1);
  grid->setColumnMinimumWidth(0, 110);
  return grid;
}

ConfigSummary::ConfigSummary(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  // A headline with the totals is always shown; the per-branch table folds away so that the
  // form above keeps the dock's height (the choice is remembered).
  layout->addLayout(makeHeader());
  m_details = new QWidget(this);
  m_details->setObjectName("summaryDetails");
  auto* detailsLayout = new QVBoxLayout(m_details);
  detailsLayout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_details);

  detailsLayout->addLayout(makeInputs());

  detailsLayout->addLayout(makeGrid());

  m_memoryLabel = new QLabel(this);
  m_memoryLabel->setObjectName("summaryMemory");
  m_memoryLabel->setWordWrap(true);
  m_memoryLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  detailsLayout->addWidget(m_memoryLabel);

  m_staleLabel = new QLabel(tr("The edit above is invalid: these figures are for the last valid configuration."),
                            this);
  m_staleLabel->setWordWrap(true);
  QFont italic = m_staleLabel->font();
  italic.setItalic(true);
  m_staleLabel->setFont(italic);
  m_staleLabel->hide();
  layout->addWidget(m_staleLabel);

  connect(m_seqLen, &QSpinBox::valueChanged, this, &ConfigSummary::recompute);
  connect(m_batch, &QSpinBox::valueChanged, this, &ConfigSummary::recompute);
  connect(m_toggle, &QToolButton::toggled, this, [this](bool on) {
    setExpanded(on);
    QSettings().setValue(QStringLiteral("config/summaryExpanded"), on);
  });
  setExpanded(QSettings().value(QStringLiteral("config/summaryExpanded"), false).toBool());
}

void ConfigSummary::setExpanded(bool on) {
  if (m_toggle->isChecked() != on) {
    QSignalBlocker block(m_toggle);
    m_toggle->setChecked(on);
  }
  m_toggle->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
  m_details->setVisible(on);
}

bool ConfigSummary::isExpanded() const { return m_toggle->isChecked(); }

QString ConfigSummary::headlineText() const { return m_headline->text(); }

void ConfigSummary::setConfig(const pha::model::ModelConfig& config, bool stale) {
  // T follows the config's context when the context changes; otherwise the user's T stays.
  const bool contextChanged = !m_hasConfig || config.context != m_config.context;
  m_config = config;
  m_hasConfig = true;
  m_staleLabel->setVisible(stale);
  if (contextChanged && m_seqLen->value() != config.context) {
    m_seqLen->setValue(config.context);  // recomputes through valueChanged
  } else {
    recompute();
  }
}

int ConfigSummary::seqLen() const { return m_seqLen->value(); }
void ConfigSummary::setSeqLen(int t) { m_seqLen->setValue(t); }
int ConfigSummary::batch() const { return m_batch->value(); }
void ConfigSummary::setBatch(int b) { m_batch->setValue(b); }

QString ConfigSummary::cellText(Row row, Column column) const { return m_cells[row][column]->text(); }
QString ConfigSummary::memoryText() const { return m_memoryLabel->text(); }

void ConfigSummary::recompute() {
  if (!m_hasConfig) return;
  using namespace pha::model;
  const int t = seqLen(), b = batch();
  m_params = count_parameters(m_config);
  m_flops = estimate_flops(m_config, t, b);
  m_memory = estimate_memory(m_config, b, t, /*training=*/true);
  const MemoryEstimate inference = estimate_memory(m_config, b, t, /*training=*/false);

  const Flops& fw = m_flops.forward;
  const Flops& step = m_flops.training;
  const double params[RowCount] = {double(m_params.branches.gss),
                                   double(m_params.branches.attention),
                                   double(m_params.branches.ffn),
                                   double(m_params.embedding + m_params.head),
                                   double(m_params.norms + m_params.mixer + m_params.final_norm),
                                   double(m_params.total)};
  const double forward[RowCount] = {fw.gss(), fw.attention(), fw.ffn, fw.head, 0.0, fw.total()};
  const double training[RowCount] = {step.gss(), step.attention(), step.ffn, step.head, 0.0, step.total()};
  for (int r = 0; r < RowCount; ++r) {
    m_cells[r][Params]->setText(widgets::formatCount(params[r]));
    // Norms and the mixer are elementwise work flops.h does not count.
    m_cells[r][Forward]->setText(r == NormsMixer ? QStringLiteral("—") : widgets::formatFlops(forward[r]));
    m_cells[r][Training]->setText(r == NormsMixer ? QStringLiteral("—") : widgets::formatFlops(training[r]));
  }
  m_cells[Total][Params]->setToolTip(tr("%1 parameters, %2 without embedding and head")
                                         .arg(m_params.total)
                                         .arg(widgets::formatCount(double(m_params.non_embedding))));
  m_cells[Embedding][Forward]->setToolTip(tr("The output head's matrix product (2 · d_model · vocabulary)"));

  m_memoryLabel->setText(tr("Memory for B × T = %1 × %2 (fp32): training %3, inference %4")
                             .arg(b)
                             .arg(t)
                             .arg(widgets::formatBytes(double(m_memory.total())), widgets::formatBytes(double(inference.total()))));
  m_headline->setText(tr("%1 params · %2/token · %3 to train")
                          .arg(widgets::formatCount(double(m_params.total)), widgets::formatFlops(fw.total()),
                               widgets::formatBytes(double(m_memory.total()))));
  m_memoryLabel->setToolTip(tr("Training: weights %1, gradients %2, AdamW state %3, activations %4, logits %5")
                                .arg(widgets::formatBytes(double(m_memory.weights)), widgets::formatBytes(double(m_memory.gradients)),
                                     widgets::formatBytes(double(m_memory.optimizer)),
                                     widgets::formatBytes(double(m_memory.activations)),
                                     widgets::formatBytes(double(m_memory.logits))));
  emit recomputed();
}

}  // namespace pha::gui
