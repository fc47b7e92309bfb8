// ReportPage: the report's one document (analysis/report_document.h) as Qt widgets, top to
// bottom: a heading as a bold label, a paragraph or a list as a label (its styles as rich text, a
// verdict on its colour), a table as a QTableWidget whose cells hold the document's plain text
// (the text `pha report` prints, without its Markdown marks; a verdict cell on its colour, an
// early budget amber), a chart as its SVG drawn by QSvgRenderer. It lays out what the Markdown and
// HTML renderers lay out, so the dock shows every section, table, row and reason they do.
#pragma once

#include <QColor>
#include <QList>
#include <QString>
#include <QWidget>

#include "analysis/report_document.h"

class QTableWidget;
class QVBoxLayout;

namespace pha::gui {

// A verdict's colour (light, with alpha) and a colour as rich text takes it (over white): the
// report's tables and the Report dock's verdict lines use the same.
QColor verdictColor(analysis::Verdict verdict);
QString solid(const QColor& color);

class ReportPage : public QWidget {
 public:
  explicit ReportPage(QWidget* parent = nullptr);

  // Replaces what is shown by the document's blocks.
  void showDocument(const analysis::ReportDocument& document);
  void clear();

  // The blocks' widgets in order (QLabel, QTableWidget, chart); a table's objectName is
  // "report-" + its id ("report-claim1", "report-groups").
  QList<QWidget*> blockWidgets() const { return m_blocks; }
  QList<QTableWidget*> tables() const;
  QTableWidget* table(const QString& id) const;  // null when the document has none of that id

 private:
  QWidget* makeBlock(const analysis::Block& block);
  QVBoxLayout* m_layout = nullptr;
  QList<QWidget*> m_blocks;
};

}  // namespace pha::gui
