// CSV output shared by every export of the window (curves, mixer snapshots, compare data):
// RFC 4180 quoting, numbers written shortest-exact (NaN as "nan"), files written atomically
// through the engine's one writer (pha::write_file_atomic, core/atomic_file.h: fsync, rename)
// so a failed export never leaves half a file. Errors come back as text.
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
// Writes `text` (UTF-8) to `path` atomically (pha::write_file_atomic); false with the error
// (naming the file) in `error` when it cannot. Every CSV, HTML and text export of the window
// lands here (images go through QImage::save).
bool writeTextFile(const QString& path, const QString& text, QString* error = nullptr);
bool writeBytesFile(const QString& path, const QByteArray& bytes, QString* error = nullptr);
// Writes `header`, a line break, then whatever `rows` writes, to `path` atomically.
bool writeCsvFile(const QString& path, const QString& header, const std::function<void(QTextStream&)>& rows,
                  QString* error = nullptr);

}  // namespace pha::widgets
