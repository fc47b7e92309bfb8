#include "widgets/inference_panel.h"

#include <cmath>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <map>
#include <qcustomplot.h>
#include <set>

#include "widgets/export_menu.h"
#include "widgets/inference_memory_chart.h"
#include "widgets/inference_rows.h"
#include "widgets/plot_export.h"
#include "widgets/plot_panel.h"
#include "widgets/series_colors.h"

namespace pha::widgets {

namespace {

// A table cell that sorts by its number, not its text ("12.5" after "9.8").
class NumberItem : public QTableWidgetItem {
 public:
  NumberItem(const QString& text, double value) : QTableWidgetItem(text) { setData(Qt::UserRole, value); }
  bool operator<(const QTableWidgetItem& other) const override {
    return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
  }
};

QString fixed(double v, int decimals) { return QString::number(v, 'f', decimals); }

// ms with three significant figures at least: 0.412, 4.12, 41.2, 412
// Three significant digits, the decimals chosen after rounding: 0.9996 reads "1.00" beside 1.0004's
// "1.00" (choosing them before gave "1.000" beside "1.00").
QString msText(double v) {
  const auto at = [v](int decimals) { return std::round(std::abs(v) * std::pow(10.0, decimals)) / std::pow(10.0, decimals); };
  const int decimals = at(1) >= 100 ? 0 : at(2) >= 10 ? 1 : at(3) >= 1 ? 2 : 3;
  return fixed(v, decimals);
}

bool ok(const store::InferencePointResult& p) { return p.error.empty(); }


// Pen style per batch size: the smallest measured solid, the next dashed, further ones dotted.
Qt::PenStyle batchStyle(const std::set<std::int64_t>& batches, std::int64_t batch) {
  const auto i = std::distance(batches.begin(), batches.find(batch));
  return i == 0 ? Qt::SolidLine : i == 1 ? Qt::DashLine : Qt::DotLine;
}

// The training contexts as dashed verticals, each labelled at the top of the plot.
void markContexts(QCustomPlot* plot, const std::set<int>& contexts) {
  for (int ctx : contexts) {
    auto* line = new QCPItemStraightLine(plot);
    line->point1->setCoords(ctx, 0);
    line->point2->setCoords(ctx, 1);
    line->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashLine));
    auto* label = new QCPItemText(plot);
    label->position->setTypeX(QCPItemPosition::ptPlotCoords);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(ctx, 0.0);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->setPadding(QMargins(3, 2, 0, 0));
    label->setFont(QFont(plot->font().family(), 8));
    label->setColor(QColor(90, 90, 90));
    label->setText(QObject::tr("training context %1").arg(ctx));
  }
}

}  // namespace

InferencePanel::InferencePanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  buildToolRow();
  layout->addLayout(m_toolRow);
  m_content = new QSplitter(Qt::Vertical, this);
  m_content->setChildrenCollapsible(false);
  buildPlots();
  buildTable();
  m_content->setStretchFactor(0, 3);  // the plots get most of the height, the table the rest
  m_content->setStretchFactor(1, 2);
  layout->addWidget(m_content, 1);
  m_empty = new QLabel(this);
  m_empty->setObjectName("inferenceEmpty");
  m_empty->setWordWrap(true);
  m_empty->setAlignment(Qt::AlignCenter);
  layout->addWidget(m_empty, 1);
  m_slope = new QLabel(this);
  m_slope->setObjectName("inferenceSlope");
  m_slope->setWordWrap(true);
  m_slope->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_slope);
  m_check = new QLabel(this);
  m_check->setObjectName("inferenceCheck");
  m_check->setWordWrap(true);
  layout->addWidget(m_check);
  connect(m_prefillMetric, &QComboBox::currentIndexChanged, this, [this] { drawCurves(); });
  connect(m_memoryPoint, &QComboBox::currentIndexChanged, this, [this] { drawMemory(); });
  // A point the user picked is kept across reloads; the default follows the data.
  connect(m_memoryPoint, &QComboBox::activated, this, [this] { m_memoryPicked = true; });
  m_emptyMessage = tr("No inference measurements yet: press Measure... (or run pha bench inference --project DIR).");
  setRuns({});
}

void InferencePanel::buildToolRow() {
  m_toolRow = new QHBoxLayout;
  m_toolRow->addStretch(1);
  m_toolRow->addWidget(new QLabel(tr("Prefill:"), this));
  m_prefillMetric = new QComboBox(this);
  m_prefillMetric->setObjectName("inferencePrefillMetric");
  m_prefillMetric->addItem(tr("tokens / s"));
  m_prefillMetric->addItem(tr("time to first token"));
  m_prefillMetric->setToolTip(tr("What the middle plot shows against L: prefill throughput (batch x L / TTFT) or the "
                                 "time to first token itself"));
  m_toolRow->addWidget(m_prefillMetric);
  m_toolRow->addWidget(new QLabel(tr("Memory at:"), this));
  m_memoryPoint = new QComboBox(this);
  m_memoryPoint->setObjectName("inferenceMemoryPoint");
  m_memoryPoint->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_memoryPoint->setToolTip(tr("The prompt length L and batch size whose memory split the bars show"));
  m_toolRow->addWidget(m_memoryPoint);
}

// The legend row over the decode, prefill and memory plots, side by side.
void InferencePanel::buildPlots() {
  auto* top = new QWidget(m_content);
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  topLayout->setSpacing(2);
  // One legend for the three plots, above them: three legends under narrow plots cut the
  // models' names ("transformerpp-"). The plots keep their own for exported images.
  m_legend = new QLabel(top);
  m_legend->setObjectName("inferenceLegend");
  m_legend->setWordWrap(true);
  topLayout->addWidget(m_legend);
  auto* plots = new QSplitter(Qt::Horizontal, top);
  plots->setChildrenCollapsible(false);
  topLayout->addWidget(plots, 1);
  m_decode = new PlotPanel(tr("prompt length L"), tr("decode ms/token"), plots);
  m_decode->setObjectName("inferenceDecodePlot");
  m_prefill = new PlotPanel(tr("prompt length L"), tr("prefill tok/s"), plots);
  m_prefill->setObjectName("inferencePrefillPlot");
  m_memory = new InferenceMemoryChart(plots);
  m_memory->setObjectName("inferenceMemoryChart");
  for (PlotPanel* p : {m_decode, m_prefill}) {
    p->setLogX(true);
    p->plot()->legend->setFont(QFont(font().family(), 8));
  }
  for (QWidget* w : {static_cast<QWidget*>(m_decode), static_cast<QWidget*>(m_prefill), static_cast<QWidget*>(m_memory)})
    w->setMinimumSize(150, 150);
  plots->setSizes({1000, 1000, 1000});
  const CsvWriter csv = [this](const QString& path, QString* error) { return exportCsv(path, error); };
  installExportMenu(m_decode->plot(), "inference-decode", csv);
  installExportMenu(m_prefill->plot(), "inference-prefill", csv);
  installExportMenu(m_memory->plot(), "inference-memory", csv);

}

void InferencePanel::buildTable() {
  m_table = new QTableWidget(m_content);
  m_table->setObjectName("inferenceTable");
  m_table->setColumnCount(ColumnCount);
  // Two-line headers: 14 columns fit a dock of ~850 px without a horizontal scroll bar.
  m_table->setHorizontalHeaderLabels({tr("Model"), tr("L"), tr("L/ctx"), tr("B"), tr("TTFT\nms"),
                                      tr("prefill\ntok/s"), tr("decode\nms/tok"), tr("decode\ntok/s"),
                                      tr("e2e\ns"), tr("weights\nMiB"), tr("KV\nMiB"), tr("GSS\nMiB"),
                                      tr("rest\nMiB"), tr("peak\nMiB")});
  const QStringList tips = {
      tr("The model measured (its newest inference run)"),
      tr("Prompt length: tokens in before the first token out; decode is timed at depth L"),
      tr("L against the model's training context (the row at the context reads \"1x (ctx)\" in bold)"),
      tr("Batch: sequences decoded at once"),
      tr("Time to first token: the prefill of L tokens and the first token out (greedy)"),
      tr("batch x L / TTFT"),
      tr("Median decode step at depth L (each step advances every sequence)"),
      tr("batch x 1000 / decode ms per token"),
      tr("End to end: L in, the run's generate tokens out"),
      tr("The parameters' bytes"),
      tr("The KV caches as allocated for L + generate tokens"),
      tr("The GSS recurrent state as allocated"),
      tr("Peak - baseline - weights - KV - GSS state: the prefill's activations, workspace, allocator slack"),
      tr("Peak resident memory (VmHWM) of the point's fresh worker process, baseline included")};
  for (int c = 0; c < ColumnCount; ++c) m_table->horizontalHeaderItem(c)->setToolTip(tips[c]);
  // The model's name whole, the figures sharing the rest: fits the dock without a horizontal
  // scroll bar down to ~800 px (sorting by contents reserved space for a sort arrow in each).
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  m_table->horizontalHeader()->setSectionResizeMode(Model, QHeaderView::ResizeToContents);
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setAlternatingRowColors(true);
}

void InferencePanel::setEmptyMessage(const QString& message) {
  m_emptyMessage = message;
  m_empty->setText(message);
}

std::vector<store::InferencePointResult> InferencePanel::points() const {
  std::vector<store::InferencePointResult> out;
  for (const auto& r : m_runs) out.insert(out.end(), r.points.begin(), r.points.end());
  return out;
}

void InferencePanel::setRuns(std::vector<store::ModelInference> runs) {
  m_runs = std::move(runs);
  redraw();
}

void InferencePanel::redraw() {
  const bool empty = points().empty();
  m_content->setVisible(!empty);
  m_empty->setVisible(empty);
  m_empty->setText(m_emptyMessage);
  fillMemoryChoices();
  drawCurves();
  drawMemory();
  fillTable();
  const auto all = points();
  m_slope->setText(slopeSummary(all));
  m_slope->setVisible(!m_slope->text().isEmpty());
  m_check->setText(formulaSummary(all));
  m_check->setVisible(!m_check->text().isEmpty());
  QStringList methods;
  for (const auto& p : all)
    if (ok(p) && !p.method.empty() && !methods.contains(QString::fromStdString(p.method)))
      methods << QString::fromStdString(p.method);
  m_slope->setToolTip(methods.isEmpty() ? QString() : tr("Method: %1").arg(methods.join("\n")));
}

// Both line plots from one pass, so that their series, colours and styles agree.
void InferencePanel::drawCurves() {
  const bool ttft = m_prefillMetric->currentIndex() == 1;
  // Throughput from 0 on a linear axis; the time to first token grows ~L^2: log.
  m_prefill->setLogY(ttft);
  m_prefill->plot()->yAxis->setLabel(ttft ? tr("TTFT ms") : tr("prefill tok/s"));
  std::set<std::int64_t> batches, lengths;
  std::set<int> contexts;
  for (const auto& p : points())
    if (ok(p)) {
      batches.insert(p.spec.batch);
      lengths.insert(p.spec.seq_len);
      if (p.context > 0) contexts.insert(p.context);
    }
  for (PlotPanel* panel : {m_decode, m_prefill}) {
    panel->plot()->clearGraphs();
    panel->plot()->clearItems();
  }
  for (const auto& run : m_runs) {
    const QString model = QString::fromStdString(run.model);
    const QColor color = modelColor(model);
    for (std::int64_t batch : batches) {
      std::vector<const store::InferencePointResult*> pts;
      for (const auto& p : run.points)
        if (ok(p) && p.spec.batch == batch) pts.push_back(&p);
      if (pts.empty()) continue;
      std::sort(pts.begin(), pts.end(), [](auto* a, auto* b) { return a->spec.seq_len < b->spec.seq_len; });
      QCPGraph* decode = m_decode->plot()->addGraph();
      QCPGraph* prefill = m_prefill->plot()->addGraph();
      for (QCPGraph* g : {decode, prefill}) {
        g->setName(seriesName(model, batch));
        g->setPen(QPen(color, 2, batchStyle(batches, batch)));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, 6));
      }
      for (const auto* p : pts) {
        const double L = static_cast<double>(p->spec.seq_len);
        if (p->decode_ms_per_token > 0) decode->addData(L, p->decode_ms_per_token);
        const double y = ttft ? p->ttft_ms : p->prefill_tokens_per_s;
        if (y > 0) prefill->addData(L, y);
      }
    }
  }
  frameCurves(lengths, contexts, ttft);
  m_legend->setText(legendHtml(batches));
  for (PlotPanel* panel : {m_decode, m_prefill}) replotIfSized(panel->plot());
}

// The line plots' axes: ticks at the measured L, the training contexts marked and in range.
void InferencePanel::frameCurves(const std::set<std::int64_t>& lengths, const std::set<int>& contexts, bool ttft) {
  // Tick exactly the measured lengths (powers of two, log2 spacing), not decades.
  QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
  for (std::int64_t L : lengths) ticks->addTick(static_cast<double>(L), lengthLabel(L));
  for (PlotPanel* panel : {m_decode, m_prefill}) {
    QCustomPlot* plot = panel->plot();
    plot->xAxis->setTicker(ticks);
    markContexts(plot, contexts);
    plot->legend->setVisible(false);  // the shared legend row says it; exports draw this one
    if (plot->graphCount() > 0) {
      plot->rescaleAxes();
      double lo = plot->xAxis->range().lower, hi = plot->xAxis->range().upper;
      for (int ctx : contexts) lo = std::min(lo, double(ctx)), hi = std::max(hi, double(ctx));
      plot->xAxis->setRange(lo / 1.3, hi * 1.3);
    }
  }
  if (m_decode->plot()->graphCount() > 0) {
    // From 0: a flat decode cost (the GSS recurrence) must look flat beside a growing KV cache.
    m_decode->plot()->yAxis->setRange(0, m_decode->plot()->yAxis->range().upper * 1.12);
    const QCPRange r = m_prefill->plot()->yAxis->range();
    if (ttft)
      m_prefill->plot()->yAxis->setRange(r.lower / 1.5, r.upper * 1.5);
    else
      m_prefill->plot()->yAxis->setRange(0, r.upper * 1.12);
  }
  // Exported images draw the plot's own legend, where the curves leave room: decode cost and
  // the time to first token rise with L (top left is free), throughput falls (top right).
  m_decode->plot()->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
  m_prefill->plot()->axisRect()->insetLayout()->setInsetAlignment(
      0, Qt::AlignTop | (ttft ? Qt::AlignLeft : Qt::AlignRight));
}

QString InferencePanel::legendHtml(const std::set<std::int64_t>& batches) const {
  const auto swatch = [](const QColor& c, const char* glyph) {
    return QStringLiteral("<span style=\"color:%1\">%2</span>").arg(c.name(), QString::fromUtf8(glyph));
  };
  QStringList models;
  for (const auto& run : m_runs) {
    const QString model = QString::fromStdString(run.model);
    models << swatch(modelColor(model), "\u25ac\u25ac") + "&nbsp;" + model.toHtmlEscaped();
  }
  QString text = models.join("&nbsp;&nbsp; ");
  if (batches.size() > 1) {
    QStringList styles;
    const char* names[] = {"solid", "dashed", "dotted"};
    int i = 0;
    for (std::int64_t b : batches) styles << tr("batch %1 %2").arg(b).arg(tr(names[std::min(i++, 2)]));
    text += "&nbsp;&nbsp; (" + styles.join(", ") + ")";
  }
  QStringList parts;
  const char* partNames[] = {"weights", "KV cache", "GSS state", "rest"};
  for (int k = 0; k < 4; ++k)
    parts << swatch(InferenceMemoryChart::partColor(k), "\u25a0") + "&nbsp;" + tr(partNames[k]);
  return text + "&nbsp;&nbsp;&nbsp;&nbsp; " + tr("memory:") + " " + parts.join("&nbsp; ");
}

void InferencePanel::fillMemoryChoices() {
  const QVariant keepL = m_memoryPoint->currentData(Qt::UserRole), keepB = m_memoryPoint->currentData(Qt::UserRole + 1);
  std::map<std::pair<std::int64_t, std::int64_t>, int> models;  // (batch, L) -> models measured there
  for (const auto& run : m_runs) {
    std::set<std::pair<std::int64_t, std::int64_t>> seen;
    for (const auto& p : run.points)
      if (ok(p) && seen.insert({p.spec.batch, p.spec.seq_len}).second) ++models[{p.spec.batch, p.spec.seq_len}];
  }
  QSignalBlocker block(m_memoryPoint);
  m_memoryPoint->clear();
  int pick = -1, everyModel = -1;
  for (const auto& [key, n] : models) {
    const auto [batch, L] = key;
    m_memoryPoint->addItem(tr("L = %1, batch %2").arg(L).arg(batch));
    const int i = m_memoryPoint->count() - 1;
    m_memoryPoint->setItemData(i, qint64(L), Qt::UserRole);
    m_memoryPoint->setItemData(i, qint64(batch), Qt::UserRole + 1);
    if (m_memoryPicked && keepL.isValid() && keepL.toLongLong() == L && keepB.toLongLong() == batch) pick = i;
    // Default: the longest L of the smallest batch that every model reached.
    if (n == static_cast<int>(m_runs.size()) && batch == models.begin()->first.first) everyModel = i;
  }
  if (pick < 0) pick = everyModel >= 0 ? everyModel : m_memoryPoint->count() - 1;
  m_memoryPoint->setCurrentIndex(pick);
}

bool InferencePanel::selectMemoryPoint(std::int64_t length, std::int64_t batch) {
  for (int i = 0; i < m_memoryPoint->count(); ++i)
    if (m_memoryPoint->itemData(i, Qt::UserRole).toLongLong() == length &&
        m_memoryPoint->itemData(i, Qt::UserRole + 1).toLongLong() == batch) {
      m_memoryPicked = true;
      m_memoryPoint->setCurrentIndex(i);
      return true;
    }
  return false;
}

void InferencePanel::drawMemory() {
  std::vector<MemoryBar> bars;
  QStringList missing;
  if (m_memoryPoint->currentIndex() >= 0) {
    const std::int64_t L = m_memoryPoint->currentData(Qt::UserRole).toLongLong();
    const std::int64_t B = m_memoryPoint->currentData(Qt::UserRole + 1).toLongLong();
    for (const auto& run : m_runs) {
      const auto it = std::find_if(run.points.begin(), run.points.end(), [&](const auto& p) {
        return ok(p) && p.spec.seq_len == L && p.spec.batch == B;
      });
      if (it == run.points.end()) {
        missing << QString::fromStdString(run.model);
        continue;
      }
      const auto& m = it->memory;
      bars.push_back({QString::fromStdString(run.model), toMiB(m.weights), toMiB(m.kv_cache), toMiB(m.gss_state),
                      toMiB(m.activations), memoryTooltip(*it)});
    }
  }
  m_memory->setBars(std::move(bars), tr("No point measured here."));
  m_memory->plot()->setToolTip(missing.isEmpty() ? QString()
                                                 : tr("Not measured at this point: %1").arg(missing.join(", ")));
}

void InferencePanel::fillTable() {
  m_table->setSortingEnabled(false);
  m_table->clearContents();
  m_table->setRowCount(0);
  for (std::size_t index = 0; index < m_runs.size(); ++index) {
    const store::ModelInference& run = m_runs[index];
    std::vector<const store::InferencePointResult*> pts;
    for (const auto& p : run.points) pts.push_back(&p);
    std::stable_sort(pts.begin(), pts.end(), [](auto* a, auto* b) {
      return a->spec.batch != b->spec.batch ? a->spec.batch < b->spec.batch : a->spec.seq_len < b->spec.seq_len;
    });
    const QString model = QString::fromStdString(run.model);
    for (const auto* p : pts) {
      const int row = m_table->rowCount();
      m_table->insertRow(row);
      const auto num = [&](int column, const QString& text, double value) {
        m_table->setItem(row, column, new NumberItem(text, value));
      };
      // Sorted by the run's place (the order measured), so a sort by model keeps the sweep's order.
      auto* name = new NumberItem(model, static_cast<double>(index));
      name->setData(Qt::DecorationRole, modelColor(model));  // a swatch: yellow text is unreadable
      m_table->setItem(row, Model, name);
      num(Length, QString::number(p->spec.seq_len), double(p->spec.seq_len));
      const double ratio = p->context > 0 ? double(p->spec.seq_len) / p->context : 0.0;
      const bool atContext = p->context > 0 && p->spec.seq_len == p->context;
      num(Context, atContext ? tr("1x (ctx)") : contextRatioText(p->spec.seq_len, p->context), ratio);
      if (atContext) {
        QFont bold = m_table->font();
        bold.setBold(true);
        m_table->item(row, Context)->setFont(bold);
      }
      num(Batch, QString::number(p->spec.batch), double(p->spec.batch));
      if (!ok(*p)) {
        num(Ttft, tr("failed"), -1);
      } else {
        const auto& m = p->memory;
        num(Ttft, msText(p->ttft_ms), p->ttft_ms);
        num(PrefillTps, fixed(p->prefill_tokens_per_s, 0), p->prefill_tokens_per_s);
        num(DecodeMs, msText(p->decode_ms_per_token), p->decode_ms_per_token);
        num(DecodeTps, fixed(p->decode_tokens_per_s, 1), p->decode_tokens_per_s);
        num(E2eS, fixed(p->e2e_ms / 1e3, 2), p->e2e_ms / 1e3);
        num(Weights, mibText(m.weights), toMiB(m.weights));
        num(KvCache, mibText(m.kv_cache), toMiB(m.kv_cache));
        num(GssState, mibText(m.gss_state), toMiB(m.gss_state));
        num(Rest, mibText(m.activations), toMiB(m.activations));
        num(Peak, mibText(m.peak), toMiB(m.peak));
      }
      const QString tip = pointTooltip(*p, run.run_id);
      for (int c = 0; c < ColumnCount; ++c)
        if (QTableWidgetItem* it = m_table->item(row, c)) it->setToolTip(tip);
    }
  }
  m_table->setSortingEnabled(true);
}

int InferencePanel::tableRows() const { return m_table->rowCount(); }
int InferencePanel::decodeCurveCount() const { return m_decode->plot()->graphCount(); }
int InferencePanel::prefillCurveCount() const { return m_prefill->plot()->graphCount(); }
QString InferencePanel::slopeText() const { return m_slope->text(); }
QString InferencePanel::checkText() const { return m_check->text(); }
QString InferencePanel::legendText() const { return m_legend->text(); }

bool InferencePanel::exportCsv(const QString& path, QString* error) const {
  return writeInferenceCsv(path, points(), error);
}

}  // namespace pha::widgets
