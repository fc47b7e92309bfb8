// One config section ("model", "training") edited two ways at once: a JsonForm and the raw JSON
// beside it (a JsonPane), kept in sync both ways. Every form edit and every parsed JSON edit is
// an undoable DocumentCommand on a shared QUndoStack. The section's checker (the engine's
// validation) runs on every change; its error is shown under the JSON and outlines the form field
// it names. The splitter stands form and JSON side by side when wide, one above the other when
// narrow (a dock of 400-500 px).
#pragma once

#include <QString>
#include <QWidget>
#include <functional>

#include <nlohmann/json.hpp>

class QSplitter;
class QUndoStack;

namespace pha::gui {

class JsonForm;
class JsonPane;

class SectionEditor : public QWidget {
  Q_OBJECT

 public:
  struct Verdict {
    bool ok = false;
    QString message;  // the full error: "model.attention.kv_heads: 3 must divide ..."
    QString where;    // the field path it names: "model.attention.kv_heads"
  };
  struct Rules {
    QString prefix;  // field paths in errors start with it ("model")
    int mergeBase = 0;  // undo merge ids of this section: mergeBase + field index
    std::function<Verdict(const nlohmann::json& doc)> check;
    // The document after a form edit (default: the key set, nothing else touched).
    std::function<nlohmann::json(const nlohmann::json& doc, const QString& key, const nlohmann::json& value)> edit;
    // Values the form shows for keys the document leaves out.
    std::function<nlohmann::json(const nlohmann::json& doc)> defaults;
    // Called after the form shows a document (enable or disable fields that depend on others).
    std::function<void(JsonForm* form, const nlohmann::json& doc)> adjustForm;
  };

  // `form` is populated by the caller; this editor takes ownership.
  SectionEditor(JsonForm* form, Rules rules, QUndoStack* stack, QWidget* parent = nullptr);

  // Programmatic load: no undo command.
  void setDocument(const nlohmann::json& doc);
  // An undoable replacement of the whole document (loading a preset).
  void pushDocument(const QString& commandText, const nlohmann::json& doc);
  const nlohmann::json& document() const { return m_doc; }
  bool isValid() const { return m_verdict.ok && m_syntaxError.isEmpty(); }
  QString errorText() const { return m_syntaxError.isEmpty() ? m_verdict.message : m_syntaxError; }
  // Parses typed JSON now instead of after the debounce pause.
  void flushPendingText();

  JsonForm* form() const { return m_form; }
  JsonPane* jsonPane() const { return m_pane; }
  QSplitter* splitter() const { return m_splitter; }

 signals:
  // After every change of the document or of its validity (edit, undo, redo, load).
  void documentChanged(const nlohmann::json& doc, bool valid);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void onFieldEdited(const QString& key, const nlohmann::json& value);
  void onJsonParsed(const nlohmann::json& doc);
  void onSyntaxError(const QString& message);
  void push(const QString& text, const nlohmann::json& after, int mergeId, bool fromText);
  // Puts `doc` in effect; `rewriteText` false keeps the user's typed text as it is.
  void applyDocument(const nlohmann::json& doc, bool rewriteText);
  void revalidate();

  JsonForm* m_form;
  JsonPane* m_pane;
  QSplitter* m_splitter;
  Rules m_rules;
  QUndoStack* m_stack;
  nlohmann::json m_doc = nlohmann::json::object();
  Verdict m_verdict;
  QString m_syntaxError;
};

}  // namespace pha::gui
