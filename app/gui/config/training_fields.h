// The training section's side of the configuration editor: its form fields (keys as in
// docs/project-format.md, "training"), the values absent keys stand for, and the runtime's
// verdict (pha::runtime::TrainingConfig::from_json, plain C++).
#pragma once

#include <QString>

#include <nlohmann/json.hpp>

namespace pha::gui {

class JsonForm;

void populateTrainingForm(JsonForm* form);

// Every training key with its default value.
nlohmann::json trainingDefaults();

struct TrainingCheck {
  bool ok = false;
  QString message;  // "training.warmup_steps: 500 is more than training.steps (300)"
  QString where;    // "training.warmup_steps"
};

TrainingCheck checkTraining(const nlohmann::json& doc);

}  // namespace pha::gui
