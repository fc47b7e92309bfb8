#include "gui/search/search_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "search/search_space.h"
#include "project/project_search.h"

namespace pha::gui {

using nlohmann::json;

namespace {

const char* const kManaged[] = {"variants", "space",   "patterns",     "budget", "objective",
                                "seeds",    "sampler", "equal_params", "threads"};

QString jsonText(const json& v) { return v.is_null() ? QString() : QString::fromStdString(v.dump(2)); }

// A number as typed, else the text itself: the engine's validation names the field and what is
// allowed ("search.budget.min: expected a number, got \"abc\"").
json numberOrText(const QString& text) {
  bool ok = false;
  const QString t = text.trimmed();
  const qlonglong i = t.toLongLong(&ok);
  if (ok) return json(static_cast<std::int64_t>(i));
  const double d = t.toDouble(&ok);
  if (ok) return json(d);
  return json(t.toStdString());
}

QString numberText(const json& v) {
  if (v.is_number_integer()) return QString::number(v.get<std::int64_t>());
  if (v.is_number()) return QString::number(v.get<double>(), 'g', 12);
  if (v.is_string()) return QString::fromStdString(v.get<std::string>());
  return {};
}

QSpinBox* spin(int lo, int hi, int value, QWidget* parent) {
  auto* s = new QSpinBox(parent);
  s->setRange(lo, hi);
  s->setValue(value);
  return s;
}

QComboBox* editableCombo(const QStringList& items, QWidget* parent) {
  auto* c = new QComboBox(parent);
  c->setEditable(true);
  c->addItems(items);
  return c;
}

QString metricOf(const json& o) {
  if (o.is_string()) return QString::fromStdString(o.get<std::string>());
  if (o.is_object() && o.contains("metric") && o["metric"].is_string())
    return QString::fromStdString(o["metric"].get<std::string>());
  return {};
}

}  // namespace

SearchForm::SearchForm(QWidget* parent) : QWidget(parent) { build(); }

void SearchForm::build() {
  auto* layout = new QVBoxLayout(this);
  m_note = new QLabel(this);
  m_note->setObjectName("searchFormNote");
  m_note->setWordWrap(true);
  layout->addWidget(m_note);
  auto* grid = new QGridLayout;
  layout->addLayout(grid, 1);

  auto* variantsBox = new QGroupBox(tr("Base variants (variants)"), this);
  auto* vl = new QVBoxLayout(variantsBox);
  m_variants = new QListWidget(variantsBox);
  m_variants->setObjectName("searchVariants");
  m_variants->setMaximumHeight(90);
  m_variants->setToolTip(tr("Each ticked variant is searched on its own ladder; none ticked: the project's first "
                            "variant"));
  vl->addWidget(m_variants);
  grid->addWidget(variantsBox, 0, 0);

  auto* spaceBox = new QGroupBox(tr("Space (space, JSON)"), this);
  auto* sl = new QVBoxLayout(spaceBox);
  m_space = new QPlainTextEdit(spaceBox);
  m_space->setObjectName("searchSpace");
  m_space->setPlaceholderText(
      "{\"training.lr\": [0.001, 0.003], \"training.warmup_steps\": {\"int\": [10, 40]},\n"
      " \"model.gss.state\": {\"log_uniform\": [16, 64]}}");
  m_space->setToolTip(tr("model.* and training.* keys, each a list of choices or {\"uniform\" | \"log_uniform\" | "
                         "\"int\": [lo, hi]} (docs/search.md); empty: no key varies"));
  m_space->setMinimumHeight(80);
  sl->addWidget(m_space);
  grid->addWidget(spaceBox, 1, 0);
  grid->addWidget(buildPatterns(), 2, 0);
  grid->addWidget(buildBudget(), 0, 1);
  grid->addWidget(buildObjectives(), 1, 1, 2, 1);
  grid->setColumnStretch(0, 1);
  grid->setColumnStretch(1, 1);

  m_errorLabel = new QLabel(this);
  m_errorLabel->setObjectName("searchFormError");
  m_errorLabel->setWordWrap(true);
  m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_errorLabel->setStyleSheet("color: #d55e00;");  // vermilion, as the window's other warnings
  m_errorLabel->hide();
  layout->addWidget(m_errorLabel);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  m_revert = new QPushButton(tr("Revert"), this);
  m_revert->setObjectName("searchRevert");
  m_revert->setToolTip(tr("Show the section as project.json has it"));
  m_save = new QPushButton(tr("Save to project.json"), this);
  m_save->setObjectName("searchSave");
  m_save->setToolTip(tr("The engine checks the section first; a refused one writes nothing and the message names "
                        "the field"));
  buttons->addWidget(m_revert);
  buttons->addWidget(m_save);
  layout->addLayout(buttons);
  connect(m_save, &QPushButton::clicked, this, &SearchForm::save);
  connect(m_revert, &QPushButton::clicked, this, &SearchForm::revert);
  connect(m_patternMode, &QComboBox::currentIndexChanged, this, &SearchForm::updateEnabled);
  connect(m_sampler, &QComboBox::currentIndexChanged, this, &SearchForm::updateEnabled);
  connect(m_equal, &QCheckBox::toggled, this, &SearchForm::updateEnabled);
  connect(m_attnLimit, &QCheckBox::toggled, this, &SearchForm::updateEnabled);
  connect(m_brackets, &QSpinBox::valueChanged, this, &SearchForm::updateEnabled);
  updateEnabled();
}

QWidget* SearchForm::buildPatterns() {
  auto* box = new QGroupBox(tr("Layer patterns (patterns)"), this);
  auto* l = new QVBoxLayout(box);
  m_patternMode = new QComboBox(box);
  m_patternMode->setObjectName("searchPatternMode");
  m_patternMode->addItem(tr("none (the base variant's layers)"), "none");
  m_patternMode->addItem(tr("generated from constraints"), "generated");
  m_patternMode->addItem(tr("listed (JSON list of patterns)"), "list");
  l->addWidget(m_patternMode);
  m_generated = new QWidget(box);
  auto* f = new QFormLayout(m_generated);
  f->setContentsMargins(0, 0, 0, 0);
  m_nLayers = spin(1, 64, 8, m_generated);
  f->addRow(tr("Layers (n_layers)"), m_nLayers);
  auto* kinds = new QGridLayout;
  int i = 0;
  for (const std::string& k : search::layer_kind_tokens()) {
    auto* c = new QCheckBox(QString::fromStdString(k), m_generated);
    c->setProperty("kind", QString::fromStdString(k));
    m_kinds << c;
    kinds->addWidget(c, i / 4, i % 4);
    ++i;
  }
  f->addRow(tr("Kinds (kinds)"), kinds);
  auto* attn = new QHBoxLayout;
  m_attnLimit = new QCheckBox(tr("limit"), m_generated);
  m_attnMin = spin(0, 64, 1, m_generated);
  m_attnMax = spin(0, 64, 2, m_generated);
  attn->addWidget(m_attnLimit);
  attn->addWidget(m_attnMin);
  attn->addWidget(new QLabel(tr("to"), m_generated));
  attn->addWidget(m_attnMax);
  attn->addStretch(1);
  f->addRow(tr("Attention layers (attention)"), attn);
  auto fixed = [this](QWidget* parent) {
    auto* c = new QComboBox(parent);
    c->addItem(tr("free"), QString());
    for (const std::string& k : search::layer_kind_tokens()) c->addItem(QString::fromStdString(k), QString::fromStdString(k));
    return c;
  };
  m_first = fixed(m_generated);
  m_last = fixed(m_generated);
  auto* ends = new QHBoxLayout;
  ends->addWidget(m_first);
  ends->addWidget(new QLabel(tr("last"), m_generated));
  ends->addWidget(m_last);
  f->addRow(tr("First layer (first)"), ends);
  m_symmetric = new QCheckBox(tr("layer i = layer n-1-i"), m_generated);
  f->addRow(tr("Symmetric"), m_symmetric);
  m_patternMax = spin(0, 100000, 0, m_generated);
  m_patternMax->setSpecialValueText(tr("all"));
  m_patternMax->setToolTip(tr("At most this many patterns, evenly spaced over the lexicographic order (0: all)"));
  f->addRow(tr("At most (max)"), m_patternMax);
  l->addWidget(m_generated);
  m_patternList = new QPlainTextEdit(box);
  m_patternList->setObjectName("searchPatternList");
  m_patternList->setPlaceholderText("[[\"gss\", \"attn\", \"gss\"], [\"attn\", \"gss\", \"gss\"]]");
  m_patternList->setMinimumHeight(60);
  l->addWidget(m_patternList);
  return box;
}

QWidget* SearchForm::buildBudget() {
  auto* box = new QGroupBox(tr("Budget (budget)"), this);
  auto* f = new QFormLayout(box);
  m_resource = new QComboBox(box);
  m_resource->addItems({"steps", "tokens", "flops"});
  m_resource->setToolTip(tr("What min and max count: optimizer steps, training tokens or training FLOPs"));
  f->addRow(tr("Resource"), m_resource);
  m_min = new QLineEdit(box);
  m_min->setObjectName("searchBudgetMin");
  m_max = new QLineEdit(box);
  m_max->setObjectName("searchBudgetMax");
  auto* mm = new QHBoxLayout;
  mm->addWidget(m_min);
  mm->addWidget(new QLabel(tr("to"), box));
  mm->addWidget(m_max);
  f->addRow(tr("Min / max"), mm);
  m_eta = spin(1, 100, 3, box);  // the engine allows 2 to 10; its message says so
  m_eta->setObjectName("searchBudgetEta");
  m_eta->setToolTip(tr("1/eta of a rung's trials go on; each rung has eta times the resource of the one before"));
  f->addRow(tr("Eta"), m_eta);
  m_brackets = spin(1, 20, 1, box);
  m_brackets->setToolTip(tr("1: successive halving; more: Hyperband's brackets (random sampler)"));
  f->addRow(tr("Brackets"), m_brackets);
  m_concurrency = spin(1, 256, 1, box);
  m_concurrency->setToolTip(tr("Runs meant to share the machine: each run gets cores / concurrency threads"));
  f->addRow(tr("Concurrency"), m_concurrency);
  return box;
}

QWidget* SearchForm::buildObjectives() {
  auto* box = new QGroupBox(tr("Objectives, seeds, sampler"), this);
  auto* f = new QFormLayout(box);
  m_objective1 = editableCombo({"val/bpb", "val/loss", "val/ppl", "val/accuracy", "train/tokens_per_s"}, box);
  m_objective1->setObjectName("searchObjective");
  f->addRow(tr("Objective"), m_objective1);
  m_objective2 = editableCombo({tr("(none)"), "params", "flops_per_token", "train/tokens_per_s", "val/loss"}, box);
  m_objective2->setObjectName("searchObjective2");
  m_objective2->setToolTip(tr("A second objective: promotion by non-dominated rank (the Pareto chart shows it)"));
  f->addRow(tr("Second objective"), m_objective2);
  m_seeds = new QLineEdit(box);
  m_seeds->setObjectName("searchSeeds");
  m_seeds->setToolTip(tr("Replicas per trial (a count: the base seed + 0..N-1) or a list of seeds: 1, 2, 3"));
  f->addRow(tr("Seeds"), m_seeds);
  m_sampler = new QComboBox(box);
  m_sampler->addItems({"grid", "random"});
  f->addRow(tr("Sampler"), m_sampler);
  auto* random = new QHBoxLayout;
  m_samplerSeed = spin(0, 2147483647, 0, box);
  m_samplerTrials = spin(1, 100000, 9, box);
  random->addWidget(new QLabel(tr("seed"), box));
  random->addWidget(m_samplerSeed);
  random->addWidget(new QLabel(tr("trials"), box));
  random->addWidget(m_samplerTrials);
  f->addRow(tr("Random"), random);
  m_equal = new QCheckBox(tr("every trial near"), box);
  m_equal->setToolTip(tr("Trials outside the tolerance get their FFN width fitted to the target count"));
  m_equalTarget = new QLineEdit(box);
  m_equalTarget->setPlaceholderText(tr("parameters"));
  m_equalPreset = new QLineEdit(box);
  m_equalPreset->setPlaceholderText(tr("or a preset"));
  m_equalTolerance = new QDoubleSpinBox(box);
  m_equalTolerance->setRange(0.0, 0.5);
  m_equalTolerance->setDecimals(3);
  m_equalTolerance->setSingleStep(0.01);
  m_equalTolerance->setValue(0.03);
  auto* eq = new QHBoxLayout;
  eq->addWidget(m_equal);
  eq->addWidget(m_equalTarget, 1);
  eq->addWidget(m_equalPreset, 1);
  eq->addWidget(new QLabel(QString::fromUtf8("±"), box));
  eq->addWidget(m_equalTolerance);
  f->addRow(tr("Equal parameters"), eq);
  m_threads = spin(0, 4096, 0, box);
  m_threads->setSpecialValueText(tr("cores / concurrency"));
  f->addRow(tr("Threads per run"), m_threads);
  return box;
}

void SearchForm::updateEnabled() {
  const QString mode = m_patternMode->currentData().toString();
  m_generated->setVisible(mode == "generated");
  m_patternList->setVisible(mode == "list");
  const bool random = m_sampler->currentText() == "random";
  m_samplerSeed->setEnabled(random);
  m_samplerTrials->setEnabled(random && m_brackets->value() <= 1);  // Hyperband sets each bracket's n
  m_equalTarget->setEnabled(m_equal->isChecked());
  m_equalPreset->setEnabled(m_equal->isChecked());
  m_equalTolerance->setEnabled(m_equal->isChecked());
  m_attnMin->setEnabled(m_attnLimit->isChecked());
  m_attnMax->setEnabled(m_attnLimit->isChecked());
  m_save->setEnabled(m_editable && !m_dir.isEmpty());
  m_revert->setEnabled(m_editable && !m_dir.isEmpty());
}

void SearchForm::setEditable(bool on, const QString& why) {
  m_editable = on;
  m_save->setToolTip(on ? tr("The engine checks the section first; a refused one writes nothing and the message names "
                             "the field")
                        : why);
  updateEnabled();
}

void SearchForm::clear(const QString& message) {
  m_dir.clear();
  m_loaded = nullptr;
  m_loadedForm = nullptr;
  m_hasSection = false;
  m_note->setText(message);
  m_errorLabel->hide();
  updateEnabled();
}

void SearchForm::load(const QString& projectDir, const project::SearchSectionFile& file) {
  m_dir = projectDir;
  m_hasSection = !file.section.is_null();
  m_loaded = m_hasSection ? file.section : project::default_search_section(file);
  m_variantNames = file.variants;
  m_note->setText(m_hasSection ? tr("The project's \"search\" section (docs/search.md). Save writes it to "
                                    "project.json once the engine accepts it.")
                               : tr("This project has no \"search\" section yet. Below is a proposal (the first "
                                    "variant's learning rate at a third, once and three times its value, on "
                                    "successive halving up to training.steps): edit it and press Save to add it to "
                                    "project.json, or write one by hand (docs/search.md)."));
  m_save->setText(m_hasSection ? tr("Save to project.json") : tr("Add to project.json"));
  fill(m_loaded);
  m_loadedForm = formValues(nullptr);
  m_error.clear();
  m_errorLabel->hide();
  updateEnabled();
}

void SearchForm::revert() {
  if (m_dir.isEmpty()) return;
  fill(m_loaded);
  m_error.clear();
  m_errorLabel->hide();
}

void SearchForm::fill(const json& s) {
  m_variants->clear();
  const json variants = s.value("variants", json::array());
  for (const std::string& v : m_variantNames) {
    auto* item = new QListWidgetItem(QString::fromStdString(v), m_variants);
    bool ticked = false;
    for (const auto& x : variants) ticked = ticked || (x.is_string() && x.get<std::string>() == v);
    item->setCheckState(ticked ? Qt::Checked : Qt::Unchecked);
  }
  m_space->setPlainText(s.contains("space") ? jsonText(s["space"]) : QString());
  fillPatterns(s.value("patterns", json()));
  const json b = s.value("budget", json::object());
  m_resource->setCurrentText(QString::fromStdString(b.value("resource", std::string("steps"))));
  m_min->setText(numberText(b.value("min", json())));
  m_max->setText(numberText(b.value("max", json())));
  m_eta->setValue(b.value("eta", 3));
  m_brackets->setValue(b.value("brackets", 1));
  m_concurrency->setValue(b.value("concurrency", 1));
  const json o = s.value("objective", json("val/bpb"));
  m_objective1->setCurrentText(metricOf(o.is_array() && !o.empty() ? o[0] : o));
  m_objective2->setCurrentIndex(0);
  if (o.is_array() && o.size() > 1) m_objective2->setCurrentText(metricOf(o[1]));
  const json seeds = s.value("seeds", json(1));
  if (seeds.is_array()) {
    QStringList list;
    for (const auto& x : seeds) list << numberText(x);
    m_seeds->setText(list.join(", "));
  } else {
    m_seeds->setText(numberText(seeds));
  }
  const json sm = s.value("sampler", json::object());
  m_sampler->setCurrentText(QString::fromStdString(sm.value("kind", std::string("grid"))));
  m_samplerSeed->setValue(sm.value("seed", 0));
  m_samplerTrials->setValue(sm.value("trials", 9));
  const json eq = s.value("equal_params", json());
  m_equal->setChecked(eq.is_object());
  m_equalTarget->setText(eq.is_object() ? numberText(eq.value("target", json())) : QString());
  m_equalPreset->setText(eq.is_object() ? numberText(eq.value("preset", json())) : QString());
  m_equalTolerance->setValue(eq.is_object() ? eq.value("tolerance", 0.03) : 0.03);
  m_threads->setValue(s.value("threads", 0));
  updateEnabled();
}

void SearchForm::fillPatterns(const json& p) {
  if (!p.is_object()) {
    m_patternMode->setCurrentIndex(0);
    m_patternList->clear();
    return;
  }
  if (p.contains("list")) {
    m_patternMode->setCurrentIndex(2);
    m_patternList->setPlainText(QString::fromStdString(p["list"].dump()));
    return;
  }
  m_patternMode->setCurrentIndex(1);
  m_nLayers->setValue(p.value("n_layers", 8));
  const json kinds = p.value("kinds", json::array());
  for (QCheckBox* c : m_kinds) {
    bool on = false;
    for (const auto& k : kinds) on = on || (k.is_string() && QString::fromStdString(k.get<std::string>()) == c->property("kind").toString());
    c->setChecked(on);
  }
  const json a = p.value("attention", json());
  m_attnLimit->setChecked(!a.is_null());
  if (a.is_array() && a.size() == 2) {
    m_attnMin->setValue(a[0].get<int>());
    m_attnMax->setValue(a[1].get<int>());
  } else if (a.is_number_integer()) {
    m_attnMin->setValue(a.get<int>());
    m_attnMax->setValue(a.get<int>());
  }
  const auto pick = [](QComboBox* c, const json& v) {
    c->setCurrentIndex(std::max(0, v.is_string() ? c->findData(QString::fromStdString(v.get<std::string>())) : 0));
  };
  pick(m_first, p.value("first", json()));
  pick(m_last, p.value("last", json()));
  m_symmetric->setChecked(p.value("symmetric", false));
  m_patternMax->setValue(p.value("max", 0));
}

json SearchForm::patternsJson(QString* error) const {
  const QString mode = m_patternMode->currentData().toString();
  if (mode == "none") return nullptr;
  if (mode == "list") {
    const json list = json::parse(m_patternList->toPlainText().toStdString(), nullptr, false);
    if (list.is_discarded()) {
      if (error) *error = tr("search.patterns.list: not valid JSON; allowed: a list of patterns, each a list of kinds");
      return nullptr;
    }
    return {{"list", list}};
  }
  json p = {{"n_layers", m_nLayers->value()}};
  json kinds = json::array();
  for (QCheckBox* c : m_kinds)
    if (c->isChecked()) kinds.push_back(c->property("kind").toString().toStdString());
  p["kinds"] = kinds;
  if (m_attnLimit->isChecked())
    p["attention"] = m_attnMin->value() == m_attnMax->value() ? json(m_attnMin->value())
                                                             : json::array({m_attnMin->value(), m_attnMax->value()});
  if (!m_first->currentData().toString().isEmpty()) p["first"] = m_first->currentData().toString().toStdString();
  if (!m_last->currentData().toString().isEmpty()) p["last"] = m_last->currentData().toString().toStdString();
  if (m_symmetric->isChecked()) p["symmetric"] = true;
  if (m_patternMax->value() > 0) p["max"] = m_patternMax->value();
  return p;
}

// Every key the form manages, as its widgets say now (null: the key is absent).
json SearchForm::formValues(QString* error) const {
  json v = json::object();
  json variants = json::array();
  for (int i = 0; i < m_variants->count(); ++i)
    if (m_variants->item(i)->checkState() == Qt::Checked) variants.push_back(m_variants->item(i)->text().toStdString());
  v["variants"] = variants.empty() ? json() : variants;
  const QString space = m_space->toPlainText().trimmed();
  v["space"] = nullptr;
  if (!space.isEmpty()) {
    v["space"] = json::parse(space.toStdString(), nullptr, false);
    if (v["space"].is_discarded()) {
      v["space"] = nullptr;
      if (error && error->isEmpty()) *error = tr("search.space: not valid JSON; allowed: an object of model.* and training.* keys");
    }
  }
  QString patternError;
  v["patterns"] = patternsJson(&patternError);
  if (error && error->isEmpty()) *error = patternError;
  json budget = {{"resource", m_resource->currentText().toStdString()},
                 {"min", numberOrText(m_min->text())},
                 {"max", numberOrText(m_max->text())},
                 {"eta", m_eta->value()}};
  if (m_brackets->value() != 1) budget["brackets"] = m_brackets->value();
  budget["concurrency"] = m_concurrency->value();
  v["budget"] = budget;
  const QString o2 = m_objective2->currentIndex() == 0 && m_objective2->currentText() == m_objective2->itemText(0)
                         ? QString()
                         : m_objective2->currentText().trimmed();
  v["objective"] = o2.isEmpty() ? json(m_objective1->currentText().trimmed().toStdString())
                                : json::array({m_objective1->currentText().trimmed().toStdString(), o2.toStdString()});
  const QStringList seeds = m_seeds->text().split(',', Qt::SkipEmptyParts);
  if (seeds.size() > 1 || m_seeds->text().contains(',')) {
    json list = json::array();
    for (const QString& s : seeds) list.push_back(numberOrText(s));
    v["seeds"] = list;
  } else {
    v["seeds"] = m_seeds->text().trimmed().isEmpty() ? json() : numberOrText(m_seeds->text());
  }
  json sampler = {{"kind", m_sampler->currentText().toStdString()}};
  if (m_sampler->currentText() == "random") {
    sampler["seed"] = m_samplerSeed->value();
    if (m_brackets->value() <= 1) sampler["trials"] = m_samplerTrials->value();
  }
  v["sampler"] = sampler;
  v["equal_params"] = nullptr;
  if (m_equal->isChecked()) {
    json eq = json::object();
    if (!m_equalTarget->text().trimmed().isEmpty()) eq["target"] = numberOrText(m_equalTarget->text());
    if (!m_equalPreset->text().trimmed().isEmpty()) eq["preset"] = m_equalPreset->text().trimmed().toStdString();
    eq["tolerance"] = std::round(m_equalTolerance->value() * 1000.0) / 1000.0;
    v["equal_params"] = eq;
  }
  v["threads"] = m_threads->value() > 0 ? json(m_threads->value()) : json();
  return v;
}

json SearchForm::sectionJson(QString* error) const {
  QString parseError;
  const json now = formValues(&parseError);
  if (!parseError.isEmpty()) {
    if (error) *error = parseError;
    return nullptr;
  }
  json out = m_loaded.is_object() ? m_loaded : json::object();
  for (const char* key : kManaged) {
    // A field left as loaded keeps the JSON as written (its form, keys the form does not show).
    if (m_loadedForm.is_object() && m_loadedForm.contains(key) && m_loadedForm[key] == now[key]) continue;
    if (now[key].is_null())
      out.erase(key);
    else
      out[key] = now[key];
  }
  return out;
}

bool SearchForm::save() {
  if (m_dir.isEmpty()) return false;
  QString error;
  const json section = sectionJson(&error);
  if (section.is_null()) {
    showError(error);
    return false;
  }
  try {
    project::write_search_section(m_dir.toStdString(), section);
  } catch (const std::exception& e) {
    showError(QString::fromUtf8(e.what()));
    return false;
  }
  m_error.clear();
  m_errorLabel->hide();
  emit saved();
  return true;
}

void SearchForm::showError(const QString& text) {
  m_error = text;
  m_errorLabel->setText(text);
  m_errorLabel->setVisible(!text.isEmpty());
}

}  // namespace pha::gui
