#include "gui/config/document_command.h"

namespace pha::gui {

DocumentCommand::DocumentCommand(const QString& text, nlohmann::json before, nlohmann::json after, Apply apply,
                                 int mergeId)
    : QUndoCommand(text),
      m_before(std::move(before)),
      m_after(std::move(after)),
      m_apply(std::move(apply)),
      m_mergeId(mergeId) {}

void DocumentCommand::undo() { m_apply(m_before, false); }

void DocumentCommand::redo() {
  // The first redo runs when the command is pushed: the edit is already on screen where the
  // user made it (the form field or the typed text), so the owner need not rewrite that view.
  m_apply(m_after, m_firstRedo);
  m_firstRedo = false;
}

bool DocumentCommand::mergeWith(const QUndoCommand* other) {
  if (other->id() != id() || id() < 0) return false;
  const auto* next = static_cast<const DocumentCommand*>(other);
  if (next->m_before != m_after) return false;  // not consecutive (defensive)
  m_after = next->m_after;
  setText(next->text());  // "Set d_model to 64", not the first keystroke's "... to 6"
  setObsolete(m_after == m_before);
  return true;
}

}  // namespace pha::gui
