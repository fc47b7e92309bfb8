// The Configuration dock's content: the model section of a run config as a form and as raw
// JSON side by side (kept in sync, validated as the user types, undo/redo), a preset chooser,
// and a live summary of parameters, FLOPs per token per branch and memory. A second tab edits
// the training section the same way. Engine headers only (no torch): model/model_config.h,
// model/flops.h, model/presets.h, project/project.h.
#pragma once

#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

#include "model/model_config.h"

class QAction;
class QComboBox;
class QTabWidget;
class QUndoStack;

namespace pha::gui {

class ConfigSummary;
class SectionEditor;

class ConfigEditor : public QWidget {
  Q_OBJECT

 public:
  explicit ConfigEditor(QWidget* parent = nullptr);

  // Loads a model section (a project's or a run's "model"); clears the undo history. An invalid
  // section is shown with its error; the config in effect is then the previous valid one.
  void setConfigJson(const nlohmann::json& model);
  // The model section in effect: the last valid one, normalized (every key written).
  nlohmann::json configJson() const;
  const pha::model::ModelConfig& config() const { return m_config; }
  // Whether the model section as shown (form and text) is valid.
  bool isValid() const;
  // The model section's current error ("model.attention.kv_heads: 3 must divide ..."), or "".
  QString errorText() const;

  // The training section ({"steps": ..., "lr": ...}) on a second tab, the same way as the model
  // section, validated by the runtime's TrainingConfig rules.
  void setTrainingJson(const nlohmann::json& training);
  nlohmann::json trainingJson() const;  // the last valid one as written
  bool isTrainingValid() const;
  QString trainingErrorText() const;

  // Edits since the last load (setConfigJson / setTrainingJson) or markSaved(): the undo stack
  // is not at its clean index. Valid or not, such edits are in no project until added as a variant.
  bool hasUnsavedEdits() const;
  // What quitting with unsaved edits would lose, as the question the window asks.
  QString quitQuestion() const;
  void markSaved();

  // Loads a preset as one undoable step; false (and nothing changes) for an unknown name.
  bool loadPreset(const QString& name);

  QUndoStack* undoStack() const { return m_undoStack; }
  // Undo / Redo with QKeySequence::Undo / Redo; they first commit JSON typed a moment ago.
  QAction* undoAction() const { return m_undoAction; }
  QAction* redoAction() const { return m_redoAction; }

  SectionEditor* modelEditor() const { return m_model; }
  SectionEditor* trainingEditor() const { return m_training; }
  ConfigSummary* summary() const { return m_summary; }
  QComboBox* presetChooser() const { return m_presets; }

 signals:
  // A new valid model config took effect (after an edit, undo, redo or load).
  void configChanged(const nlohmann::json& model);
  void trainingChanged(const nlohmann::json& training);
  // The model or training section became valid or invalid.
  void validityChanged(bool valid);

 private:
  QWidget* buildModelTab();
  SectionEditor* buildTrainingTab();
  void onModelChanged(const nlohmann::json& doc, bool valid);
  void onTrainingChanged(const nlohmann::json& doc, bool valid);
  void flushPendingText();

  QUndoStack* m_undoStack = nullptr;
  QAction* m_undoAction = nullptr;
  QAction* m_redoAction = nullptr;
  QTabWidget* m_tabs = nullptr;
  QComboBox* m_presets = nullptr;
  SectionEditor* m_model = nullptr;
  SectionEditor* m_training = nullptr;
  ConfigSummary* m_summary = nullptr;
  pha::model::ModelConfig m_config;
  nlohmann::json m_configJson;
  nlohmann::json m_trainingJson;
  bool m_lastValidity = true;
};

}  // namespace pha::gui
