#include "plot_export.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextStream>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace pha::gui {

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

// Shows the legend for the duration of an export when it has anything to say.
class LegendShown {
 public:
  explicit LegendShown(QCustomPlot* plot) : m_legend(plot->legend) {
    if (m_legend && m_legend->itemCount() > 0 && !m_legend->visible()) {
      m_legend->setVisible(true);
      m_restore = true;
    }
  }
  ~LegendShown() {
    if (m_restore) m_legend->setVisible(false);
  }
  LegendShown(const LegendShown&) = delete;
  LegendShown& operator=(const LegendShown&) = delete;

 private:
  QCPLegend* m_legend = nullptr;
  bool m_restore = false;
};

bool checkWritten(const QString& path, QString* error, const char* what) {
  QFileInfo info(path);
  if (info.isFile() && info.size() > 0) return true;
  setError(error, QObject::tr("Could not write the %1 file %2").arg(what, path));
  return false;
}

}  // namespace

bool exportPlotPng(QCustomPlot* plot, const QString& path, QSize size, QString* error) {
  LegendShown legend(plot);
  size = effectiveSize(plot, size);
  if (!plot->savePng(path, size.width(), size.height(), 1.0)) {
    setError(error, QObject::tr("Could not write the PNG file %1").arg(path));
    return false;
  }
  return checkWritten(path, error, "PNG");
}

bool exportPlotPdf(QCustomPlot* plot, const QString& path, QSize size, QString* error) {
  LegendShown legend(plot);
  size = effectiveSize(plot, size);
  // epNoCosmetic: hairlines keep a real width when the PDF is zoomed.
  if (!plot->savePdf(path, size.width(), size.height(), QCP::epNoCosmetic, "PHA Workbench",
                     plot->windowTitle())) {
    setError(error, QObject::tr("Could not write the PDF file %1").arg(path));
    return false;
  }
  return checkWritten(path, error, "PDF");
}

bool exportPlotSvg(QCustomPlot* plot, const QString& path, QSize size, QString* error) {
  LegendShown legend(plot);
  size = effectiveSize(plot, size);
  QSvgGenerator generator;
  generator.setFileName(path);
  generator.setSize(size);
  generator.setViewBox(QRect(QPoint(0, 0), size));
  generator.setTitle(plot->windowTitle());
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

bool exportPlot(QCustomPlot* plot, const QString& path, QString* error, QSize size) {
  if (!plot) {
    setError(error, QObject::tr("There is no plot to export."));
    return false;
  }
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "png") return exportPlotPng(plot, path, size, error);
  if (suffix == "pdf") return exportPlotPdf(plot, path, size, error);
  if (suffix == "svg") return exportPlotSvg(plot, path, size, error);
  if (suffix == "csv") return exportGraphsCsv(plot, path, error);
  setError(error, QObject::tr("Unknown export format \"%1\": use .png, .pdf, .svg or .csv").arg(suffix));
  return false;
}

void padAxisRange(QCPAxis* axis, double fraction) {
  const QCPRange r = axis->range();
  const double pad = r.size() > 0 ? fraction * r.size() : std::max(1e-9, 0.1 * std::abs(r.center()));
  axis->setRange(r.lower - pad, r.upper + pad);
}

QString csvField(const QString& text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')))
    return text;
  QString quoted = text;
  quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

namespace {

QString number(double v) { return std::isnan(v) ? QStringLiteral("nan") : QString::number(v, 'g', QLocale::FloatingPointShortest); }

template <typename WriteRows>
bool writeCsv(const QString& path, const QString& header, QString* error, WriteRows writeRows) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
    setError(error, QObject::tr("Cannot write %1: %2").arg(path, file.errorString()));
    return false;
  }
  QTextStream out(&file);
  out << header << '\n';
  writeRows(out);
  out.flush();
  if (!file.commit()) {
    setError(error, QObject::tr("Cannot write %1: %2").arg(path, file.errorString()));
    return false;
  }
  return true;
}

}  // namespace

bool exportGraphsCsv(QCustomPlot* plot, const QString& path, QString* error) {
  if (!plot) {
    setError(error, QObject::tr("There is no plot to export."));
    return false;
  }
  return writeCsv(path, "series,x,y", error, [plot](QTextStream& out) {
    for (int g = 0; g < plot->graphCount(); ++g) {
      QCPGraph* graph = plot->graph(g);
      const QString name = csvField(graph->name());
      for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
        out << name << ',' << number(it->key) << ',' << number(it->value) << '\n';
    }
  });
}

bool writeMetricSeriesCsv(const QString& path, const QList<MetricSeries>& series, QString* error) {
  return writeCsv(path, "run,store,run_id,key,step,tokens,wall_ms,value", error, [&series](QTextStream& out) {
    for (const auto& s : series) {
      const QString prefix = csvField(s.run) + ',' + csvField(s.storePath) + ',' + QString::number(s.runId) +
                             ',' + csvField(s.key) + ',';
      for (const auto& p : s.points)
        out << prefix << p.step << ',' << p.tokens << ',' << p.wall_ms << ',' << number(p.value) << '\n';
    }
  });
}

}  // namespace pha::gui
