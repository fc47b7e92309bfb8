#include "gui/report/report_page.h"

#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QSvgRenderer>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "analysis/report.h"

namespace pha::gui {

namespace an = pha::analysis;

// Green for holds, red for does not hold, amber for inconclusive and mixed, blue for too few
// replicas (no verdict given), reddish purple for equivalent / smaller than the effect of
// interest (a bound, not a difference) (Okabe-Ito hues), as a light background.
QColor verdictColor(an::Verdict v) {
  switch (v) {
    case an::Verdict::Holds: return QColor(0, 158, 115, 70);
    case an::Verdict::DoesNotHold: return QColor(213, 94, 0, 70);
    case an::Verdict::TooFewReplicas: return QColor(86, 180, 233, 60);
    case an::Verdict::Equivalent:
    case an::Verdict::SmallerThanEffect: return QColor(204, 121, 167, 60);
    case an::Verdict::Inconclusive:
    case an::Verdict::Mixed: break;
  }
  return QColor(230, 159, 0, 55);
}

// The colour over white, for rich text (which takes no alpha).
QString solid(const QColor& c) {
  const double a = c.alphaF();
  auto mix = [a](int v) { return int(v * a + 255 * (1 - a) + 0.5); };
  return QColor(mix(c.red()), mix(c.green()), mix(c.blue())).name();
}

namespace {

const QColor kWarn(230, 159, 0, 55);

QString richText(const an::Spans& spans) {
  QString s;
  for (const auto& span : spans) {
    const QString t = QString::fromStdString(span.text).toHtmlEscaped();
    if (span.verdict) {
      s += QStringLiteral("<span style=\"background-color:%1; font-weight:600\">%2</span>").arg(solid(verdictColor(*span.verdict)), t);
      continue;
    }
    switch (span.style) {
      case an::SpanStyle::Plain: s += t; break;
      case an::SpanStyle::Strong: s += "<b>" + t + "</b>"; break;
      case an::SpanStyle::Code: s += "<code>" + t + "</code>"; break;
      case an::SpanStyle::Secondary: s += "<span style=\"color:#555\">" + t + "</span>"; break;
      case an::SpanStyle::Warning: s += "<b style=\"color:#8a4b00\">" + t + "</b>"; break;
    }
  }
  return s;
}

QLabel* makeLabel(const QString& name, QWidget* parent) {
  auto* l = new QLabel(parent);
  l->setObjectName(name);
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}

// Rows as tall as their wrapped text, and the table as tall as its rows (the page scrolls).
void fitRows(QTableWidget* t) {
  t->resizeRowsToContents();
  int h = t->horizontalHeader()->height() + 2 * t->frameWidth();
  for (int r = 0; r < t->rowCount(); ++r) h += t->rowHeight(r);
  t->setFixedHeight(h + 2);
}

// A table whose columns share the width it has: every column gets its natural width (its text
// on one line) when they fit, spread over the spare width in proportion; otherwise the short
// columns keep theirs and the long texts (measured, verdict and reason, fits) share the rest at
// one common width and wrap (max-min fair). Rows are then as tall as their wrapped text.
class ReportTable : public QTableWidget {
 public:
  ReportTable(int rows, int columns, QWidget* parent) : QTableWidget(rows, columns, parent) {}

  void measure() {
    resizeColumnsToContents();
    m_natural.clear();
    for (int c = 0; c < columnCount(); ++c) m_natural.push_back(std::max(columnWidth(c), 40));
    fitColumns();
  }

 protected:
  void resizeEvent(QResizeEvent* e) override {
    QTableWidget::resizeEvent(e);
    fitColumns();
  }

 private:
  void fitColumns() {
    const int total = viewport()->width();
    if (m_natural.empty() || total <= 0 || m_fitting) return;
    m_fitting = true;
    long sum = 0;
    for (int w : m_natural) sum += w;
    std::vector<int> widths = m_natural;
    if (sum <= total) {
      for (int& w : widths) w = int(double(w) * total / double(sum));
    } else {
      // Shares in proportion to sqrt(natural width), none above its natural width: a column that
      // would get more keeps its own and the rest is shared again among the others.
      std::vector<bool> fixed(widths.size(), false);
      for (bool changed = true; changed;) {
        changed = false;
        double rest = total, weights = 0;
        for (std::size_t c = 0; c < widths.size(); ++c) {
          if (fixed[c]) rest -= m_natural[c];
          else weights += std::sqrt(double(m_natural[c]));
        }
        for (std::size_t c = 0; c < widths.size(); ++c) {
          if (fixed[c]) continue;
          const double share = rest * std::sqrt(double(m_natural[c])) / weights;
          if (share >= m_natural[c]) {
            fixed[c] = changed = true;
            widths[c] = m_natural[c];
          } else {
            widths[c] = std::max(int(share), 40);
          }
        }
      }
    }
    for (int c = 0; c < int(widths.size()); ++c) setColumnWidth(c, widths[std::size_t(c)]);
    fitRows(this);
    m_fitting = false;
  }

  std::vector<int> m_natural;
  bool m_fitting = false;
};

QTableWidget* makeTable(const an::Block& b, QWidget* parent) {
  auto* t = new ReportTable(int(b.rows.size()), int(b.columns.size()), parent);
  t->setObjectName(QString::fromStdString("report-" + b.id));
  QStringList headers;
  for (const auto& c : b.columns) headers << QString::fromStdString(c);
  t->setHorizontalHeaderLabels(headers);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->setWordWrap(true);
  t->verticalHeader()->hide();
  t->horizontalHeader()->setStretchLastSection(false);
  t->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  t->horizontalHeader()->setTextElideMode(Qt::ElideRight);
  for (int c = 0; c < t->columnCount(); ++c) t->horizontalHeaderItem(c)->setToolTip(headers[c]);
  t->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  t->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  t->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // the page scrolls, not each table
  for (int r = 0; r < int(b.rows.size()); ++r)
    for (int c = 0; c < int(b.rows[std::size_t(r)].size()) && c < t->columnCount(); ++c) {
      const an::Cell& cell = b.rows[std::size_t(r)][std::size_t(c)];
      auto* it = new QTableWidgetItem(QString::fromStdString(an::plain_text(cell)));
      if (!cell.tooltip.empty()) it->setToolTip(QString::fromStdString(cell.tooltip));
      if (cell.numeric) it->setTextAlignment(Qt::AlignRight | Qt::AlignTop);
      if (cell.warn) it->setBackground(kWarn);
      for (const auto& span : cell.spans)
        if (span.verdict) it->setBackground(verdictColor(*span.verdict));
      t->setItem(r, c, it);
    }
  t->measure();
  return t;
}

// A chart: the report's SVG (the HTML export's, with its style inside) drawn at its aspect ratio.
class SvgChart : public QWidget {
 public:
  SvgChart(const std::string& svg, QWidget* parent) : QWidget(parent), m_renderer(QByteArray::fromStdString(svg), this) {
    m_renderer.setAspectRatioMode(Qt::KeepAspectRatio);
    const QSize size = m_renderer.defaultSize().isValid() ? m_renderer.defaultSize() : QSize(600, 320);
    setMinimumSize(size / 2);
    setMaximumSize(size);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    setFixedHeight(size.height());
  }
  QSize sizeHint() const override { return maximumSize(); }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    m_renderer.render(&p, QRectF(rect()));
  }

 private:
  QSvgRenderer m_renderer;
};

}  // namespace

ReportPage::ReportPage(QWidget* parent) : QWidget(parent) {
  setObjectName("reportContent");
  m_layout = new QVBoxLayout(this);
  m_layout->setContentsMargins(0, 0, 0, 0);
  m_layout->addStretch(1);
}

void ReportPage::clear() {
  for (QWidget* w : m_blocks) delete w;
  m_blocks.clear();
}

void ReportPage::showDocument(const an::ReportDocument& document) {
  clear();
  for (const an::Block& b : document.blocks) {
    QWidget* w = makeBlock(b);
    m_layout->insertWidget(m_layout->count() - 1, w);  // above the stretch
    m_blocks.push_back(w);
  }
}

QWidget* ReportPage::makeBlock(const an::Block& b) {
  switch (b.kind) {
    case an::BlockKind::Heading: {
      QLabel* l = makeLabel("reportHeading", this);
      l->setTextFormat(Qt::PlainText);
      l->setText(QString::fromStdString(an::plain_text(b.text)));
      QFont f = l->font();
      f.setBold(true);
      f.setPointSizeF(f.pointSizeF() * (b.level <= 1 ? 1.4 : b.level == 2 ? 1.2 : 1.05));
      l->setFont(f);
      if (b.level == 2) l->setContentsMargins(0, 10, 0, 0);
      return l;
    }
    case an::BlockKind::Paragraph: {
      QLabel* l = makeLabel("reportParagraph", this);
      l->setTextFormat(Qt::RichText);
      l->setText(b.meta ? "<span style=\"color:#555\">" + richText(b.text) + "</span>" : richText(b.text));
      return l;
    }
    case an::BlockKind::List: {
      QLabel* l = makeLabel("reportList", this);
      l->setTextFormat(Qt::RichText);
      QStringList items;
      for (const auto& item : b.items) items << "• " + richText(item);
      l->setText(items.join("<br>"));
      return l;
    }
    case an::BlockKind::Table: return makeTable(b, this);
    case an::BlockKind::Chart: {
      auto* chart = new SvgChart(an::standalone_svg(b.svg), this);
      chart->setObjectName(QString::fromStdString("reportChart-" + b.id));
      chart->setToolTip(QString::fromStdString(b.title));
      return chart;
    }
  }
  return new QWidget(this);
}

QList<QTableWidget*> ReportPage::tables() const {
  QList<QTableWidget*> out;
  for (QWidget* w : m_blocks)
    if (auto* t = qobject_cast<QTableWidget*>(w)) out << t;
  return out;
}

QTableWidget* ReportPage::table(const QString& id) const {
  for (QTableWidget* t : tables())
    if (t->objectName() == "report-" + id) return t;
  return nullptr;
}

}  // namespace pha::gui
