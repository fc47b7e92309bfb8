#include "gui/config/json_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFont>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPointer>
#include <QSpinBox>
#include <QValidator>
#include <algorithm>
#include <limits>
#include <algorithm>

namespace pha::gui {

using nlohmann::json;

namespace {

}  // namespace

// A red frame drawn over the invalid field (a style sheet on a spin box would replace its
// native buttons). It follows the field's geometry and lets the mouse through.
class InvalidOutline : public QWidget {
 public:
  explicit InvalidOutline(QWidget* parent) : QWidget(parent) {
    setObjectName("invalidOutline");
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    hide();
  }

  void attach(QWidget* target) {
    if (m_target) m_target->removeEventFilter(this);
    m_target = target;
    if (!target) {
      hide();
      return;
    }
    target->installEventFilter(this);
    follow();
    show();
    raise();
  }
  QWidget* target() const { return m_target; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched == m_target && (event->type() == QEvent::Move || event->type() == QEvent::Resize)) follow();
    return false;
  }
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(QColor(0xd9, 0x30, 0x25), 2));
    p.drawRoundedRect(QRectF(rect()).adjusted(1, 1, -1, -1), 3, 3);
  }

 private:
  void follow() { setGeometry(m_target->geometry().adjusted(-1, -1, 1, 1)); }
  QPointer<QWidget> m_target;
};

json::json_pointer jsonPointer(const QString& key) {
  QString pointer = QLatin1Char('/') + key;
  pointer.replace(QLatin1Char('.'), QLatin1Char('/'));
  return json::json_pointer(pointer.toStdString());
}

JsonForm::JsonForm(QWidget* parent)
    : QWidget(parent), m_layout(new QFormLayout(this)), m_outline(new InvalidOutline(this)) {
  m_layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  m_layout->setRowWrapPolicy(QFormLayout::DontWrapRows);
  m_layout->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
}

void JsonForm::setHelp(const QString& key, const QString& help) {
  const Field* f = find(key);
  if (!f) return;
  // The tooltip the field was made with names the key (and the range of a number).
  const QString detail = f->widget->property("keyToolTip").isValid() ? f->widget->property("keyToolTip").toString()
                                                                      : f->widget->toolTip();
  f->widget->setProperty("keyToolTip", detail);
  f->widget->setProperty("help", help);
  const QString tip = detail.isEmpty() ? help : QStringLiteral("%1\n(%2)").arg(help, detail);
  if (key == m_invalidKey) m_savedToolTip = tip;  // shown again once the error is fixed
  else f->widget->setToolTip(tip);
  if (QWidget* label = m_layout->labelForField(f->widget)) label->setToolTip(tip);
}

QString JsonForm::help(const QString& key) const {
  const Field* f = find(key);
  return f ? f->widget->property("help").toString() : QString();
}

void JsonForm::addSection(const QString& title) {
  auto* label = new QLabel(title, this);
  QFont font = label->font();
  font.setBold(true);
  label->setFont(font);
  if (m_layout->rowCount() > 0) label->setContentsMargins(0, 8, 0, 0);
  m_layout->addRow(label);
}

JsonForm::Field& JsonForm::add(const QString& key, const QString& label, Kind kind, QWidget* widget) {
  widget->setObjectName(key);
  m_layout->addRow(label, widget);
  m_fields.push_back(Field{key, kind, widget, {}, {}});
  return m_fields.back();
}

namespace {
// An integer field that shows what was typed or loaded, in range or not: "-64" stays "-64" (a
// QSpinBox with minimum 1 swallowed the minus and made it 64) and a JSON value outside the range
// is shown as it is (it read "1" in a red frame), so the validation error names what is shown.
// The arrows and the wheel stay inside the allowed range; `zeroText` stands for 0.
class FieldSpinBox : public QSpinBox {
 public:
  FieldSpinBox(int min, int max, QString zeroText, QWidget* parent)
      : QSpinBox(parent), m_min(min), m_max(max), m_zeroText(std::move(zeroText)) {
    setRange(std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
    setValue(std::clamp(0, min, max));
  }
  void stepBy(int steps) override {
    const long long next = static_cast<long long>(value()) + steps;
    setValue(static_cast<int>(std::clamp<long long>(next, m_min, m_max)));
  }

 protected:
  StepEnabled stepEnabled() const override {
    StepEnabled e = StepNone;
    if (value() < m_max) e |= StepUpEnabled;
    if (value() > m_min) e |= StepDownEnabled;
    return e;
  }
  QString textFromValue(int v) const override {
    return v == 0 && !m_zeroText.isEmpty() ? m_zeroText : QSpinBox::textFromValue(v);
  }
  int valueFromText(const QString& text) const override {
    return !m_zeroText.isEmpty() && text == m_zeroText ? 0 : QSpinBox::valueFromText(text);
  }
  QValidator::State validate(QString& text, int& pos) const override {
    if (!m_zeroText.isEmpty() && m_zeroText.startsWith(text)) return text == m_zeroText ? QValidator::Acceptable
                                                                                           : QValidator::Intermediate;
    return QSpinBox::validate(text, pos);
  }

 private:
  int m_min, m_max;
  QString m_zeroText;
};
}  // namespace

QSpinBox* JsonForm::addInt(const QString& key, const QString& label, int min, int max, const QString& zeroText) {
  auto* spin = new FieldSpinBox(min, max, min == 0 ? zeroText : QString(), this);
  spin->setToolTip(QStringLiteral("%1 (%2 to %3)").arg(key).arg(min).arg(max));
  add(key, label, Kind::Int, spin);
  connect(spin, &QSpinBox::valueChanged, this, [this, key](int v) { emitEdit(key, v); });
  return spin;
}

QDoubleSpinBox* JsonForm::addDouble(const QString& key, const QString& label, double min, double max, int decimals,
                                    double step) {
  auto* spin = new QDoubleSpinBox(this);
  spin->setDecimals(decimals);
  spin->setRange(min, max);
  spin->setSingleStep(step);
  spin->setToolTip(key);
  add(key, label, Kind::Double, spin);
  connect(spin, &QDoubleSpinBox::valueChanged, this, [this, key](double v) { emitEdit(key, v); });
  return spin;
}

QCheckBox* JsonForm::addBool(const QString& key, const QString& label) {
  auto* box = new QCheckBox(this);
  box->setToolTip(key);
  add(key, label, Kind::Bool, box);
  connect(box, &QCheckBox::toggled, this, [this, key](bool on) { emitEdit(key, on); });
  return box;
}

QComboBox* JsonForm::addChoice(const QString& key, const QString& label, const QStringList& choices) {
  auto* combo = new QComboBox(this);
  combo->addItems(choices);
  combo->setToolTip(key);
  add(key, label, Kind::Choice, combo);
  connect(combo, &QComboBox::activated, this, [this, key, combo](int) {
    emitEdit(key, combo->currentText().toStdString());
  });
  return combo;
}

QLineEdit* JsonForm::addText(const QString& key, const QString& label, TextToJson toJson, JsonToText fromJson) {
  auto* edit = new QLineEdit(this);
  edit->setToolTip(key);
  Field& field = add(key, label, Kind::Text, edit);
  field.toJson = toJson ? std::move(toJson) : [](const QString& s) { return json(s.toStdString()); };
  field.fromJson = fromJson ? std::move(fromJson) : [](const json& v) {
    return v.is_string() ? QString::fromStdString(v.get<std::string>()) : QString();
  };
  connect(edit, &QLineEdit::textEdited, this, [this, key](const QString& text) {
    if (const Field* f = find(key)) emitEdit(key, f->toJson(text));
  });
  return edit;
}

const JsonForm::Field* JsonForm::find(const QString& key) const {
  for (const auto& f : m_fields) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

QWidget* JsonForm::fieldWidget(const QString& key) const {
  const Field* f = find(key);
  return f ? f->widget : nullptr;
}

QStringList JsonForm::keys() const {
  QStringList out;
  for (const auto& f : m_fields) out << f.key;
  return out;
}

int JsonForm::fieldIndex(const QString& key) const {
  for (size_t i = 0; i < m_fields.size(); ++i) {
    if (m_fields[i].key == key) return static_cast<int>(i);
  }
  return -1;
}

void JsonForm::setFieldEnabled(const QString& key, bool enabled) {
  if (QWidget* w = fieldWidget(key)) w->setEnabled(enabled);
}

void JsonForm::emitEdit(const QString& key, const json& value) {
  if (!m_updating) emit fieldEdited(key, value);
}

void JsonForm::show(const Field& field, const json& value) {
  switch (field.kind) {
    case Kind::Int: {
      auto* spin = static_cast<QSpinBox*>(field.widget);
      if (value.is_number_integer() && spin->value() != value.get<int64_t>()) {
        const int64_t v = value.get<int64_t>();
        spin->setValue(static_cast<int>(std::clamp<int64_t>(v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max())));
      }
      break;
    }
    case Kind::Double: {
      auto* spin = static_cast<QDoubleSpinBox*>(field.widget);
      if (value.is_number() && spin->value() != value.get<double>()) spin->setValue(value.get<double>());
      break;
    }
    case Kind::Bool:
      if (value.is_boolean()) static_cast<QCheckBox*>(field.widget)->setChecked(value.get<bool>());
      break;
    case Kind::Choice:
      if (value.is_string()) {
        auto* combo = static_cast<QComboBox*>(field.widget);
        combo->setCurrentIndex(combo->findText(QString::fromStdString(value.get<std::string>())));
      }
      break;
    case Kind::Text: {
      auto* edit = static_cast<QLineEdit*>(field.widget);
      // Leave the text alone while it reads as the same value (keeps "gss, gss" as typed).
      if (field.toJson(edit->text()) != value) edit->setText(field.fromJson(value));
      break;
    }
  }
}

void JsonForm::setDocument(const json& doc, const json& defaults) {
  m_updating = true;
  for (const auto& field : m_fields) {
    const auto pointer = jsonPointer(field.key);
    if (doc.is_object() && doc.contains(pointer)) {
      show(field, doc.at(pointer));
    } else if (defaults.is_object() && defaults.contains(pointer)) {
      show(field, defaults.at(pointer));
    }
  }
  m_updating = false;
}

QString JsonForm::fieldForPath(const QString& path, const QString& prefix) const {
  QString key = path;
  if (!prefix.isEmpty()) {
    if (key == prefix) return {};
    if (!key.startsWith(prefix + QLatin1Char('.'))) return {};
    key = key.mid(prefix.size() + 1);
  }
  // Drop array indices and trailing components until a field matches: "layers[2].kind" -> "layers".
  const int bracket = key.indexOf(QLatin1Char('['));
  if (bracket >= 0) key.truncate(bracket);
  while (!key.isEmpty()) {
    if (find(key)) return key;
    const int dot = key.lastIndexOf(QLatin1Char('.'));
    if (dot < 0) break;
    key.truncate(dot);
  }
  return {};
}

void JsonForm::markInvalid(const QString& key, const QString& message) {
  if (key == m_invalidKey) {
    if (const Field* f = find(key)) f->widget->setToolTip(message);
    return;
  }
  clearInvalid();
  const Field* f = find(key);
  if (!f) return;
  m_invalidKey = key;
  m_savedToolTip = f->widget->toolTip();
  m_outline->attach(f->widget);
  f->widget->setProperty("invalid", true);
  f->widget->setToolTip(message);
}

void JsonForm::clearInvalid() {
  if (const Field* f = find(m_invalidKey)) {
    f->widget->setProperty("invalid", false);
    f->widget->setToolTip(m_savedToolTip);
  }
  m_outline->attach(nullptr);
  m_invalidKey.clear();
}

QWidget* JsonForm::invalidOutline() const { return m_outline; }

}  // namespace pha::gui
