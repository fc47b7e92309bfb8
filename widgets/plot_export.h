// Plot and data export: any QCustomPlot to PNG (raster), PDF or SVG (vector) with its legend
// (when it has named entries: never an empty box) and an optional title, at a chosen size and
// resolution; the plotted data to CSV. Shared by every plot of the window (the live curves,
// the mixer heatmap, Compare, the Search view).
// Errors come back as text for the caller to show; nothing throws.
#pragma once

#include <QList>
#include <QSize>
#include <QString>

class QCPAxis;
class QCustomPlot;

namespace pha::widgets {

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

// Widens an axis range by fraction on each side (extremes off the frame; a zero-width range
// gets a width around its value). Used by the comparison plots and the run report.
void padAxisRange(QCPAxis* axis, double fraction = 0.05);

}  // namespace pha::widgets
