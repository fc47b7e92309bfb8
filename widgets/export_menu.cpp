#include "widgets/export_menu.h"

#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QToolButton>
#include <qcustomplot.h>

namespace pha::widgets {

namespace {

ExportPrompts& prompts() {
  static ExportPrompts p;
  return p;
}

// A file name from a label: "pha-tiny: val/loss, step 150" -> "pha-tiny-val-loss-step-150".
QString fileNameFrom(const QString& text) {
  QString s = text;
  s.replace(QRegularExpression("[^A-Za-z0-9._-]+"), "-");
  s.replace(QRegularExpression("-{2,}"), "-");
  while (s.startsWith('-')) s.remove(0, 1);
  while (s.endsWith('-')) s.chop(1);
  return s.isEmpty() ? QStringLiteral("plot") : s;
}

QString lastFolder() {
  const QString saved = QSettings().value("export/lastDir").toString();
  if (!saved.isEmpty() && QFileInfo(saved).isDir()) return saved;
  const QString docs = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  return QFileInfo(docs).isDir() ? docs : QDir::homePath();
}

QString askSavePath(QWidget* parent, const QString& suggested, const QStringList& filters, QString* filter) {
  if (prompts().savePath) return prompts().savePath(parent, suggested, filters, filter);
  return QFileDialog::getSaveFileName(parent, QObject::tr("Export plot"), suggested, filters.join(";;"), filter);
}

// The size / resolution / title dialog of an image export.
bool askImageOptions(QWidget* parent, ImageExportOptions* options) {
  if (prompts().imageOptions) return prompts().imageOptions(parent, options);
  QDialog dialog(parent);
  dialog.setWindowTitle(QObject::tr("Export image"));
  auto* form = new QFormLayout(&dialog);
  auto spin = [&](int lo, int hi, int value, const QString& suffix) {
    auto* s = new QSpinBox(&dialog);
    s->setRange(lo, hi);
    s->setValue(value);
    s->setSuffix(suffix);
    return s;
  };
  auto* width = spin(16, 20000, options->size.width(), QObject::tr(" px"));
  auto* height = spin(16, 20000, options->size.height(), QObject::tr(" px"));
  auto* dpi = spin(24, 1200, options->dpi, QObject::tr(" DPI"));
  dpi->setToolTip(QObject::tr("96 DPI draws text and lines at screen size; 192 DPI (2x) draws them twice as "
                              "large in the same pixels, for print and high-density screens"));
  auto* title = new QLineEdit(options->title, &dialog);
  title->setPlaceholderText(QObject::tr("no title"));
  auto* note = new QLabel(&dialog);
  auto update = [&] {
    ImageExportOptions o{QSize(width->value(), height->value()), dpi->value(), {}};
    note->setText(QObject::tr("PNG %1 x %2 pixels; PDF / SVG page %3 x %4 points")
                      .arg(width->value())
                      .arg(height->value())
                      .arg(o.layoutSize().width())
                      .arg(o.layoutSize().height()));
  };
  for (QSpinBox* s : {width, height, dpi}) QObject::connect(s, qOverload<int>(&QSpinBox::valueChanged), &dialog, update);
  update();
  form->addRow(QObject::tr("Width:"), width);
  form->addRow(QObject::tr("Height:"), height);
  form->addRow(QObject::tr("Resolution:"), dpi);
  form->addRow(QObject::tr("Title:"), title);
  form->addRow(note);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  form->addRow(buttons);
  if (dialog.exec() != QDialog::Accepted) return false;
  *options = ImageExportOptions{QSize(width->value(), height->value()), dpi->value(), title->text()};
  return true;
}

}  // namespace

void setExportPrompts(const ExportPrompts& p) { prompts() = p; }

QString askExportPath(QWidget* parent, const QString& title, const QString& suggested, const QStringList& filters) {
  if (prompts().savePath) {
    QString filter;
    return prompts().savePath(parent, suggested, filters, &filter);
  }
  return QFileDialog::getSaveFileName(parent, title, suggested, filters.join(";;"));
}

QString lastExportFolder() { return lastFolder(); }

void rememberExportFolder(const QString& folder) { QSettings().setValue("export/lastDir", folder); }

ImageExportOptions savedImageOptions() {
  QSettings s;
  ImageExportOptions o;
  o.size = QSize(s.value("export/width", o.size.width()).toInt(), s.value("export/height", o.size.height()).toInt());
  o.dpi = s.value("export/dpi", o.dpi).toInt();
  return o;
}

QString exportInteractively(QWidget* parent, QCustomPlot* plot, const ExportSource& source, QString* errorOut) {
  const QString png = QObject::tr("PNG image (*.png)");
  const QString pdf = QObject::tr("PDF, vector (*.pdf)");
  const QString svg = QObject::tr("SVG, vector (*.svg)");
  const QString csvFilter = QObject::tr("CSV data (*.csv)");
  const QStringList filters{png, pdf, svg, csvFilter};
  QSettings settings;
  const QString lastSuffix = settings.value("export/lastSuffix", "png").toString();
  QString filter = lastSuffix == "pdf" ? pdf : lastSuffix == "svg" ? svg : lastSuffix == "csv" ? csvFilter : png;
  const QString title = source.title ? source.title() : QString();
  const QString named = source.fileName ? source.fileName() : title;
  const QString base = fileNameFrom(named.isEmpty() ? source.baseName : named);
  QString path = askSavePath(parent, lastFolder() + "/" + base + "." + lastSuffix, filters, &filter);
  if (path.isEmpty()) return {};
  if (QFileInfo(path).suffix().isEmpty()) {
    if (filter == pdf) path += ".pdf";
    else if (filter == svg) path += ".svg";
    else if (filter == csvFilter) path += ".csv";
    else path += ".png";
  }
  const QString suffix = QFileInfo(path).suffix().toLower();
  settings.setValue("export/lastDir", QFileInfo(path).absolutePath());
  settings.setValue("export/lastSuffix", suffix);
  QString error;
  bool ok = false;
  if (suffix == "csv") {
    ok = source.csv ? source.csv(path, &error) : exportGraphsCsv(plot, path, &error);
  } else {
    ImageExportOptions options = savedImageOptions();
    options.title = title;
    if (!askImageOptions(parent, &options)) return {};
    settings.setValue("export/width", options.size.width());
    settings.setValue("export/height", options.size.height());
    settings.setValue("export/dpi", options.dpi);
    ok = exportPlot(plot, path, options, &error);
  }
  if (!ok) {
    if (errorOut) *errorOut = error;
    if (QApplication::platformName() != "offscreen") QMessageBox::warning(parent, QObject::tr("Export failed"), error);
    return {};
  }
  return path;
}

QString exportInteractively(QWidget* parent, QCustomPlot* plot, const QString& baseName, const CsvWriter& csv) {
  return exportInteractively(parent, plot, ExportSource{baseName, csv, {}, {}});
}

void installExportMenu(QCustomPlot* plot, const ExportSource& source) {
  plot->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(plot, &QWidget::customContextMenuRequested, plot, [plot, source](const QPoint& pos) {
    QMenu menu(plot);
    menu.addAction(QObject::tr("Export…"), plot, [plot, source] { exportInteractively(plot, plot, source); });
    menu.exec(plot->mapToGlobal(pos));
  });
}

void installExportMenu(QCustomPlot* plot, const QString& baseName, CsvWriter csv) {
  installExportMenu(plot, ExportSource{baseName, std::move(csv), {}, {}});
}

QToolButton* makeExportButton(QCustomPlot* plot, const QString& baseName, CsvWriter csv, QWidget* parent) {
  auto* button = new QToolButton(parent);
  button->setText(QObject::tr("Export…"));
  button->setToolTip(QObject::tr("Save this plot as PNG, PDF or SVG (size, resolution and title asked), or its "
                                 "data as CSV"));
  QObject::connect(button, &QToolButton::clicked, button, [button, plot, baseName, csv] {
    exportInteractively(button, plot, baseName, csv);
  });
  return button;
}

}  // namespace pha::widgets
