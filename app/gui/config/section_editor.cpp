#include "gui/config/section_editor.h"

#include <QKeyEvent>
#include <QPlainTextEdit>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSplitter>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>

#include "gui/config/document_command.h"
#include "gui/config/json_form.h"
#include "gui/config/json_pane.h"

namespace pha::gui {

using nlohmann::json;

namespace {

// Below this width form and JSON stack vertically.
constexpr int kSideBySideWidth = 760;  // the form beside its JSON only when it gets ~340 px

QString shortValue(const json& value) {
  QString text = QString::fromStdString(value.dump());
  return text.size() > 40 ? text.left(37) + QStringLiteral("...") : text;
}

}  // namespace

SectionEditor::SectionEditor(JsonForm* form, Rules rules, QUndoStack* stack, QWidget* parent)
    : QWidget(parent), m_form(form), m_rules(std::move(rules)), m_stack(stack) {
  if (!m_rules.edit) {
    m_rules.edit = [](const json& doc, const QString& key, const json& value) {
      json out = doc.is_object() ? doc : json::object();
      out[jsonPointer(key)] = value;
      return out;
    };
  }
  if (!m_rules.defaults) m_rules.defaults = [](const json&) { return json::object(); };

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_splitter = new QSplitter(Qt::Horizontal, this);
  m_splitter->setChildrenCollapsible(false);
  auto* scroll = new QScrollArea(m_splitter);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(m_form);
  m_pane = new JsonPane(m_splitter);
  m_splitter->addWidget(scroll);
  m_splitter->addWidget(m_pane);
  m_splitter->setStretchFactor(0, 2);  // the form grows first
  m_splitter->setStretchFactor(1, 1);
  layout->addWidget(m_splitter);

  connect(m_form, &JsonForm::fieldEdited, this, &SectionEditor::onFieldEdited);
  connect(m_pane, &JsonPane::jsonParsed, this, &SectionEditor::onJsonParsed);
  connect(m_pane, &JsonPane::syntaxErrorFound, this, &SectionEditor::onSyntaxError);
  connect(m_pane, &JsonPane::undoRequested, m_stack, &QUndoStack::undo);
  connect(m_pane, &JsonPane::redoRequested, m_stack, &QUndoStack::redo);
  // Ctrl+Z in a spin box would undo its own text; route it to the shared history instead.
  for (const QString& key : m_form->keys()) m_form->fieldWidget(key)->installEventFilter(this);
}

void SectionEditor::setDocument(const json& doc) { applyDocument(doc, true); }

void SectionEditor::pushDocument(const QString& commandText, const json& doc) {
  flushPendingText();
  if (doc == m_doc) {
    applyDocument(doc, true);  // drops a syntax error the text may still hold
    return;
  }
  push(commandText, doc, -1, false);
}

void SectionEditor::flushPendingText() { m_pane->flush(); }

void SectionEditor::onFieldEdited(const QString& key, const json& value) {
  // Typed text waiting for the debounce becomes its own step before the form's edit.
  flushPendingText();
  json after;
  try {
    after = m_rules.edit(m_doc, key, value);
  } catch (const std::exception& e) {
    m_verdict = {false, QString::fromStdString(e.what()), m_rules.prefix + QLatin1Char('.') + key};
    revalidate();
    return;
  }
  if (after == m_doc) return;
  push(tr("Set %1 to %2").arg(key, shortValue(value)), after, m_rules.mergeBase + m_form->fieldIndex(key), false);
}

void SectionEditor::onJsonParsed(const json& doc) {
  if (doc == m_doc) {
    // Same document (only spacing changed, or a syntax error was fixed back): no new step.
    m_syntaxError.clear();
    revalidate();
    return;
  }
  push(tr("Edit %1 JSON").arg(m_rules.prefix), doc, -1, true);
}

void SectionEditor::onSyntaxError(const QString& message) {
  m_syntaxError = message;
  revalidate();
}

void SectionEditor::push(const QString& text, const json& after, int mergeId, bool fromText) {
  auto apply = [this, fromText](const json& doc, bool firstRedo) { applyDocument(doc, !(fromText && firstRedo)); };
  m_stack->push(new DocumentCommand(text, m_doc, after, apply, mergeId));
}

void SectionEditor::applyDocument(const json& doc, bool rewriteText) {
  m_doc = doc;
  m_syntaxError.clear();
  if (rewriteText) m_pane->setJson(m_doc);
  m_verdict = m_rules.check ? m_rules.check(m_doc) : Verdict{true, {}, {}};
  m_form->setDocument(m_doc, m_rules.defaults(m_doc));
  if (m_rules.adjustForm) m_rules.adjustForm(m_form, m_doc);
  revalidate();
}

void SectionEditor::revalidate() {
  if (!m_syntaxError.isEmpty()) {
    m_form->clearInvalid();
    m_pane->setError(m_syntaxError, /*outlineEditor=*/true);
  } else if (!m_verdict.ok) {
    const QString key = m_form->fieldForPath(m_verdict.where, m_rules.prefix);
    if (key.isEmpty()) m_form->clearInvalid();
    else m_form->markInvalid(key, m_verdict.message);
    m_pane->setError(m_verdict.message);
  } else {
    m_form->clearInvalid();
    m_pane->setError(QString());
  }
  emit documentChanged(m_doc, isValid());
}

void SectionEditor::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  const Qt::Orientation wanted = event->size().width() < kSideBySideWidth ? Qt::Vertical : Qt::Horizontal;
  if (m_splitter->orientation() == wanted) return;
  m_splitter->setOrientation(wanted);
  // Side by side the form needs little width and the JSON gets the rest; stacked (a dock of
  // 400-500 px), the form gets two thirds of the height: it is what people edit, the JSON a view.
  const int total = wanted == Qt::Horizontal ? event->size().width() : event->size().height();
  const int first = wanted == Qt::Horizontal ? std::min(480, total * 45 / 100) : total * 2 / 3;
  m_splitter->setSizes({first, std::max(1, total - first)});
}

bool SectionEditor::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::ShortcutOverride || event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    const bool undo = key->matches(QKeySequence::Undo), redo = key->matches(QKeySequence::Redo);
    if (undo || redo) {
      if (event->type() == QEvent::KeyPress) {
        flushPendingText();
        if (undo) m_stack->undo();
        else m_stack->redo();
      }
      event->accept();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace pha::gui
