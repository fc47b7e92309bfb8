// Export of a view that is not a QCustomPlot (the Lens dock's token text): PNG from the
// widget's own drawing at 2x, SVG through QSvgGenerator and QWidget::render. By extension;
// errors come back as text, nothing throws.
#pragma once

#include <QString>

class QWidget;

namespace pha::widgets {

bool exportWidgetImage(QWidget* widget, const QString& path, QString* error = nullptr);

}  // namespace pha::widgets
