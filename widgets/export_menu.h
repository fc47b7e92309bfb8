// The "Export…" action of every plot (live curves, mixer heatmap, Compare dock): a right-click
// menu on the plot and a tool button, both asking for a file (the dialog opens in the folder
// used last, QSettings "export/lastDir") and, for PNG / PDF / SVG, the size, resolution and
// title in a small dialog (remembered too; default 1600 x 900 pixels at 192 DPI, i.e. 2x),
// then writing through plot_export. CSV writes the plot's own data when it has a writer.
#pragma once

#include <QString>
#include <functional>

#include "widgets/plot_export.h"

class QCustomPlot;
class QToolButton;
class QWidget;

namespace pha::widgets {

// Writes the data behind a plot as CSV; returns false with *error set on failure. When none
// is given, CSV export writes the plotted graphs (exportGraphsCsv).
using CsvWriter = std::function<bool(const QString& path, QString* error)>;

// What one plot exports: the suggested file name (without folder and extension), its data
// writer, and the default title of its images (e.g. "pha-tiny: loss, step 150"), asked again
// each time because it changes while a run trains; a non-empty title also names the file.
struct ExportSource {
  QString baseName;
  CsvWriter csv;
  std::function<QString()> title;
  // The suggested file name, when it must not follow the title: the mixer's title names the
  // step the image shows, but its CSV holds every snapshot, so its file name names no step.
  std::function<QString()> fileName;
};

// The questions an interactive export asks; tests replace them (an empty member: the real
// dialog). savePath gets the suggested path and the filter list, returns the chosen path ("":
// cancelled) and may set *filter. imageOptions edits the options, false: cancelled.
struct ExportPrompts {
  std::function<QString(QWidget* parent, const QString& suggested, const QStringList& filters, QString* filter)>
      savePath;
  std::function<bool(QWidget* parent, ImageExportOptions* options)> imageOptions;
};
void setExportPrompts(const ExportPrompts& prompts);
// Asks where to save (the file dialog, or ExportPrompts::savePath in tests); "" when cancelled.
// The path need not exist: a report folder typed there is created by its writer.
QString askExportPath(QWidget* parent, const QString& title, const QString& suggested, const QStringList& filters = {});
// The folder the last export went to (else Documents, else home).
QString lastExportFolder();
void rememberExportFolder(const QString& folder);

// Right-click on the plot opens a menu with "Export…".
void installExportMenu(QCustomPlot* plot, const ExportSource& source);
void installExportMenu(QCustomPlot* plot, const QString& baseName, CsvWriter csv = {});
// A tool button "Export…" doing the same, for a tab's tool row.
QToolButton* makeExportButton(QCustomPlot* plot, const QString& baseName, CsvWriter csv, QWidget* parent);
// Asks for a path (format from the chosen filter or extension) and, for images, the options;
// writes, reports errors in a message box (not on the offscreen platform: there *error says
// why). Returns the written path, empty when cancelled or failed.
QString exportInteractively(QWidget* parent, QCustomPlot* plot, const ExportSource& source, QString* error = nullptr);
QString exportInteractively(QWidget* parent, QCustomPlot* plot, const QString& baseName, const CsvWriter& csv);

// The remembered image options (QSettings "export/width", "export/height", "export/dpi").
ImageExportOptions savedImageOptions();

}  // namespace pha::widgets
