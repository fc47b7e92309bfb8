// SearchForm: the open project's "search" section as a form, with the JSON's fields
// (docs/search.md): the base variants, the space (an editable JSON text: a structured editor
// for choice lists and ranges is not built), the layer patterns (generated from constraints, or
// an explicit list as JSON text), the budget, one or two objectives, seeds, sampler,
// equal_params and threads. Save writes the section back to project.json (runtime::write_search_section:
// the engine validates it first; its core::Error, naming the field, is shown under the form and
// nothing is written). Fields left as loaded keep their JSON exactly as written (an objective
// given as {"metric", "direction"} stays so), and keys the form does not know are kept.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <nlohmann/json.hpp>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace pha::project {
struct SearchSectionFile;  // project/project_search.h
}

namespace pha::gui {

class SearchForm : public QWidget {
  Q_OBJECT
 public:
  explicit SearchForm(QWidget* parent = nullptr);

  // Shows `file`'s section (or, when it has none, a proposal to add: runtime::default_search_section).
  void load(const QString& projectDir, const project::SearchSectionFile& file);
  void clear(const QString& message);
  // The section the form describes now (the loaded JSON with the edited fields replaced); null
  // with *error when a JSON text field does not parse.
  nlohmann::json sectionJson(QString* error = nullptr) const;
  // Writes sectionJson() to project.json; false with errorText() (the engine's message).
  bool save();
  void revert();
  void setEditable(bool on, const QString& why = {});  // off while the search runs
  QString errorText() const { return m_error; }
  bool hasSection() const { return m_hasSection; }

  // For tests and scripts: the widgets by field.
  QSpinBox* etaSpin() const { return m_eta; }
  QLineEdit* minEdit() const { return m_min; }
  QLineEdit* maxEdit() const { return m_max; }
  QPlainTextEdit* spaceEdit() const { return m_space; }

 signals:
  void saved();  // project.json has the new section

 private:
  void build();
  QWidget* buildPatterns();
  QWidget* buildBudget();
  QWidget* buildObjectives();
  void fill(const nlohmann::json& section);
  void fillPatterns(const nlohmann::json& patterns);
  nlohmann::json formValues(QString* error) const;  // every managed key as the form has it
  nlohmann::json patternsJson(QString* error) const;
  void showError(const QString& text);
  void updateEnabled();

  QString m_dir;
  nlohmann::json m_loaded;      // the section as read (or the proposal)
  nlohmann::json m_loadedForm;  // formValues() right after loading: what "unchanged" means
  bool m_hasSection = false;
  bool m_editable = true;
  QString m_error;
  std::vector<std::string> m_variantNames;

  QLabel* m_note = nullptr;
  QListWidget* m_variants = nullptr;
  QPlainTextEdit* m_space = nullptr;
  QComboBox* m_patternMode = nullptr;
  QSpinBox* m_nLayers = nullptr;
  QList<QCheckBox*> m_kinds;
  QCheckBox* m_attnLimit = nullptr;
  QSpinBox* m_attnMin = nullptr;
  QSpinBox* m_attnMax = nullptr;
  QComboBox* m_first = nullptr;
  QComboBox* m_last = nullptr;
  QCheckBox* m_symmetric = nullptr;
  QSpinBox* m_patternMax = nullptr;
  QPlainTextEdit* m_patternList = nullptr;
  QWidget* m_generated = nullptr;
  QComboBox* m_resource = nullptr;
  QLineEdit* m_min = nullptr;
  QLineEdit* m_max = nullptr;
  QSpinBox* m_eta = nullptr;
  QSpinBox* m_brackets = nullptr;
  QSpinBox* m_concurrency = nullptr;
  QComboBox* m_objective1 = nullptr;
  QComboBox* m_objective2 = nullptr;
  QLineEdit* m_seeds = nullptr;
  QComboBox* m_sampler = nullptr;
  QSpinBox* m_samplerSeed = nullptr;
  QSpinBox* m_samplerTrials = nullptr;
  QCheckBox* m_equal = nullptr;
  QLineEdit* m_equalTarget = nullptr;
  QLineEdit* m_equalPreset = nullptr;
  QDoubleSpinBox* m_equalTolerance = nullptr;
  QSpinBox* m_threads = nullptr;
  QLabel* m_errorLabel = nullptr;
  QPushButton* m_save = nullptr;
  QPushButton* m_revert = nullptr;
};

}  // namespace pha::gui
