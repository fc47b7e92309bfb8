// The raw JSON beside a form: a monospace editor that parses what the user types after a short
// pause (debounced), and an error line under it. It reports parsed documents and syntax errors;
// validation and undo belong to the editor that owns it. Ctrl+Z / Ctrl+Shift+Z typed here are
// passed on (undoRequested / redoRequested) so form and text share one undo history.
#pragma once

#include <QString>
#include <QTimer>
#include <QWidget>

#include <nlohmann/json.hpp>

class QLabel;
class QPlainTextEdit;

namespace pha::gui {

class JsonPane : public QWidget {
  Q_OBJECT

 public:
  explicit JsonPane(QWidget* parent = nullptr);

  // Replaces the text with `doc` (indented), keeping the scroll position; drops a pending parse.
  void setJson(const nlohmann::json& doc);
  QString text() const;
  // Shown under the editor in red; an empty text hides it. `outlineEditor` draws the editor's
  // red outline (for syntax errors, which no form field can show).
  void setError(const QString& message, bool outlineEditor = false);
  QString errorText() const;
  // Parses now if an edit is waiting for the debounce timer; true when one was.
  bool flush();
  bool isPending() const { return m_debounce.isActive(); }
  QPlainTextEdit* editor() const { return m_editor; }

 signals:
  void jsonParsed(const nlohmann::json& doc);      // every successful parse of typed text
  void syntaxErrorFound(const QString& message);   // "JSON syntax error, line 3, column 3: expected ',' or '}'"
  void undoRequested();
  void redoRequested();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void parse();
  void highlightLine(int line);  // 1-based; 0 clears

  QPlainTextEdit* m_editor = nullptr;
  QLabel* m_error = nullptr;
  QTimer m_debounce;
  bool m_settingText = false;
};

}  // namespace pha::gui
