#include "gui/lens/lens_attention_tab.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "widgets/csv_file.h"
#include "widgets/export_menu.h"
#include "widgets/matrix_heatmap.h"

namespace pha::gui {

namespace {
// Axis labels: short and visible (spaces and line breaks as marks).
QString axisToken(const std::string& t) {
  QString s = QString::fromStdString(t);
  s.replace(' ', QChar(0x2423));
  s.replace('\n', QChar(0x21B5));
  return s.size() > 8 ? s.left(7) + QChar(0x2026) : s;
}
}  // namespace

LensAttentionTab::LensAttentionTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Layer"), this));
  m_layer = new QComboBox(this);
  m_layer->setObjectName("lensAttentionLayer");
  row->addWidget(m_layer);
  row->addWidget(new QLabel(tr("Head"), this));
  m_head = new QSpinBox(this);
  m_head->setObjectName("lensAttentionHead");
  row->addWidget(m_head);
  row->addWidget(new QLabel(tr("Window"), this));
  m_window = new QSpinBox(this);
  m_window->setObjectName("lensAttentionWindow");
  m_window->setMinimum(1);
  row->addWidget(m_window);
  row->addWidget(new QLabel(tr("Tokens from"), this));
  m_first = new QSpinBox(this);
  m_first->setObjectName("lensAttentionFirst");
  m_first->setSingleStep(kShown / 2);
  m_first->setToolTip(tr("The first position shown; %1 positions are shown at a time").arg(kShown));
  row->addWidget(m_first);
  row->addStretch(1);
  m_heatmap = new widgets::MatrixHeatmap(this);
  m_heatmap->setObjectName("lensAttentionHeatmap");
  row->addWidget(widgets::makeExportButton(m_heatmap->plot(), "lens-attention",
                                           [this](const QString& p, QString* e) { return writeCsv(p, e); }, this));
  layout->addLayout(row);
  m_message = new QLabel(this);
  m_message->setObjectName("lensAttentionMessage");
  m_message->setWordWrap(true);
  layout->addWidget(m_message);
  m_heatmap->setScale(widgets::MatrixHeatmap::Scale::Sequential, 0.0, 1.0);
  m_heatmap->setColorLabel(tr("attention weight"));
  m_heatmap->setAxisLabels(tr("key (attended to)"), tr("query"));
  m_heatmap->setTickLabelRotation(90);
  m_heatmap->setToolTipProvider([this](int r, int c) {
    if (!m_map) return QString();
    const int q = m_first->value() + r, k = m_first->value() + c;
    return tr("query %1 «%2» -> key %3 «%4»: %5")
        .arg(q).arg(QString::fromStdString(m_map->tokens[static_cast<size_t>(q)]))
        .arg(k).arg(QString::fromStdString(m_map->tokens[static_cast<size_t>(k)]))
        .arg(m_heatmap->cellValue(r, c), 0, 'f', 3);
  });
  layout->addWidget(m_heatmap, 1);
  connect(m_layer, &QComboBox::activated, this, [this] { request(); });
  connect(m_head, &QSpinBox::editingFinished, this, [this] { request(); });
  connect(m_head, &QSpinBox::valueChanged, this, [this] { if (!m_head->hasFocus()) request(); });
  connect(m_window, &QSpinBox::valueChanged, this, [this] { if (!m_window->hasFocus()) request(); });
  connect(m_window, &QSpinBox::editingFinished, this, [this] { request(); });
  connect(m_first, &QSpinBox::valueChanged, this, [this] { refresh(); });
  clear(tr("Pick a run and press Run."));
}

void LensAttentionTab::setModel(const runtime::LensRunInfo& info, int windows) {
  m_heads = info.heads;
  QSignalBlocker b1(m_layer), b2(m_window), b3(m_head);
  m_layer->clear();
  for (size_t l = 0; l < info.heads.size(); ++l)
    if (info.heads[l] > 0) m_layer->addItem(tr("layer %1").arg(l), static_cast<int>(l));
  m_window->setRange(1, std::max(1, windows));
  m_window->setValue(1);
  m_head->setRange(0, m_layer->count() ? std::max(0, info.heads[static_cast<size_t>(m_layer->itemData(0).toInt())] - 1) : 0);
  m_head->setValue(0);
}

void LensAttentionTab::request() {
  if (m_layer->currentIndex() < 0) return;
  const int layer = m_layer->currentData().toInt();
  if (layer >= 0 && static_cast<size_t>(layer) < m_heads.size()) m_head->setMaximum(std::max(0, m_heads[layer] - 1));
  if (m_map && m_map->layer == layer && m_map->head == m_head->value() && m_window->property("shown").toInt() == m_window->value())
    return;
  m_window->setProperty("shown", m_window->value());
  m_message->setText(tr("Measuring layer %1, head %2, window %3...").arg(layer).arg(m_head->value()).arg(m_window->value()));
  emit attentionRequested(m_window->value() - 1, layer, m_head->value());
}

void LensAttentionTab::setMap(const runtime::AttentionMap& map) {
  m_map = map;
  m_window->setProperty("shown", m_window->value());
  QSignalBlocker block(m_first);
  m_first->setRange(0, std::max(0, map.T - kShown));
  refresh();
}

void LensAttentionTab::setError(const QString& error) {
  m_map.reset();
  m_message->setText(error);
  m_heatmap->clear(error);
}

void LensAttentionTab::clear(const QString& message) {
  m_map.reset();
  m_layer->clear();
  m_message->clear();
  m_heatmap->clear(message);
}

void LensAttentionTab::setRangeStart(int first) { m_first->setValue(first); }
QString LensAttentionTab::message() const { return m_heatmap->message().isEmpty() ? m_message->text() : m_heatmap->message(); }

void LensAttentionTab::refresh() {
  if (!m_map) return;
  const runtime::AttentionMap& m = *m_map;
  const int first = std::clamp(m_first->value(), 0, std::max(0, m.T - 1));
  const int n = std::min(kShown, m.T - first);
  std::vector<float> values(static_cast<size_t>(n) * n);
  for (int q = 0; q < n; ++q)
    for (int k = 0; k < n; ++k)
      values[static_cast<size_t>(q) * n + k] = m.weights[static_cast<size_t>(first + q) * m.T + first + k];
  QStringList names;
  for (int i = 0; i < n; ++i) names << axisToken(m.tokens[static_cast<size_t>(first + i)]);
  m_heatmap->setMatrix(n, n, std::move(values), names, names);
  m_message->setText(tr("Layer %1, head %2 of %3, window %4: positions %5-%6 of %7 (causal: each query row sums to 1 "
                        "over all earlier keys, including those left of the range)")
                         .arg(m.layer).arg(m.head).arg(m.heads).arg(m_window->value())
                         .arg(first).arg(first + n - 1).arg(m.T));
}

bool LensAttentionTab::writeCsv(const QString& path, QString* error) const {
  if (!m_map) {
    if (error) *error = tr("No attention map to export.");
    return false;
  }
  const runtime::AttentionMap& m = *m_map;
  return widgets::writeCsvFile(path, "layer,head,query,key,query_token,key_token,weight", [&](QTextStream& out) {
    for (int q = 0; q < m.T; ++q)
      for (int k = 0; k <= q; ++k)
        out << m.layer << ',' << m.head << ',' << q << ',' << k << ','
            << widgets::csvField(QString::fromStdString(m.tokens[static_cast<size_t>(q)])) << ','
            << widgets::csvField(QString::fromStdString(m.tokens[static_cast<size_t>(k)])) << ','
            << widgets::csvNumber(m.weights[static_cast<size_t>(q) * m.T + k]) << '\n';
  }, error);
}

}  // namespace pha::gui
