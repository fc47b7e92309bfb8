#include "export_menu.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QToolButton>
#include <qcustomplot.h>

#include "plot_export.h"

namespace pha::gui {

QString exportInteractively(QWidget* parent, QCustomPlot* plot, const QString& baseName, const CsvWriter& csv) {
  const QString png = QObject::tr("PNG image (*.png)");
  const QString pdf = QObject::tr("PDF, vector (*.pdf)");
  const QString svg = QObject::tr("SVG, vector (*.svg)");
  const QString csvFilter = QObject::tr("CSV data (*.csv)");
  QString filter = png;
  QString path = QFileDialog::getSaveFileName(parent, QObject::tr("Export plot"), baseName + ".png",
                                              QStringList{png, pdf, svg, csvFilter}.join(";;"), &filter);
  if (path.isEmpty()) return {};
  if (QFileInfo(path).suffix().isEmpty()) {
    if (filter == pdf) path += ".pdf";
    else if (filter == svg) path += ".svg";
    else if (filter == csvFilter) path += ".csv";
    else path += ".png";
  }
  QString error;
  const bool isCsv = QFileInfo(path).suffix().compare("csv", Qt::CaseInsensitive) == 0;
  const bool ok = isCsv && csv ? csv(path, &error) : exportPlot(plot, path, &error);
  if (!ok) {
    QMessageBox::warning(parent, QObject::tr("Export failed"), error);
    return {};
  }
  return path;
}

void installExportMenu(QCustomPlot* plot, const QString& baseName, CsvWriter csv) {
  plot->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(plot, &QWidget::customContextMenuRequested, plot, [plot, baseName, csv](const QPoint& pos) {
    QMenu menu(plot);
    menu.addAction(QObject::tr("Export…"), plot, [plot, baseName, csv] {
      exportInteractively(plot, plot, baseName, csv);
    });
    menu.exec(plot->mapToGlobal(pos));
  });
}

QToolButton* makeExportButton(QCustomPlot* plot, const QString& baseName, CsvWriter csv, QWidget* parent) {
  auto* button = new QToolButton(parent);
  button->setText(QObject::tr("Export…"));
  button->setToolTip(QObject::tr("Save this plot as PNG, PDF or SVG, or its data as CSV"));
  QObject::connect(button, &QToolButton::clicked, button, [button, plot, baseName, csv] {
    exportInteractively(button, plot, baseName, csv);
  });
  return button;
}

}  // namespace pha::gui
