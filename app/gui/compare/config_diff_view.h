// ConfigDiffView: a table "path | run A | run B | ..." listing only the config paths whose
// values differ between the compared runs (ConfigDiff), with a path filter.
#pragma once

#include <QStringList>
#include <QWidget>
#include <vector>

#include <nlohmann/json.hpp>

#include "gui/compare/config_diff.h"

class QLabel;
class QLineEdit;
class QTableWidget;

namespace pha::gui {

class ConfigDiffView : public QWidget {
  Q_OBJECT
 public:
  explicit ConfigDiffView(QWidget* parent = nullptr);

  // labels and configs in the same order; a null config (did not parse) shows as absent
  // everywhere and is named in the message line.
  void setConfigs(const QStringList& labels, const std::vector<nlohmann::json>& configs,
                  const QStringList& problems = {});

  int rowCount() const;                 // differing paths shown (filter applied)
  QStringList paths() const;            // the differing paths shown, in order
  QString cellText(int row, int column) const;  // column 0 = first run
  QString message() const;
  QTableWidget* table() const { return m_table; }

 private:
  void fill();

  QLineEdit* m_filter = nullptr;
  QTableWidget* m_table = nullptr;
  QLabel* m_message = nullptr;
  QStringList m_labels;
  std::vector<DiffRow> m_rows;
  QStringList m_problems;
  bool m_enoughRuns = false;
};

}  // namespace pha::gui
