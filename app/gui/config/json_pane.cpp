#include "gui/config/json_pane.h"

#include "core/json_syntax.h"

#include <QFontDatabase>
#include <QKeyEvent>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTextBlock>
#include <QVBoxLayout>
#include <algorithm>

namespace pha::gui {

using nlohmann::json;

namespace {

const char* const kErrorColor = "#d93025";

}  // namespace

JsonPane::JsonPane(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_editor = new QPlainTextEdit(this);
  m_editor->setObjectName("jsonEditor");
  m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_editor->setLineWrapMode(QPlainTextEdit::NoWrap);
  m_editor->setTabChangesFocus(true);
  // One undo history for form and text: the editor's own is off, its shortcuts are forwarded.
  m_editor->setUndoRedoEnabled(false);
  m_editor->installEventFilter(this);
  layout->addWidget(m_editor, 1);

  m_error = new QLabel(this);
  m_error->setObjectName("jsonError");
  m_error->setWordWrap(true);
  m_error->setTextFormat(Qt::PlainText);
  m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_error->setStyleSheet(QStringLiteral("color: %1;").arg(QLatin1String(kErrorColor)));
  m_error->hide();
  layout->addWidget(m_error);

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(300);
  connect(&m_debounce, &QTimer::timeout, this, &JsonPane::parse);
  connect(m_editor, &QPlainTextEdit::textChanged, this, [this] {
    if (!m_settingText) m_debounce.start();
  });
}

void JsonPane::setJson(const json& doc) {
  m_debounce.stop();
  const int scroll = m_editor->verticalScrollBar()->value();
  const int position = m_editor->textCursor().position();
  m_settingText = true;
  m_editor->setPlainText(QString::fromStdString(doc.dump(2)));
  m_settingText = false;
  QTextCursor cursor = m_editor->textCursor();
  cursor.setPosition(std::min(position, m_editor->document()->characterCount() - 1));
  m_editor->setTextCursor(cursor);
  m_editor->verticalScrollBar()->setValue(scroll);
  highlightLine(0);
}

QString JsonPane::text() const { return m_editor->toPlainText(); }

void JsonPane::setError(const QString& message, bool outlineEditor) {
  m_error->setText(message.isEmpty() ? QString() : QStringLiteral("⚠ ") + message);
  m_error->setVisible(!message.isEmpty());
  m_editor->setStyleSheet(outlineEditor ? QStringLiteral("QPlainTextEdit { border: 2px solid %1; }")
                                              .arg(QLatin1String(kErrorColor))
                                        : QString());
  if (!outlineEditor) highlightLine(0);
}

QString JsonPane::errorText() const {
  QString text = m_error->text();
  if (text.startsWith(QStringLiteral("⚠ "))) text = text.mid(2);
  return text;
}

bool JsonPane::flush() {
  if (!m_debounce.isActive()) return false;
  m_debounce.stop();
  parse();
  return true;
}

void JsonPane::parse() {
  const std::string text = m_editor->toPlainText().toStdString();
  try {
    json doc = json::parse(text);
    highlightLine(0);
    emit jsonParsed(doc);
  } catch (const json::parse_error& e) {
    // "line 3, column 3: expected ',' or '}'", at the token where parsing stopped.
    const core::JsonSyntaxError error = core::describe_json_syntax_error(text, e);
    highlightLine(error.line);
    emit syntaxErrorFound(QStringLiteral("JSON syntax error, ") + QString::fromStdString(error.text()));
  } catch (const json::exception& e) {  // a number beyond double range (out_of_range 406): said, not thrown
    highlightLine(0);
    emit syntaxErrorFound(QStringLiteral("Not valid JSON: ") + QString::fromUtf8(e.what()));
  }
}

void JsonPane::highlightLine(int line) {
  QList<QTextEdit::ExtraSelection> selections;
  if (line > 0) {
    QTextEdit::ExtraSelection sel;
    sel.format.setBackground(QColor(217, 48, 37, 60));
    sel.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel.cursor = QTextCursor(m_editor->document()->findBlockByNumber(line - 1));
    selections << sel;
  }
  m_editor->setExtraSelections(selections);
}

bool JsonPane::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_editor && (event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress)) {
    auto* key = static_cast<QKeyEvent*>(event);
    const bool undo = key->matches(QKeySequence::Undo), redo = key->matches(QKeySequence::Redo);
    if (undo || redo) {
      // Accepting the override keeps the window's Undo action from also firing.
      if (event->type() == QEvent::ShortcutOverride) {
        event->accept();
        return true;
      }
      flush();
      if (undo) emit undoRequested();
      else emit redoRequested();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace pha::gui
