// Plot and data export: any QCustomPlot to PNG (raster), PDF or SVG (vector) with its legend,
// the plotted data to CSV, and full-resolution metric points to CSV (no point cap).
// Errors come back as text for the caller to show; nothing throws.
#pragma once

#include <QList>
#include <QSize>
#include <QString>
#include <vector>

#include "store/types.h"

class QCPAxis;
class QCustomPlot;

namespace pha::gui {

// Chooses the format by the file extension: .png, .pdf, .svg, .csv (exportGraphsCsv).
// size: the page / image size in pixels (points for PDF); empty: the widget's size, or
// 800 x 500 when the widget was never laid out. The legend is shown while the plot is drawn
// when the plot has one with items.
bool exportPlot(QCustomPlot* plot, const QString& path, QString* error = nullptr, QSize size = {});

bool exportPlotPng(QCustomPlot* plot, const QString& path, QSize size, QString* error = nullptr);
bool exportPlotPdf(QCustomPlot* plot, const QString& path, QSize size, QString* error = nullptr);
bool exportPlotSvg(QCustomPlot* plot, const QString& path, QSize size, QString* error = nullptr);

// Every data point of every graph as drawn: series,x,y (one header row).
bool exportGraphsCsv(QCustomPlot* plot, const QString& path, QString* error = nullptr);

// One run's points of one metric key, every point as stored.
struct MetricSeries {
  QString run;        // label
  QString storePath;
  qint64 runId = 0;
  QString key;
  std::vector<pha::store::MetricPoint> points;
};

// run,store,run_id,key,step,tokens,wall_ms,value (one header row, one row per point).
bool writeMetricSeriesCsv(const QString& path, const QList<MetricSeries>& series, QString* error = nullptr);

// Widens an axis range by fraction on each side (extremes off the frame; a zero-width range
// gets a width around its value). Used by the comparison plots and the run report.
void padAxisRange(QCPAxis* axis, double fraction = 0.05);

// RFC 4180 quoting for one field.
QString csvField(const QString& text);

}  // namespace pha::gui
