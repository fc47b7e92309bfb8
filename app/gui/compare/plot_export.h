// Plot and data export: any QCustomPlot to PNG (raster), PDF or SVG (vector) with its legend
// (when it has named entries: never an empty box) and an optional title, at a chosen size and
// resolution; the plotted data to CSV, and full-resolution metric points to the engine's metrics
// CSV (no point cap).
// Errors come back as text for the caller to show; nothing throws.
#pragma once

#include <QList>
#include <QSize>
#include <QString>
#include <vector>

class QCPAxis;
class QCustomPlot;

namespace pha::runtime {
struct MetricCsvSeries;
}

namespace pha::gui {

// What an image export draws. size: the PNG's pixels; the plot is laid out at
// size * 96 / dpi and drawn at dpi / 96 (so 1600 x 900 at 192 DPI has text twice as large, in
// pixels, as at 96 DPI), and the PNG records the DPI. PDF and SVG pages are that layout size in
// points (the same picture as the PNG; vectors scale freely). title: drawn above the plot
// (empty: none).
struct ImageExportOptions {
  QSize size{1600, 900};
  int dpi = 192;
  QString title;
  QSize layoutSize() const;
  double scale() const { return dpi / 96.0; }
};

// By the file extension: .png, .pdf, .svg; .csv writes exportGraphsCsv.
bool exportPlot(QCustomPlot* plot, const QString& path, const ImageExportOptions& options, QString* error = nullptr);

// Chooses the format by the file extension: .png, .pdf, .svg, .csv (exportGraphsCsv).
// size: the page / image size in pixels (points for PDF); empty: the widget's size, or
// 800 x 500 when the widget was never laid out. The legend is shown while the plot is drawn
// when the plot has one with items.
bool exportPlot(QCustomPlot* plot, const QString& path, QString* error = nullptr, QSize size = {});

// Every data point of every graph as drawn: series,x,y (one header row).
bool exportGraphsCsv(QCustomPlot* plot, const QString& path, QString* error = nullptr);

// The engine's metrics CSV (runtime::write_metrics_csv, runtime/export.h: run_id,key,step,
// tokens,wall_ms,value, every point as stored), written atomically (core/atomic_file.h); false
// with *error set when it cannot be written.
bool writeMetricsCsv(const QString& path, const std::vector<pha::runtime::MetricCsvSeries>& series,
                     QString* error = nullptr);

// Widens an axis range by fraction on each side (extremes off the frame; a zero-width range
// gets a width around its value). Used by the comparison plots and the run report.
void padAxisRange(QCPAxis* axis, double fraction = 0.05);

// RFC 4180 quoting for one field (widgets::csvField).
QString csvField(const QString& text);

}  // namespace pha::gui
