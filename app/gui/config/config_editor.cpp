#include "gui/config/config_editor.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QTabWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include "gui/config/config_summary.h"
#include "gui/config/json_form.h"
#include "model/presets.h"
#include "gui/config/model_fields.h"
#include "gui/config/processes_setting.h"
#include "gui/config/section_editor.h"
#include "gui/config/training_fields.h"

namespace pha::gui {

using nlohmann::json;

namespace {

// Undo merge ids: model fields from 0, training fields from here.
[[maybe_unused]] constexpr int kTrainingMergeBase = 1000;

SectionEditor::Verdict toVerdict(const ModelCheck& check) { return {check.ok, check.message, check.where}; }

}  // namespace

ConfigEditor::ConfigEditor(QWidget* parent) : QWidget(parent), m_undoStack(new QUndoStack(this)) {
  m_undoAction = new QAction(tr("&Undo"), this);
  m_undoAction->setObjectName("configUndo");
  m_undoAction->setShortcut(QKeySequence::Undo);
  m_undoAction->setEnabled(false);
  m_redoAction = new QAction(tr("&Redo"), this);
  m_redoAction->setObjectName("configRedo");
  m_redoAction->setShortcut(QKeySequence::Redo);
  m_redoAction->setEnabled(false);
  connect(m_undoAction, &QAction::triggered, this, [this] {
    flushPendingText();
    m_undoStack->undo();
  });
  connect(m_redoAction, &QAction::triggered, this, [this] {
    flushPendingText();
    m_undoStack->redo();
  });
  connect(m_undoStack, &QUndoStack::canUndoChanged, m_undoAction, &QAction::setEnabled);
  connect(m_undoStack, &QUndoStack::canRedoChanged, m_redoAction, &QAction::setEnabled);
  connect(m_undoStack, &QUndoStack::undoTextChanged, this, [this](const QString& text) {
    m_undoAction->setText(text.isEmpty() ? tr("&Undo") : tr("&Undo %1").arg(text));
  });
  connect(m_undoStack, &QUndoStack::redoTextChanged, this, [this](const QString& text) {
    m_redoAction->setText(text.isEmpty() ? tr("&Redo") : tr("&Redo %1").arg(text));
  });
  addAction(m_undoAction);
  addAction(m_redoAction);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  m_tabs = new QTabWidget(this);
  m_tabs->setDocumentMode(true);
  m_tabs->addTab(buildModelTab(), tr("Model"));

  // The project's training section, then the window's own "processes" setting under it.
  m_training = buildTrainingTab();
  auto* trainingTab = new QWidget(this);
  auto* column = new QVBoxLayout(trainingTab);
  column->setContentsMargins(0, 0, 0, 0);
  column->addWidget(m_training, 1);
  column->addWidget(new ProcessesSetting(trainingTab));
  m_tabs->addTab(trainingTab, tr("Training"));
  layout->addWidget(m_tabs);

  connect(m_model, &SectionEditor::documentChanged, this, &ConfigEditor::onModelChanged);
  connect(m_training, &SectionEditor::documentChanged, this, &ConfigEditor::onTrainingChanged);
  setTrainingJson(json::object());
  setConfigJson(pha::model::to_json(pha::model::preset("pha-tiny")));
}

QWidget* ConfigEditor::buildModelTab() {
  auto* tab = new QWidget(this);
  auto* layout = new QVBoxLayout(tab);
  layout->setContentsMargins(0, 4, 0, 0);

  auto* presetRow = new QHBoxLayout;
  m_presets = new QComboBox(tab);
  m_presets->setObjectName("presetChooser");
  m_presets->addItem(tr("Load a preset…"));
  for (const auto& name : pha::model::preset_names()) {
    const QString n = QString::fromStdString(name);
    m_presets->addItem(n);
    m_presets->setItemData(m_presets->count() - 1, QString::fromStdString(pha::model::preset_description(name)),
                           Qt::ToolTipRole);
  }
  m_presets->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_presets->setMinimumContentsLength(16);
  connect(m_presets, &QComboBox::activated, this, [this](int index) {
    if (index > 0) loadPreset(m_presets->itemText(index));
    m_presets->setCurrentIndex(0);
  });
  presetRow->addWidget(new QLabel(tr("Preset"), tab));
  presetRow->addWidget(m_presets, 1);
  layout->addLayout(presetRow);

  auto* form = new JsonForm;
  populateModelForm(form);
  SectionEditor::Rules rules;
  rules.prefix = QStringLiteral("model");
  rules.check = [](const json& doc) { return toVerdict(checkModel(doc)); };
  rules.edit = applyModelEdit;
  rules.defaults = modelDefaults;
  rules.adjustForm = adjustModelForm;
  m_model = new SectionEditor(form, rules, m_undoStack, tab);
  m_model->setObjectName("modelEditor");
  layout->addWidget(m_model, 1);

  // The form and JSON take the height; the summary folds to one line under them.
  m_summary = new ConfigSummary(tab);
  m_summary->setObjectName("configSummary");
  layout->addWidget(m_summary);
  return tab;
}

// The training section validates through the runtime (project/project.h).
SectionEditor* ConfigEditor::buildTrainingTab() {
  auto* form = new JsonForm;
  populateTrainingForm(form);
  SectionEditor::Rules rules;
  rules.prefix = QStringLiteral("training");
  rules.mergeBase = kTrainingMergeBase;
  rules.check = [](const json& doc) {
    const TrainingCheck c = checkTraining(doc);
    return SectionEditor::Verdict{c.ok, c.message, c.where};
  };
  rules.defaults = [](const json&) { return trainingDefaults(); };
  auto* editor = new SectionEditor(form, rules, m_undoStack, this);
  editor->setObjectName("trainingEditor");
  return editor;
}

void ConfigEditor::setConfigJson(const json& model) {
  m_model->setDocument(model);
  m_undoStack->clear();
}

json ConfigEditor::configJson() const { return m_configJson; }

bool ConfigEditor::isValid() const { return m_model->isValid(); }

QString ConfigEditor::errorText() const { return m_model->errorText(); }

void ConfigEditor::setTrainingJson(const json& training) {
  m_training->setDocument(training);
  m_undoStack->clear();
}

json ConfigEditor::trainingJson() const { return m_trainingJson; }

bool ConfigEditor::isTrainingValid() const { return m_training->isValid(); }

QString ConfigEditor::trainingErrorText() const { return m_training->errorText(); }

bool ConfigEditor::hasUnsavedEdits() const { return !m_undoStack->isClean(); }

void ConfigEditor::markSaved() { m_undoStack->setClean(); }

bool ConfigEditor::loadPreset(const QString& name) {
  json doc;
  try {
    doc = pha::model::to_json(pha::model::preset(name.toStdString()));
  } catch (const std::exception&) {
    return false;
  }
  m_model->pushDocument(tr("Load preset %1").arg(name), doc);
  return true;
}

void ConfigEditor::flushPendingText() {
  m_model->flushPendingText();
  m_training->flushPendingText();
}

void ConfigEditor::onModelChanged(const json& doc, bool valid) {
  if (valid) {
    const ModelCheck check = checkModel(doc);
    m_config = check.config;
    json normalized = pha::model::to_json(m_config);
    if (normalized != m_configJson) {
      m_configJson = normalized;
      emit configChanged(m_configJson);
    }
  }
  m_summary->setConfig(m_config, /*stale=*/!valid);
  const bool validity = valid && isTrainingValid();
  if (validity != m_lastValidity) {
    m_lastValidity = validity;
    emit validityChanged(validity);
  }
}

void ConfigEditor::onTrainingChanged(const json& doc, bool valid) {
  if (valid && doc != m_trainingJson) {
    m_trainingJson = doc;
    emit trainingChanged(m_trainingJson);
  }
  const bool validity = valid && m_model->isValid();
  if (validity != m_lastValidity) {
    m_lastValidity = validity;
    emit validityChanged(validity);
  }
}

QString ConfigEditor::quitQuestion() const {
  const QString state = isValid() && isTrainingValid()
                            ? tr("They are in no project.")
                            : tr("They are not valid (%1) and are in no project.").arg(!isValid() ? errorText() : trainingErrorText());
  return tr("The Configuration dock has unsaved edits. %1 Quit and lose them?").arg(state);
}

}  // namespace pha::gui
