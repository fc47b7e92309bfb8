// One undoable edit of a JSON document (a config section): the document before and after, and
// the function that puts a document in effect. Consecutive edits of the same form field merge
// into one step (mergeId >= 0); an edit that merges back to where it started drops out.
#pragma once

#include <QUndoCommand>
#include <functional>

#include <nlohmann/json.hpp>

namespace pha::gui {

class DocumentCommand : public QUndoCommand {
 public:
  using Apply = std::function<void(const nlohmann::json& doc, bool firstRedo)>;

  DocumentCommand(const QString& text, nlohmann::json before, nlohmann::json after, Apply apply,
                  int mergeId = -1);

  void undo() override;
  void redo() override;
  int id() const override { return m_mergeId; }
  bool mergeWith(const QUndoCommand* other) override;

  const nlohmann::json& before() const { return m_before; }
  const nlohmann::json& after() const { return m_after; }

 private:
  nlohmann::json m_before;
  nlohmann::json m_after;
  Apply m_apply;
  int m_mergeId;
  bool m_firstRedo = true;
};

}  // namespace pha::gui
