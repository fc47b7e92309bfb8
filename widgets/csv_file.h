// CSV output shared by every export of the window (curves, mixer snapshots, compare data):
// RFC 4180 quoting, numbers written shortest-exact (NaN as "nan"), files written atomically
// through QSaveFile so a failed export never leaves half a file. Errors come back as text.
#pragma once

#include <QString>
#include <QTextStream>
#include <functional>

namespace pha::widgets {

// RFC 4180 quoting for one field (quoted only when it holds a comma, quote or line break).
QString csvField(const QString& text);
// Shortest text that reads back as the same double; "nan" for NaN; "" for an absent value is
// the caller's choice.
QString csvNumber(double value);
// The same for float32 values (mixer weights): the shortest text of the float, "0.33" rather
// than the double 0.33000001311302185 it widens to.
QString csvNumber(float value);
// Writes `header`, a line break, then whatever `rows` writes, to `path` atomically.
bool writeCsvFile(const QString& path, const QString& header, const std::function<void(QTextStream&)>& rows,
                  QString* error = nullptr);

}  // namespace pha::widgets
