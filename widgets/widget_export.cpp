#include "widgets/widget_export.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QWidget>

#include "widgets/csv_file.h"

namespace pha::widgets {

bool exportWidgetImage(QWidget* widget, const QString& path, QString* error) {
  const QString ext = QFileInfo(path).suffix().toLower();
  const QSize size = widget->size().isEmpty() ? widget->sizeHint() : widget->size();
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (ext == "png") {
    QImage image(size * 2, QImage::Format_ARGB32);
    image.setDevicePixelRatio(2.0);
    image.fill(Qt::white);
    QPainter painter(&image);
    widget->render(&painter);
    painter.end();
    image.setDotsPerMeterX(7559);  // 192 DPI, as the plots' PNGs
    image.setDotsPerMeterY(7559);
    if (!image.save(&buffer, "PNG")) {
      if (error) *error = QObject::tr("Cannot encode the PNG image.");
      return false;
    }
  } else if (ext == "svg") {
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(widget->windowTitle());
    QPainter painter(&svg);
    widget->render(&painter);
    painter.end();
  } else {
    if (error) *error = QObject::tr("Unknown image format \"%1\" (png or svg).").arg(ext);
    return false;
  }
  return writeBytesFile(path, bytes, error);
}

}  // namespace pha::widgets
