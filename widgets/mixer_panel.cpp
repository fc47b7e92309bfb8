#include "widgets/mixer_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>
#include <cmath>

#include "widgets/csv_file.h"
#include "widgets/lens_rows.h"
#include "widgets/mixer_heatmap.h"
#include "widgets/sandwich.h"

namespace pha::widgets {

MixerPanel::MixerPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_heatmap = new MixerHeatmap(this);
  layout->addWidget(m_heatmap, 1);
  auto* row = new QHBoxLayout;
  m_slider = new QSlider(Qt::Horizontal, this);
  m_slider->setObjectName("mixerStepSlider");
  m_slider->setEnabled(false);
  m_slider->setToolTip(tr("Scrub through the training steps to replay how the mixer weights moved"));
  m_stepLabel = new QLabel(this);
  m_stepLabel->setMinimumWidth(90);
  m_kind = new QComboBox(this);
  m_kind->setObjectName("mixerWeightKind");
  m_kind->addItems({tr("raw"), tr("effective")});
  m_kind->setToolTip(tr("raw: the softplus mixer weights w_b recorded while training; effective: each branch's share "
                        "of w_b x RMS of its normed output, measured by the Lens dock (Weights > Record) on a "
                        "checkpoint"));
  row->addWidget(m_kind);
  row->addWidget(m_slider, 1);
  row->addWidget(m_stepLabel);
  layout->addLayout(row);
  m_readout = new QLabel(this);
  m_readout->setObjectName("sandwichReadout");
  m_readout->setWordWrap(true);
  m_readout->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  // Room for the readout's lines up front, so that its changing text does not re-lay out the
  // heatmap (and redraw it) on every live frame.
  m_readout->setMinimumHeight(3 * m_readout->fontMetrics().lineSpacing() + 4);
  m_readout->setToolTip(
      tr("A branch dominates a layer only when its mixer weight is more than %1 above the other's (GSS against "
         "attention, on the fixed 0..1 scale); closer than that the layer is called near uniform. The second line "
         "gives the largest departure from uniform mixing (1/k in a layer that mixes k branches).")
          .arg(kDominanceMargin));
  layout->addWidget(m_readout);
  connect(m_slider, &QSlider::valueChanged, this, &MixerPanel::showFrame);
  connect(m_kind, &QComboBox::currentIndexChanged, this, [this](int i) { setShowEffective(i == 1); });
}

void MixerPanel::setEffectiveShares(std::optional<MixerFrame> shares) {
  m_effective = std::move(shares);
  if (m_showEffective) showEffective();
}

void MixerPanel::setShowEffective(bool effective) {
  m_showEffective = effective;
  if (m_kind->currentIndex() != (effective ? 1 : 0)) {
    QSignalBlocker block(m_kind);
    m_kind->setCurrentIndex(effective ? 1 : 0);
  }
  m_slider->setEnabled(!effective && !m_frames.empty());
  if (effective) showEffective();
  else if (m_current >= 0) showFrame(m_current);
  else if (!m_frames.empty()) showFrame(static_cast<int>(m_frames.size()) - 1);
  else m_heatmap->clear(tr("This run has no mixer snapshots."));
}

void MixerPanel::showEffective() {
  if (!m_effective) {
    m_heatmap->clear(effectiveNotMeasuredMessage());
    m_readout->clear();
    m_stepLabel->clear();
    return;
  }
  const MixerFrame& f = *m_effective;
  m_heatmap->setMatrix(f.layers, f.branches, f.weights);
  m_heatmap->setStep(f.step);
  m_stepLabel->setText(tr("effective, step %1").arg(f.step));
  const std::string sandwich = readSandwich(f.layers, f.branches, f.weights).summary;
  m_readout->setText(QString::fromStdString(sandwich) + "\n" + tr("effective shares (Lens): w_b x gain RMS, per layer"));
}

void MixerPanel::setFrames(std::vector<MixerFrame> frames) {
  m_frames = std::move(frames);
  m_current = -1;
  if (m_frames.empty()) {
    clear(tr("This run has no mixer snapshots."));
    return;
  }
  m_slider->setEnabled(!m_showEffective);
  QSignalBlocker block(m_slider);
  m_slider->setRange(0, static_cast<int>(m_frames.size()) - 1);
  m_slider->setValue(m_slider->maximum());
  showFrame(m_slider->maximum());
}

void MixerPanel::appendFrame(MixerFrame frame) {
  const bool following = m_frames.empty() || m_current == static_cast<int>(m_frames.size()) - 1;
  m_frames.push_back(std::move(frame));
  m_slider->setEnabled(!m_showEffective);
  QSignalBlocker block(m_slider);
  m_slider->setRange(0, static_cast<int>(m_frames.size()) - 1);
  if (following) {
    m_slider->setValue(m_slider->maximum());
    showFrame(m_slider->maximum());
  }
}

void MixerPanel::clear(const QString& message) {
  m_frames.clear();
  m_effective.reset();
  m_current = -1;
  m_slider->setEnabled(false);
  m_stepLabel->clear();
  m_readout->clear();
  m_heatmap->clear(message);
}

void MixerPanel::showFrame(int index) {
  if (index < 0 || index >= static_cast<int>(m_frames.size())) return;
  m_current = index;
  if (m_showEffective) return showEffective();  // the live frames wait behind the toggle
  const MixerFrame& f = m_frames[static_cast<size_t>(index)];
  m_heatmap->setMatrix(f.layers, f.branches, f.weights);
  m_heatmap->setStep(f.step);
  m_stepLabel->setText(tr("step %1").arg(f.step));
  const std::string sandwich = readSandwich(f.layers, f.branches, f.weights).summary;
  const std::string deviation = mixerDeviation(f.layers, f.branches, f.weights).summary;
  m_readout->setText(QString::fromStdString(sandwich + "\n" + deviation));
  if (m_slider->value() != index) {
    QSignalBlocker block(m_slider);
    m_slider->setValue(index);
  }
  emit frameShown(f.step);
}

QString MixerPanel::readout() const { return m_readout->text(); }

QString MixerPanel::readoutToolTip() const { return m_readout->toolTip(); }

qint64 MixerPanel::currentStep() const {
  return m_current >= 0 ? m_frames[static_cast<std::size_t>(m_current)].step : -1;
}

bool MixerPanel::writeCsv(const QString& path, QString* error) const {
  if (m_frames.empty()) {
    if (error) *error = tr("There are no mixer snapshots to export.");
    return false;
  }
  const QStringList names = MixerHeatmap::defaultBranchNames();
  return writeCsvFile(path, "layer,branch,step,weight", [this, &names](QTextStream& out) {
    for (const MixerFrame& f : m_frames)
      for (int l = 0; l < f.layers; ++l)
        for (int b = 0; b < f.branches; ++b) {
          const std::size_t i = static_cast<std::size_t>(l) * f.branches + b;
          out << l << ',' << (b < names.size() ? names[b] : QString::number(b)) << ',' << f.step << ','
              << csvNumber(i < f.weights.size() ? f.weights[i] : NAN) << '\n';
        }
  }, error);
}

}  // namespace pha::widgets
