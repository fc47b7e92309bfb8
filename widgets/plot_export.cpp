#include "widgets/plot_export.h"

#include <QFileInfo>
#include <QSvgGenerator>
#include <QTextStream>
#include <algorithm>
#include <cmath>
#include <exception>
#include <qcustomplot.h>
#include <sstream>

#include "widgets/csv_file.h"

namespace pha::widgets {

namespace {

void setError(QString* error, const QString& text) {
  if (error) *error = text;
}

QSize effectiveSize(QCustomPlot* plot, QSize size) {
  if (size.isValid() && !size.isEmpty()) return size;
  // An unshown widget reports Qt's default 640 x 480 or a tiny hint; neither is a useful page.
  if (plot->testAttribute(Qt::WA_WState_Visible) || plot->testAttribute(Qt::WA_Resized)) {
    if (plot->width() >= 100 && plot->height() >= 100) return plot->size();
  }
  return {800, 500};
}

// The legend is drawn in an export exactly when it has a named entry; an empty one (a colour
// map's entry, a plot with no curves yet) would be a blank white box over the data.
bool hasNamedEntry(QCPLegend* legend) {
  for (int i = 0; i < legend->itemCount(); ++i) {
    auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
    if (!item || !item->plottable()->name().isEmpty()) return true;
  }
  return false;
}

// Shows or hides the legend for the duration of an export, then puts it back.
class LegendForExport {
 public:
  explicit LegendForExport(QCustomPlot* plot) : m_legend(plot->legend) {
    if (!m_legend) return;
    m_was = m_legend->visible();
    m_legend->setVisible(hasNamedEntry(m_legend));
  }
  ~LegendForExport() {
    if (m_legend) m_legend->setVisible(m_was);
  }
  LegendForExport(const LegendForExport&) = delete;
  LegendForExport& operator=(const LegendForExport&) = delete;

 private:
  QCPLegend* m_legend = nullptr;
  bool m_was = false;
};

// A title row above the plot for the duration of an export.
class TitleForExport {
 public:
  TitleForExport(QCustomPlot* plot, const QString& title) : m_plot(plot) {
    if (title.trimmed().isEmpty()) return;
    m_plot->plotLayout()->insertRow(0);
    QFont font = m_plot->font();
    font.setBold(true);
    font.setPointSizeF(font.pointSizeF() * 1.15);
    m_title = new QCPTextElement(m_plot, title.trimmed(), font);
    m_plot->plotLayout()->addElement(0, 0, m_title);
  }
  ~TitleForExport() {
    if (!m_title) return;
    m_plot->plotLayout()->remove(m_title);
    m_plot->plotLayout()->simplify();  // drops the row it leaves empty
  }
  TitleForExport(const TitleForExport&) = delete;
  TitleForExport& operator=(const TitleForExport&) = delete;

 private:
  QCustomPlot* m_plot;
  QCPTextElement* m_title = nullptr;
};

bool checkWritten(const QString& path, QString* error, const char* what) {
  QFileInfo info(path);
  if (info.isFile() && info.size() > 0) return true;
  setError(error, QObject::tr("Could not write the %1 file %2").arg(what, path));
  return false;
}

bool savePng(QCustomPlot* plot, const QString& path, const ImageExportOptions& o, QString* error) {
  const QSize layout = o.layoutSize();
  // QCustomPlot draws layout * scale pixels; the PNG records the DPI.
  if (!plot->savePng(path, layout.width(), layout.height(), o.scale(), -1, o.dpi, QCP::ruDotsPerInch)) {
    setError(error, QObject::tr("Could not write the PNG file %1").arg(path));
    return false;
  }
  return checkWritten(path, error, "PNG");
}

bool savePdf(QCustomPlot* plot, const QString& path, const ImageExportOptions& o, QString* error) {
  const QSize layout = o.layoutSize();
  // epNoCosmetic: hairlines keep a real width when the PDF is zoomed.
  if (!plot->savePdf(path, layout.width(), layout.height(), QCP::epNoCosmetic, "PHA Workbench",
                     o.title.isEmpty() ? plot->windowTitle() : o.title)) {
    setError(error, QObject::tr("Could not write the PDF file %1").arg(path));
    return false;
  }
  return checkWritten(path, error, "PDF");
}

bool saveSvg(QCustomPlot* plot, const QString& path, const ImageExportOptions& o, QString* error) {
  const QSize size = o.layoutSize();
  QSvgGenerator generator;
  generator.setFileName(path);
  generator.setSize(size);
  generator.setViewBox(QRect(QPoint(0, 0), size));
  generator.setTitle(o.title.isEmpty() ? plot->windowTitle() : o.title);
  generator.setDescription(QObject::tr("Exported by PHA Workbench"));
  QCPPainter painter;
  if (!painter.begin(&generator)) {
    setError(error, QObject::tr("Could not write the SVG file %1").arg(path));
    return false;
  }
  // Vector output: no pixmap caching of layers, cosmetic pens drawn as real lines.
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  painter.setMode(QCPPainter::pmNonCosmetic);
  plot->toPainter(&painter, size.width(), size.height());
  painter.end();
  return checkWritten(path, error, "SVG");
}

}  // namespace

QSize ImageExportOptions::layoutSize() const {
  const double s = std::max(0.25, scale());
  return {std::max(1, static_cast<int>(std::lround(size.width() / s))),
          std::max(1, static_cast<int>(std::lround(size.height() / s)))};
}

bool exportPlot(QCustomPlot* plot, const QString& path, const ImageExportOptions& options, QString* error) {
  if (!plot) {
    setError(error, QObject::tr("There is no plot to export."));
    return false;
  }
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "csv") return exportGraphsCsv(plot, path, error);
  if (suffix != "png" && suffix != "pdf" && suffix != "svg") {
    setError(error, QObject::tr("Unknown export format \"%1\": use .png, .pdf, .svg or .csv").arg(suffix));
    return false;
  }
  if (options.size.width() < 16 || options.size.height() < 16 || options.dpi < 24 || options.dpi > 1200) {
    setError(error, QObject::tr("Export size %1 x %2 at %3 DPI is out of range (at least 16 x 16, 24-1200 DPI)")
                        .arg(options.size.width())
                        .arg(options.size.height())
                        .arg(options.dpi));
    return false;
  }
  LegendForExport legend(plot);
  TitleForExport title(plot, options.title);
  if (suffix == "png") return savePng(plot, path, options, error);
  if (suffix == "pdf") return savePdf(plot, path, options, error);
  return saveSvg(plot, path, options, error);
}

bool exportPlot(QCustomPlot* plot, const QString& path, QString* error, QSize size) {
  if (!plot) {
    setError(error, QObject::tr("There is no plot to export."));
    return false;
  }
  return exportPlot(plot, path, ImageExportOptions{effectiveSize(plot, size), 96, {}}, error);
}

void padAxisRange(QCPAxis* axis, double fraction) {
  const QCPRange r = axis->range();
  const double pad = r.size() > 0 ? fraction * r.size() : std::max(1e-9, 0.1 * std::abs(r.center()));
  axis->setRange(r.lower - pad, r.upper + pad);
}

bool exportGraphsCsv(QCustomPlot* plot, const QString& path, QString* error) {
  if (!plot) {
    setError(error, QObject::tr("There is no plot to export."));
    return false;
  }
  return writeCsvFile(path, "series,x,y", [plot](QTextStream& out) {
    for (int g = 0; g < plot->graphCount(); ++g) {
      QCPGraph* graph = plot->graph(g);
      const QString name = csvField(graph->name());
      for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        out << name << ',' << csvNumber(it->key) << ',' << csvNumber(it->value) << '\n';
    }
  }, error);
}

}  // namespace pha::widgets
