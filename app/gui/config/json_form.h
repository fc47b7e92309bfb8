// A form whose fields are keys of a JSON object ("d_model", "attention.kv_heads"): each field
// reads its value from a JSON document and reports user edits as (key, JSON value). The form
// holds no document itself; the editor that owns it applies edits and pushes the result back
// with setDocument(). A field can be outlined in red with the error that names it.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLineEdit;
class QSpinBox;

namespace pha::gui {

class InvalidOutline;

class JsonForm : public QWidget {
  Q_OBJECT

 public:
  using TextToJson = std::function<nlohmann::json(const QString&)>;
  using JsonToText = std::function<QString(const nlohmann::json&)>;

  explicit JsonForm(QWidget* parent = nullptr);

  void addSection(const QString& title);
  // zeroText: shown instead of 0 (for "0 means derived" fields such as d_ff).
  QSpinBox* addInt(const QString& key, const QString& label, int min, int max, const QString& zeroText = {});
  QDoubleSpinBox* addDouble(const QString& key, const QString& label, double min, double max, int decimals,
                            double step);
  QCheckBox* addBool(const QString& key, const QString& label);
  QComboBox* addChoice(const QString& key, const QString& label, const QStringList& choices);
  // A line edit; the converters map its text to the JSON value and back (default: a string).
  QLineEdit* addText(const QString& key, const QString& label, TextToJson toJson = {}, JsonToText fromJson = {});

  QWidget* fieldWidget(const QString& key) const;  // nullptr for an unknown key
  QStringList keys() const;
  int fieldIndex(const QString& key) const;        // -1 for an unknown key
  void setFieldEnabled(const QString& key, bool enabled);
  // What a field means, as the tooltip of the field and of its label (the JSON key and the
  // allowed range follow on a second line). An invalid field shows its error until it is valid.
  void setHelp(const QString& key, const QString& help);
  QString help(const QString& key) const;

  // Shows `doc`; a key absent from it shows its value in `defaults`; a value of the wrong type
  // leaves the field as it is (the validation error names it). Emits nothing.
  void setDocument(const nlohmann::json& doc, const nlohmann::json& defaults);

  // The field an error's field path names ("model.layers[2]" -> "layers" with prefix "model"),
  // or an empty string when no field matches.
  QString fieldForPath(const QString& path, const QString& prefix) const;
  // Red outline and the message as tooltip on `key`'s widget; clears any previous mark.
  void markInvalid(const QString& key, const QString& message);
  void clearInvalid();
  QString invalidField() const { return m_invalidKey; }
  QWidget* invalidOutline() const;  // the red frame (hidden when no field is invalid)

 signals:
  void fieldEdited(const QString& key, const nlohmann::json& value);

 private:
  enum class Kind { Int, Double, Bool, Choice, Text };
  struct Field {
    QString key;
    Kind kind;
    QWidget* widget;
    TextToJson toJson;
    JsonToText fromJson;
  };

  Field& add(const QString& key, const QString& label, Kind kind, QWidget* widget);
  const Field* find(const QString& key) const;
  void show(const Field& field, const nlohmann::json& value);
  void emitEdit(const QString& key, const nlohmann::json& value);

  QFormLayout* m_layout = nullptr;
  InvalidOutline* m_outline = nullptr;
  std::vector<Field> m_fields;
  QString m_invalidKey;
  QString m_savedToolTip;  // the invalid widget's own tooltip, restored when the error goes
  bool m_updating = false;
};

// "a.b" -> "/a/b"
nlohmann::json::json_pointer jsonPointer(const QString& key);

}  // namespace pha::gui
