// Shared helpers for the configuration editor tests: find the editor's parts the way a user
// sees them (by field key / object name) and read the JSON text back.
#pragma once

#include <QComboBox>
#include <QPlainTextEdit>
#include <QSpinBox>

#include <nlohmann/json.hpp>

#include "gui/config/config_editor.h"
#include "gui/config/json_form.h"
#include "gui/config/json_pane.h"
#include "gui/config/section_editor.h"

namespace pha::gui::test {

inline JsonForm* modelForm(ConfigEditor& e) { return e.modelEditor()->form(); }
inline JsonPane* modelPane(ConfigEditor& e) { return e.modelEditor()->jsonPane(); }

inline QSpinBox* spin(ConfigEditor& e, const char* key) {
  return qobject_cast<QSpinBox*>(modelForm(e)->fieldWidget(QString::fromLatin1(key)));
}

inline QComboBox* combo(ConfigEditor& e, const char* key) {
  return qobject_cast<QComboBox*>(modelForm(e)->fieldWidget(QString::fromLatin1(key)));
}

// The JSON editor's text, parsed (null when it does not parse).
inline nlohmann::json shownJson(ConfigEditor& e) {
  return nlohmann::json::parse(modelPane(e)->text().toStdString(), nullptr, /*allow_exceptions=*/false);
}

// Replaces the JSON text as typing would and lets the debounce fire at once.
inline void typeJson(ConfigEditor& e, const QString& text) {
  modelPane(e)->editor()->setPlainText(text);
  modelPane(e)->flush();
}

// Picks a combo entry as the user would (activated fires only on user choices).
inline void choose(QComboBox* box, const QString& text) {
  const int index = box->findText(text);
  box->setCurrentIndex(index);
  emit box->activated(index);
}

}  // namespace pha::gui::test
