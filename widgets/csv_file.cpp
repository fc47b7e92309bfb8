#include "csv_file.h"

#include <QLocale>
#include <QSaveFile>
#include <charconv>
#include <cmath>

namespace pha::widgets {

QString csvField(const QString& text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')))
    return text;
  QString quoted = text;
  quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString csvNumber(double value) {
  return std::isnan(value) ? QStringLiteral("nan") : QString::number(value, 'g', QLocale::FloatingPointShortest);
}

QString csvNumber(float value) {
  if (std::isnan(value)) return QStringLiteral("nan");
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof(buf), value);
  return QString::fromLatin1(buf, static_cast<int>(r.ptr - buf));
}

bool writeCsvFile(const QString& path, const QString& header, const std::function<void(QTextStream&)>& rows,
                  QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
    if (error) *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  QTextStream out(&file);
  out << header << '\n';
  rows(out);
  out.flush();
  if (!file.commit()) {
    if (error) *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

}  // namespace pha::widgets
