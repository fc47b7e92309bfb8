#include "gui/lens/lens_weights_tab.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "widgets/csv_file.h"
#include "widgets/export_menu.h"
#include "widgets/mixer_heatmap.h"

namespace pha::gui {

namespace {
QString num(float v, int decimals = 3) { return std::isfinite(v) ? QString::number(v, 'f', decimals) : QStringLiteral("-"); }
}  // namespace

LensWeightsTab::LensWeightsTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Show"), this));
  m_kind = new QComboBox(this);
  m_kind->setObjectName("lensWeightKind");
  m_kind->addItems({tr("raw mixer weight w_b"), tr("effective share")});
  m_kind->setToolTip(tr("raw: the softplus mixer weight w_b; effective share: w_b x r_b (r_b the RMS of the branch's "
                        "normed output, its gain's effect) over the layer's sum: what each branch really adds"));
  row->addWidget(m_kind);
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  row->addWidget(m_summary, 1);
  m_heatmap = new widgets::MixerHeatmap(this);
  m_heatmap->setObjectName("lensWeightsHeatmap");
  row->addWidget(widgets::makeExportButton(m_heatmap->plot(), "lens-weights",
                                           [this](const QString& p, QString* e) { return writeCsv(p, e); }, this));
  layout->addLayout(row);
  auto* split = new QSplitter(Qt::Horizontal, this);  // the dock is wide and short
  split->addWidget(m_heatmap);
  m_table = new QTableWidget(0, 6, split);
  m_table->setObjectName("lensWeightsTable");
  m_table->setHorizontalHeaderLabels({tr("layer"), tr("branch"), tr("raw w"), tr("gain RMS"), tr("effective"), tr("share")});
  m_table->verticalHeader()->hide();
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 4);
  split->addWidget(m_table);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  m_heatmap->setMinimumWidth(240);
  split->setChildrenCollapsible(false);
  layout->addWidget(split, 1);
  connect(m_kind, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  clear(tr("Pick a run and press Run."));
}

void LensWeightsTab::setWeights(const runtime::EffectiveWeights& w) {
  m_weights = w;
  m_table->setRowCount(0);
  const QStringList names = widgets::MixerHeatmap::defaultBranchNames();
  for (int l = 0; l < w.layers; ++l)
    for (int b = 0; b < 3; ++b) {
      if (!std::isfinite(w.effective.at(l, b)) && !std::isfinite(w.raw.at(l, b))) continue;
      const int r = m_table->rowCount();
      m_table->insertRow(r);
      const QStringList cells = {QString::number(l), names[b], num(w.raw.at(l, b)), num(w.gain_rms.at(l, b)),
                                 num(w.effective.at(l, b)), num(w.share.at(l, b))};
      for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        item->setTextAlignment(c >= 2 ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignLeft | Qt::AlignVCenter);
        m_table->setItem(r, c, item);
      }
    }
  m_summary->setText(tr("%1 tokens, %2 s").arg(w.tokens).arg(w.seconds, 0, 'f', 2));
  m_summary->setToolTip(QString::fromStdString(w.source));
  refresh();
}

void LensWeightsTab::clear(const QString& message) {
  m_weights.reset();
  m_table->setRowCount(0);
  m_summary->clear();
  m_heatmap->clear(message);
}

void LensWeightsTab::setShowEffective(bool effective) { m_kind->setCurrentIndex(effective ? 1 : 0); }
bool LensWeightsTab::showsEffective() const { return m_kind->currentIndex() == 1; }
QString LensWeightsTab::summary() const { return m_summary->text(); }

void LensWeightsTab::refresh() {
  if (!m_weights) return;
  const model::FloatMatrix& m = showsEffective() ? m_weights->share : m_weights->raw;
  m_heatmap->setMatrix(m.rows, m.cols, m.values);
  m_heatmap->setStep(-1);
  if (!showsEffective() && m_heatmap->layers() == 0)
    m_heatmap->clear(tr("No layer of this model has a mixer (single-branch sublayers): no raw weights. The effective "
                        "share still says what each branch adds."));
}

bool LensWeightsTab::writeCsv(const QString& path, QString* error) const {
  if (!m_weights) {
    if (error) *error = tr("Nothing measured yet: press Run.");
    return false;
  }
  const runtime::EffectiveWeights& w = *m_weights;
  return widgets::writeCsvFile(path, "layer,branch,raw_w,gain_rms,effective,share,tokens,source", [&](QTextStream& out) {
    for (int l = 0; l < w.layers; ++l)
      for (int b = 0; b < 3; ++b)
        out << l << ',' << (b == 0 ? "gss" : b == 1 ? "attn" : "ffn") << ',' << widgets::csvNumber(w.raw.at(l, b)) << ','
            << widgets::csvNumber(w.gain_rms.at(l, b)) << ',' << widgets::csvNumber(w.effective.at(l, b)) << ','
            << widgets::csvNumber(w.share.at(l, b)) << ',' << w.tokens << ','
            << widgets::csvField(QString::fromStdString(w.source)) << '\n';
  }, error);
}

}  // namespace pha::gui
