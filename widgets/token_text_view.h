// TokenTextView: a text drawn token by token, each token's background coloured by a value (the
// Lens dock's per-token loss, or the difference of two runs' losses on a diverging scale), with
// a colour legend on top and a tooltip per token. Tokens flow like text; a token ending in a line
// break starts a new line; separators (e.g. "window 2") stand on a line of their own. The view
// grows to the height its tokens need at its width (put it in a QScrollArea). render() draws it
// as shown (PNG / SVG export: widget_export.h).
#pragma once

#include <QColor>
#include <QRect>
#include <QString>
#include <QWidget>
#include <vector>

namespace pha::widgets {

struct TokenSpan {
  QString text;              // as shown (control characters already escaped)
  float value = NAN;         // NaN: drawn without colour (not counted)
  QString toolTip;
  bool separator = false;    // a heading line ("window 2"), not a token
  bool lineBreak = false;    // a new line follows this token
};

class TokenTextView : public QWidget {
  Q_OBJECT
 public:
  enum class Scale { Sequential, Diverging };
  explicit TokenTextView(QWidget* parent = nullptr);

  // Sequential: 0 .. hi (white to dark red); Diverging: -hi .. hi (blue - white - vermilion).
  void setTokens(std::vector<TokenSpan> tokens, Scale scale, double hi, const QString& legend);
  void clear(const QString& message);

  int tokenCount() const { return static_cast<int>(m_tokens.size()); }
  const TokenSpan& token(int i) const { return m_tokens[static_cast<size_t>(i)]; }
  QColor colorOf(int i) const;
  int tokenAt(const QPoint& pos) const;   // -1: none
  QRect tokenRect(int i) const { return m_rects[static_cast<size_t>(i)]; }
  QString message() const { return m_message; }
  QString legend() const { return m_legend; }
  Scale scale() const { return m_scale; }
  double range() const { return m_hi; }

  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize sizeHint() const override { return {480, heightForWidth(480)}; }
  QSize minimumSizeHint() const override { return {200, 80}; }

 protected:
  bool event(QEvent* e) override;
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  QFont legendFont() const;
  QRect legendTextRect(int width) const;
  int layoutTokens(int width, std::vector<QRect>* rects) const;
  QString shown(const TokenSpan& t) const;

  std::vector<TokenSpan> m_tokens;
  std::vector<QRect> m_rects;
  Scale m_scale = Scale::Sequential;
  double m_hi = 1.0;
  QString m_legend;
  QString m_message;
  int m_laidOutWidth = -1;
};

}  // namespace pha::widgets
