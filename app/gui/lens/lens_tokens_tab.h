// Lens dock, Tokens tab: the text coloured token by token by its loss (one run), or by the
// difference of two runs' (or two groups of seeded replicas') losses a - b on a diverging scale
// once "compare with..." names the other side; the tooltip gives both losses and, for a PHA
// model, each layer's branch contributions at that token. Below: the bins (by position in the
// window and by token class) with the mean difference and its 95% interval.
// Export: PNG / SVG of the coloured text, CSV of every token (runtime::token_losses_csv /
// token_comparison_csv).
#pragma once

#include <QWidget>
#include <optional>
#include <vector>

#include "runtime/lens.h"

class QComboBox;
class QLabel;
class QTableWidget;
class QSplitter;
class QToolButton;

namespace pha::widgets {
class TokenTextView;
}

namespace pha::gui {

struct CompareChoice {
  QString label;
  std::vector<int64_t> a, b;  // run ids of each side
  QString group;              // b's group of seeded replicas ("" when b is one run)
};

class LensTokensTab : public QWidget {
  Q_OBJECT
 public:
  explicit LensTokensTab(QWidget* parent = nullptr);
  // The "compare with..." entries after "no comparison".
  void setCompareChoices(const QList<CompareChoice>& choices);
  const QList<CompareChoice>& compareChoices() const { return m_choices; }
  int compareIndex() const;  // -1: none
  void setCompareIndex(int index);
  void setTokens(const runtime::TokenLosses& t, const QString& runLabel);
  void setComparison(const runtime::TokenComparison& c);
  void setComparisonError(const QString& error);
  void clear(const QString& message);
  widgets::TokenTextView* view() const { return m_view; }
  QTableWidget* bins() const { return m_bins; }
  QString status() const;
  bool showsComparison() const { return m_comparison.has_value(); }
  bool writeCsv(const QString& path, QString* error) const;
  // PNG / SVG of the coloured text by extension, CSV of the tokens.
  bool exportTo(const QString& path, QString* error);

 signals:
  void compareRequested(int index);  // -1: back to the one run

 private:
  void showSingle();
  void showComparison();
  QString contributionText(size_t i) const;
  void exportAsked(const QString& format);

  QComboBox* m_compare = nullptr;
  QLabel* m_status = nullptr;
  QToolButton* m_export = nullptr;
  widgets::TokenTextView* m_view = nullptr;
  void fitBinsWidth();
  QTableWidget* m_bins = nullptr;
  QSplitter* m_split = nullptr;
  QString m_compareTip;  // what the box does (its tooltip while no comparison is chosen)
  QList<CompareChoice> m_choices;
  std::optional<runtime::TokenLosses> m_tokens;
  std::optional<runtime::TokenComparison> m_comparison;
  QString m_runLabel;
};

}  // namespace pha::gui
