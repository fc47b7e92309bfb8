#include "widgets/number_format.h"

#include <cmath>

namespace pha::widgets {

namespace {

// Three significant digits without trailing zeros: 1.23, 12.3, 123, 1.5.
QString significant(double v) {
  const double a = std::fabs(v);
  const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  QString s = QString::number(v, 'f', decimals);
  if (s.contains('.')) {
    while (s.endsWith('0')) s.chop(1);
    if (s.endsWith('.')) s.chop(1);
  }
  return s;
}

QString scaled(double v, double base, const char* const* prefixes, int count, const QString& unit) {
  if (!std::isfinite(v)) return QStringLiteral("—");
  int i = 0;
  double x = v;
  while (i + 1 < count && std::fabs(x) >= base * 0.9995) {  // 999.6 k reads as 1 M, not 1000 k
    x /= base;
    ++i;
  }
  QString text = significant(x);
  const QString prefix = QString::fromLatin1(prefixes[i]);
  if (prefix.isEmpty() && unit.isEmpty()) return text;
  return text + QLatin1Char(' ') + prefix + unit;
}

}  // namespace

QString formatCount(double n) {
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T"};
  return scaled(n, 1000.0, kPrefixes, 5, QString());
}

QString formatFlops(double f) {
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T", "P"};
  return scaled(f, 1000.0, kPrefixes, 6, QStringLiteral("FLOP"));
}

QString formatBytes(double b) {
  static const char* const kPrefixes[] = {"", "Ki", "Mi", "Gi", "Ti"};
  return scaled(b, 1024.0, kPrefixes, 5, QStringLiteral("B"));
}

}  // namespace pha::widgets
