#include "gui/compare/parallel_coords_tab.h"

#include "gui/compare/parallel_coords.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSvgGenerator>
#include <QTextStream>
#include <QVBoxLayout>

#include "gui/compare/metrics_tab.h"  // orderedMetricKeys: the metric list in the Metrics table's order
#include "widgets/parallel_coords_view.h"
#include "widgets/plot_export.h"  // widgets::csvField

#include "widgets/csv_file.h"  // widgets::writeTextFile, the window's one file writer

namespace pha::gui {

ParallelCoordsTab::ParallelCoordsTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  // Two rows of controls, so the tab asks no more width of the Compare dock than its other tabs.
  auto* top = new QHBoxLayout;
  auto* metricLabel = new QLabel(tr("Colour by"), this);
  top->addWidget(metricLabel);
  m_metric = new QComboBox(this);
  m_metric->setObjectName("compareParallelMetric");
  m_metric->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_metric->setMinimumWidth(110);  // a long metric name widens it when there is room, never the dock
  m_metric->setToolTip(tr("The metric whose final value (at each run's last step, as in the Metrics tab) is the last "
                          "axis and colours the lines"));
  metricLabel->setBuddy(m_metric);
  metricLabel->setToolTip(m_metric->toolTip());
  top->addWidget(m_metric);
  m_merge = new QCheckBox(tr("Merge linked settings"), this);
  m_merge->setObjectName("compareParallelMerge");
  m_merge->setChecked(true);
  m_merge->setToolTip(tr("Keys whose values split the runs into the same sets (every setting that tells one model "
                         "family from another) share one axis; hover its title for the keys it stands for"));
  top->addWidget(m_merge);
  top->addStretch(1);
  layout->addLayout(top);

  auto* actions = new QHBoxLayout;
  m_left = new QPushButton(tr("Move left"), this);
  m_right = new QPushButton(tr("Move right"), this);
  m_left->setObjectName("compareParallelLeft");
  m_right->setObjectName("compareParallelRight");
  m_left->setToolTip(tr("Moves the chosen axis (click its title) one place left; dragging a title moves it too"));
  m_right->setToolTip(tr("Moves the chosen axis (click its title) one place right; dragging a title moves it too"));
  m_clear = new QPushButton(tr("Clear brushes"), this);
  m_clear->setObjectName("compareParallelClear");
  m_clear->setToolTip(tr("Removes every axis's brush (a double-click on an axis removes its own)"));
  auto* exportButton = new QPushButton(tr("Export…"), this);
  exportButton->setObjectName("compareParallelExport");
  exportButton->setToolTip(tr("PNG or SVG of the view, or CSV of each run's values on the axes"));
  actions->addWidget(m_left);
  actions->addWidget(m_right);
  actions->addWidget(m_clear);
  actions->addStretch(1);
  actions->addWidget(exportButton);
  layout->addLayout(actions);

  m_view = new widgets::ParallelCoordsView(this);
  m_scroll = new QScrollArea(this);
  m_scroll->setWidgetResizable(true);  // fills the tab; scrolls when the axes need more width
  m_scroll->setFrameShape(QFrame::NoFrame);
  m_scroll->setWidget(m_view);
  layout->addWidget(m_scroll, 1);
  m_status = new QLabel(this);
  m_status->setObjectName("compareParallelStatus");
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_status);

  connect(m_metric, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
  connect(m_merge, &QCheckBox::toggled, this, [this] { rebuild(); });
  connect(m_left, &QPushButton::clicked, this, [this] { m_view->moveAxis(m_view->currentAxis(), m_view->currentAxis() - 1); });
  connect(m_right, &QPushButton::clicked, this, [this] { m_view->moveAxis(m_view->currentAxis(), m_view->currentAxis() + 1); });
  connect(m_clear, &QPushButton::clicked, m_view, &widgets::ParallelCoordsView::clearBrushes);
  connect(m_view, &widgets::ParallelCoordsView::currentAxisChanged, this, [this] { updateButtons(); });
  connect(m_view, &widgets::ParallelCoordsView::brushChanged, this, [this] {
    updateStatus();
    updateButtons();
    emit runsBrushed(brushedRuns());
  });
  connect(exportButton, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export parallel coordinates"), "compare-parallel.png",
                                                      tr("PNG image (*.png);;SVG image (*.svg);;CSV data (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportTo(path, &error)) QMessageBox::warning(this, tr("Export failed"), error);
  });
  setRuns(nullptr);
}

void ParallelCoordsTab::setRuns(std::shared_ptr<const LoadedRuns> runs) {
  m_runs = std::move(runs);
  const QString previous = m_metric->currentText();
  const QStringList keys = m_runs ? orderedMetricKeys(unionOfKeys(*m_runs)) : QStringList();
  {
    QSignalBlocker block(m_metric);
    m_metric->clear();
    m_metric->addItems(keys);
    const QString chosen = keys.contains(previous) ? previous : defaultParallelMetric(keys);
    m_metric->setCurrentIndex(std::max(0, int(keys.indexOf(chosen))));
  }
  m_metric->setEnabled(!keys.isEmpty());
  rebuild();
}

void ParallelCoordsTab::setMetric(const QString& key) {
  const int i = m_metric->findText(key);
  if (i >= 0) m_metric->setCurrentIndex(i);
}

void ParallelCoordsTab::setMergeTogether(bool merge) { m_merge->setChecked(merge); }

bool ParallelCoordsTab::mergeTogether() const { return m_merge->isChecked(); }

QString ParallelCoordsTab::metric() const { return m_metric->currentText(); }

QStringList ParallelCoordsTab::metricChoices() const {
  QStringList out;
  for (int i = 0; i < m_metric->count(); ++i) out << m_metric->itemText(i);
  return out;
}

void ParallelCoordsTab::rebuild() {
  const LoadedRuns empty;
  m_view->setData(buildParallelData(m_runs ? *m_runs : empty, m_metric->currentText(), m_merge->isChecked()));
  updateStatus();
  updateButtons();
}

QString ParallelCoordsTab::emptyMessage() const { return m_view->data().emptyMessage; }

QString ParallelCoordsTab::status() const { return m_status->text(); }

void ParallelCoordsTab::updateButtons() {
  const int a = m_view->currentAxis();
  m_left->setEnabled(a > 0);
  m_right->setEnabled(a >= 0 && a + 1 < m_view->axisCount());
  m_clear->setEnabled(m_view->brushCount() > 0);
}

void ParallelCoordsTab::updateStatus() {
  const ParallelData& d = m_view->data();
  QStringList parts;
  if (d.emptyMessage.isEmpty()) {
    const qsizetype runs = d.refs.size();
    int settings = 0, configAxes = 0;
    for (const auto& a : d.axes)
      if (!a.metric) {
        ++configAxes;
        settings += 1 + int(a.followers.size());
      }
    if (m_view->brushCount() == 0)
      parts << tr("%1 runs, %2 settings that differ%3. Drag on an axis to brush a range (double-click: clear); drag a "
                  "title to move its axis; hover a line for its values.")
                   .arg(runs)
                   .arg(settings)
                   .arg(settings > configAxes ? tr(" on %1 axes").arg(configAxes) : QString());
    else
      parts << tr("%1 of %2 runs inside %3 (the others are faded; a double-click on an axis clears its brush).")
                   .arg(brushedRuns().size())
                   .arg(runs)
                   .arg(m_view->brushCount() == 1 ? tr("the brush") : tr("all %1 brushes").arg(m_view->brushCount()));
    if (d.metricKey.isEmpty())
      parts << tr("No metric axis: these runs recorded no metric%1.")
                   .arg(m_metric->count() ? tr(" named %1").arg(m_metric->currentText()) : QString());
  }
  if (!d.skipped.isEmpty()) parts << d.skipped;
  m_status->setText(parts.join(' '));
}

QList<RunRef> ParallelCoordsTab::brushedRuns() const {
  QList<RunRef> out;
  if (m_view->brushCount() == 0) return out;
  const std::vector<bool> kept = m_view->keptRuns();
  for (std::size_t i = 0; i < kept.size(); ++i)
    if (kept[i]) out << m_view->data().refs[qsizetype(i)];
  return out;
}

int ParallelCoordsTab::brushCount() const { return m_view->brushCount(); }

QList<qint64> ParallelCoordsTab::brushedRunIds() const {
  QList<qint64> ids;
  for (const RunRef& r : brushedRuns()) ids << r.runId;
  return ids;
}

bool ParallelCoordsTab::exportTo(const QString& path, QString* error) const {
  const QString ext = QFileInfo(path).suffix().toLower();
  const QSize size = m_view->size().expandedTo(m_view->minimumSizeHint());
  if (ext == QLatin1String("csv")) return writeCsv(path, error);
  if (ext == QLatin1String("svg")) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    QPainter p;
    if (!p.begin(&svg)) {
      if (error) *error = tr("Cannot write %1").arg(path);
      return false;
    }
    m_view->paintInto(p, size);
    return true;
  }
  if (ext != QLatin1String("png")) {
    if (error) *error = tr("Unknown format .%1: use .png, .svg or .csv").arg(ext);
    return false;
  }
  QImage image(size * 2, QImage::Format_ARGB32);  // twice the pixels: as the other plots' 192 DPI
  image.setDevicePixelRatio(2.0);
  image.setDotsPerMeterX(7559);  // 192 DPI
  image.setDotsPerMeterY(7559);
  {
    QPainter p(&image);
    m_view->paintInto(p, size);
  }
  if (!image.save(path)) {
    if (error) *error = tr("Cannot write %1").arg(path);
    return false;
  }
  return true;
}

bool ParallelCoordsTab::writeCsv(const QString& path, QString* error) const {
  QString text;
  const ParallelData& d = m_view->data();
  QTextStream out(&text);
  out << "run,store,run_id,brushed";
  for (const auto& a : d.axes) {
    out << ',' << widgets::csvField(a.key);
    for (const QString& f : a.followers) out << ',' << widgets::csvField(f);  // merged keys keep their columns
  }
  out << '\n';
  const std::vector<bool> kept = m_view->keptRuns();
  for (qsizetype r = 0; r < d.refs.size(); ++r) {
    out << widgets::csvField(d.labels[r]) << ',' << widgets::csvField(d.refs[r].storePath) << ',' << d.refs[r].runId << ','
        << (kept[std::size_t(r)] ? 1 : 0);
    for (const auto& a : d.axes) {
      const double v = a.values[std::size_t(r)];
      const bool number = a.scale != AxisScale::Categorical && std::isfinite(v);
      out << ',' << widgets::csvField(number ? QString::number(v, 'g', QLocale::FloatingPointShortest) : a.texts[std::size_t(r)]);
      for (const auto& texts : a.followerTexts) out << ',' << widgets::csvField(texts[std::size_t(r)]);
    }
    out << '\n';
  }
  out.flush();
  return widgets::writeTextFile(path, text, error);
}

}  // namespace pha::gui
