// The "Export…" action of every plot in the Compare dock: a right-click menu on the plot and
// a tool button, both asking for a file and writing PNG / PDF / SVG (plot_export) or CSV.
#pragma once

#include <QString>
#include <functional>

class QCustomPlot;
class QToolButton;
class QWidget;

namespace pha::gui {

// Writes the data behind a plot as CSV; returns false with *error set on failure. When none
// is given, CSV export writes the plotted graphs (exportGraphsCsv).
using CsvWriter = std::function<bool(const QString& path, QString* error)>;

// Right-click on the plot opens a menu with "Export…".
void installExportMenu(QCustomPlot* plot, const QString& baseName, CsvWriter csv = {});
// A tool button "Export…" doing the same, for a tab's tool row.
QToolButton* makeExportButton(QCustomPlot* plot, const QString& baseName, CsvWriter csv, QWidget* parent);
// Asks for a path (format from the chosen filter or extension), writes, reports errors in a
// message box. Returns the written path, empty when cancelled or failed.
QString exportInteractively(QWidget* parent, QCustomPlot* plot, const QString& baseName, const CsvWriter& csv);

}  // namespace pha::gui
