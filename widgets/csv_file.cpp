#include "widgets/csv_file.h"

#include <QLocale>
#include <charconv>
#include <cmath>
#include <exception>

#include "core/atomic_file.h"

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

bool writeBytesFile(const QString& path, const QByteArray& bytes, QString* error) {
  try {
    core::write_file_atomic(path.toStdString(), {std::string_view(bytes.constData(), std::size_t(bytes.size()))});
    return true;
  } catch (const std::exception& e) {  // core::Error naming the file; bad_alloc
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
}

bool writeTextFile(const QString& path, const QString& text, QString* error) {
  return writeBytesFile(path, text.toUtf8(), error);
}

bool writeCsvFile(const QString& path, const QString& header, const std::function<void(QTextStream&)>& rows,
                  QString* error) {
  QString text;
  QTextStream out(&text);
  out << header << '\n';
  rows(out);
  out.flush();
  return writeTextFile(path, text, error);
}

}  // namespace pha::widgets
