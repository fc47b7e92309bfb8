// Lens dock, Knock-outs tab: the (layers + "all layers") x branches heatmap of the loss a
// branch's removal costs (nats/token: mean NLL without it minus the intact model's), over all
// tokens or one token class, with the rule stated (KnockoutResult::kRule). When the run's
// seeded replicas stored knock-outs too (Record), a cell's tooltip gives their mean and sd.
#pragma once

#include <QWidget>
#include <map>
#include <optional>
#include <tuple>

#include "gui/lens/lens_results.h"

class QComboBox;
class QLabel;

namespace pha::widgets {
class MatrixHeatmap;
}

namespace pha::gui {

class LensKnockoutTab : public QWidget {
  Q_OBJECT
 public:
  explicit LensKnockoutTab(QWidget* parent = nullptr);
  void setKnockouts(const runtime::KnockoutResult& k, std::map<std::tuple<std::string, int, int>, SeedSpread> spread,
                    int spreadRuns);
  void clear(const QString& message);
  void setClassIndex(int index);  // 0: all tokens, 1..: class_names
  widgets::MatrixHeatmap* heatmap() const { return m_heatmap; }
  QComboBox* classBox() const { return m_class; }
  QString ruleText() const;
  QString summary() const;
  bool writeCsv(const QString& path, QString* error) const;

 private:
  void refresh();
  QString tip(int row, int col) const;

  QComboBox* m_class = nullptr;
  QLabel* m_rule = nullptr;
  QLabel* m_summary = nullptr;
  widgets::MatrixHeatmap* m_heatmap = nullptr;
  std::optional<runtime::KnockoutResult> m_k;
  std::map<std::tuple<std::string, int, int>, SeedSpread> m_spread;
  int m_spreadRuns = 0;
};

}  // namespace pha::gui
