#include "gui/lens/lens_tokens_tab.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QApplication>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "widgets/csv_file.h"
#include "widgets/export_menu.h"
#include "widgets/token_text_view.h"
#include "widgets/widget_export.h"

namespace pha::gui {

namespace {

const char* const kBranch[3] = {"GSS", "attn", "FFN"};

double percentile95(std::vector<float> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](float x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return 1.0;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(0.95 * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return std::max(1e-3, static_cast<double>(v[k]));
}

bool endsLine(const std::string& s) {
  return (!s.empty() && s.back() == '\n') || (s.size() >= 2 && s.compare(s.size() - 2, 2, "\\n") == 0);
}

// The spans of the windows' text: each window's first input, then every target coloured by
// value(i); padding at the end of a short last window is left out.
std::vector<widgets::TokenSpan> spansOf(const runtime::LensWindows& w, const std::vector<float>& value,
                                        const std::function<QString(size_t)>& tip) {
  std::vector<widgets::TokenSpan> spans;
  for (int b = 0; b < w.B; ++b) {
    const size_t first = static_cast<size_t>(b) * w.T;
    if (w.B > 1) spans.push_back({QObject::tr("window %1 of %2").arg(b + 1).arg(w.B), NAN, {}, true, false});
    if (first < w.input_text.size())
      spans.push_back({QString::fromStdString(w.input_text[first]), NAN, QObject::tr("context (no loss)"), false,
                       endsLine(w.input_text[first])});
    for (int p = 0; p < w.T; ++p) {
      const size_t i = first + static_cast<size_t>(p);
      if (i >= w.target_text.size()) break;
      const bool counted = i < w.targets.size() && w.targets[i] != -100;
      if (!counted && w.target_text[i].empty()) continue;
      widgets::TokenSpan s;
      s.text = QString::fromStdString(w.target_text[i]);
      s.value = counted && i < value.size() ? value[i] : NAN;
      s.toolTip = tip(i);
      s.lineBreak = endsLine(w.target_text[i]);
      spans.push_back(std::move(s));
    }
  }
  return spans;
}

QString className(const runtime::LensWindows& w, size_t i) {
  const int c = i < w.cls.size() ? w.cls[i] : -1;
  return c >= 0 && c < static_cast<int>(w.class_names.size()) ? QString::fromStdString(w.class_names[c]) : QString();
}

QTableWidgetItem* cell(const QString& text, bool number) {
  auto* item = new QTableWidgetItem(text);
  item->setTextAlignment(number ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignLeft | Qt::AlignVCenter);
  return item;
}

}  // namespace

LensTokensTab::LensTokensTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Compare with"), this));
  m_compare = new QComboBox(this);
  m_compare->setObjectName("lensCompareWith");
  m_compare->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_compare->setMinimumContentsLength(24);
  m_compareTip = tr("Colour each token by the difference of two runs' losses (a - b, this run first), or of two "
                    "groups of seeded replicas (each token's loss averaged over the group's runs), on the same tokens");
  m_compare->setToolTip(m_compareTip);
  // The chosen run or group is read whole ("run 23: transformerpp-tiny/lr=0.003,confirm,seed=10"):
  // the box takes the row, the figures go on the line under it.
  m_compare->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  row->addWidget(m_compare, 1);
  m_status = new QLabel(this);
  m_status->setWordWrap(true);
  m_export = new QToolButton(this);
  m_export->setText(tr("Export…"));
  m_export->setToolTip(tr("The coloured text as PNG or SVG, or every token's numbers as CSV"));
  m_export->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(m_export);
  for (const QString& f : {QStringLiteral("PNG"), QStringLiteral("SVG"), QStringLiteral("CSV")})
    menu->addAction(f, this, [this, f] { exportAsked(f); });
  m_export->setMenu(menu);
  row->addWidget(m_export);
  layout->addLayout(row);
  layout->addWidget(m_status);
  auto* split = new QSplitter(Qt::Horizontal, this);  // the text beside its bins
  m_split = split;
  auto* scroll = new QScrollArea(split);
  scroll->setObjectName("lensTokensScroll");
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_view = new widgets::TokenTextView(scroll);
  m_view->setObjectName("lensTokenText");
  scroll->setWidget(m_view);
  split->addWidget(scroll);
  m_bins = new QTableWidget(0, 6, split);
  m_bins->setObjectName("lensTokenBins");
  m_bins->verticalHeader()->hide();
  m_bins->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_bins->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_bins->horizontalHeader()->setStretchLastSection(true);
  m_bins->verticalHeader()->setDefaultSectionSize(m_bins->fontMetrics().height() + 4);
  split->addWidget(m_bins);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  split->setSizes({600, 280});
  scroll->setMinimumWidth(260);
  split->setChildrenCollapsible(false);
  layout->addWidget(split, 1);
  connect(m_compare, &QComboBox::currentIndexChanged, this, [this](int i) {
    // A narrow dock may cut the chosen entry's end: the tooltip gives it whole.
    m_compare->setToolTip(i > 0 ? m_compare->itemText(i) : m_compareTip);
    if (i <= 0) {
      m_comparison.reset();
      showSingle();
    }
    emit compareRequested(i - 1);
  });
  setCompareChoices({});
  clear(tr("Pick a run and press Run."));
}

void LensTokensTab::setCompareChoices(const QList<CompareChoice>& choices) {
  m_choices = choices;
  QSignalBlocker block(m_compare);
  m_compare->clear();
  m_compare->addItem(tr("no comparison"));
  for (const CompareChoice& c : choices) m_compare->addItem(c.label);
  m_compare->setEnabled(!choices.isEmpty());
}

int LensTokensTab::compareIndex() const { return m_compare->currentIndex() - 1; }
void LensTokensTab::setCompareIndex(int index) { m_compare->setCurrentIndex(index + 1); }
QString LensTokensTab::status() const { return m_status->text(); }

void LensTokensTab::clear(const QString& message) {
  m_tokens.reset();
  m_comparison.reset();
  m_status->clear();
  m_bins->setRowCount(0);
  m_view->clear(message);
}

void LensTokensTab::setTokens(const runtime::TokenLosses& t, const QString& runLabel) {
  m_tokens = t;
  m_runLabel = runLabel;
  m_comparison.reset();
  if (compareIndex() < 0) showSingle();
}

QString LensTokensTab::contributionText(size_t i) const {
  if (!m_tokens || m_tokens->contribution.empty()) return {};
  QStringList lines;
  for (size_t l = 0; l < m_tokens->contribution.size(); ++l) {
    QStringList parts;
    for (int b = 0; b < 3; ++b) {
      const auto& v = m_tokens->contribution[l][static_cast<size_t>(b)];
      if (i < v.size()) parts << QString("%1 %2").arg(kBranch[b]).arg(v[i], 0, 'f', 2);
    }
    if (!parts.isEmpty()) lines << tr("layer %1: %2").arg(l).arg(parts.join(" · "));
  }
  if (lines.isEmpty()) return {};
  return tr("\nbranch contributions (|w_b RMSNorm(y_b)|):\n") + lines.join('\n');
}

void LensTokensTab::showSingle() {
  if (!m_tokens) return;
  const runtime::TokenLosses& t = *m_tokens;
  const runtime::LensWindows& w = t.windows;
  auto tip = [&](size_t i) {
    const int b = static_cast<int>(i) / std::max(1, w.T), p = static_cast<int>(i) % std::max(1, w.T);
    QString s = tr("«%1»  window %2, position %3").arg(QString::fromStdString(w.target_text[i])).arg(b + 1).arg(p + 1);
    if (!className(w, i).isEmpty()) s += tr(", %1").arg(className(w, i));
    s += tr("\nloss %1 nats").arg(t.nll[i], 0, 'f', 3);
    return s + contributionText(i);
  };
  m_view->setTokens(spansOf(w, t.nll, tip), widgets::TokenTextView::Scale::Sequential, percentile95(t.nll),
                    tr("loss per token (nats) of %1; the scale ends at the 95th percentile").arg(m_runLabel));
  m_status->setText(tr("mean %1 nats/token over %2 tokens, %3 s").arg(t.mean_nll, 0, 'f', 4).arg(t.counted)
                        .arg(t.seconds, 0, 'f', 2));
  // Bins of the one run: mean loss by class and by position (log2 bins, as the comparison's).
  struct Acc { double sum = 0; int64_t n = 0; };
  std::map<int, Acc> byPos;
  std::vector<Acc> byClass(w.class_names.size());
  for (size_t i = 0; i < t.nll.size(); ++i) {
    if (!std::isfinite(t.nll[i])) continue;
    const int p = static_cast<int>(i) % std::max(1, w.T) + 1;
    auto& a = byPos[static_cast<int>(std::floor(std::log2(p)))];
    a.sum += t.nll[i];
    ++a.n;
    const int c = i < w.cls.size() ? w.cls[i] : -1;
    if (c >= 0 && c < static_cast<int>(byClass.size())) byClass[c].sum += t.nll[i], ++byClass[c].n;
  }
  m_bins->clear();
  m_bins->setColumnCount(3);
  m_bins->setHorizontalHeaderLabels({tr("bin"), tr("tokens"), tr("mean loss (nats)")});
  m_bins->setRowCount(0);
  auto add = [&](const QString& label, const Acc& a) {
    if (a.n == 0) return;
    const int r = m_bins->rowCount();
    m_bins->insertRow(r);
    m_bins->setItem(r, 0, cell(label, false));
    m_bins->setItem(r, 1, cell(QString::number(a.n), true));
    m_bins->setItem(r, 2, cell(QString::number(a.sum / a.n, 'f', 4), true));
  };
  for (size_t c = 0; c < byClass.size(); ++c) add(tr("class %1").arg(QString::fromStdString(w.class_names[c])), byClass[c]);
  for (const auto& [k, a] : byPos) {
    const int lo = 1 << k, hi = std::min((2 << k) - 1, w.T);
    add(lo == hi ? tr("position %1").arg(lo) : tr("positions %1-%2").arg(lo).arg(hi), a);
  }
  fitBinsWidth();
}

void LensTokensTab::setComparison(const runtime::TokenComparison& c) {
  m_comparison = c;
  showComparison();
}

void LensTokensTab::setComparisonError(const QString& error) {
  m_comparison.reset();
  showSingle();
  m_status->setText(tr("Cannot compare: %1").arg(error));
}

void LensTokensTab::showComparison() {
  const runtime::TokenComparison& c = *m_comparison;
  const runtime::LensWindows& w = c.windows;
  const QString la = QString::fromStdString(c.label_a), lb = QString::fromStdString(c.label_b);
  const bool sameWindows = m_tokens && m_tokens->windows.inputs == w.inputs;
  auto tip = [&](size_t i) {
    QString s = tr("«%1»").arg(QString::fromStdString(w.target_text[i]));
    if (!className(w, i).isEmpty()) s += tr(", %1").arg(className(w, i));
    s += tr("\na (%1): %2 nats\nb (%3): %4 nats\na - b: %5")
             .arg(la).arg(c.nll_a[i], 0, 'f', 3).arg(lb).arg(c.nll_b[i], 0, 'f', 3)
             .arg(QString::asprintf("%+.3f", c.diff[i]));
    return sameWindows ? s + contributionText(i) : s;
  };
  m_view->setTokens(spansOf(w, c.diff, tip), widgets::TokenTextView::Scale::Diverging, percentile95([&] {
                      std::vector<float> a(c.diff.size());
                      for (size_t i = 0; i < a.size(); ++i) a[i] = std::fabs(c.diff[i]);
                      return a;
                    }()),
                    tr("a - b (nats): blue where a = %1 predicts better, red where b = %2 does").arg(la, lb));
  m_status->setText(tr("a - b = %1 nats/token [%2, %3] (95%, %4 bootstrap), %5 tokens, %6 s")
                        .arg(QString::asprintf("%+.4f", c.overall.mean_diff))
                        .arg(c.overall.lo, 0, 'f', 4)
                        .arg(c.overall.hi, 0, 'f', 4)
                        .arg(c.bootstrap)
                        .arg(c.overall.tokens)
                        .arg(c.seconds, 0, 'f', 2));
  m_bins->clear();
  m_bins->setColumnCount(6);
  // The answer first: a - b and its interval beside the bin, the means after them.
  m_bins->setHorizontalHeaderLabels({tr("bin"), tr("a - b"), tr("95% interval"), tr("tokens"), tr("mean a"), tr("mean b")});
  m_bins->setRowCount(0);
  auto add = [&](const QString& prefix, const runtime::TokenComparison::Bin& b) {
    const int r = m_bins->rowCount();
    m_bins->insertRow(r);
    m_bins->setItem(r, 0, cell(prefix + QString::fromStdString(b.label), false));
    m_bins->setItem(r, 1, cell(QString::asprintf("%+.4f", b.mean_diff), true));
    m_bins->setItem(r, 2, cell(QString("[%1, %2]").arg(b.lo, 0, 'f', 4).arg(b.hi, 0, 'f', 4), true));
    m_bins->setItem(r, 3, cell(QString::number(b.tokens), true));
    m_bins->setItem(r, 4, cell(QString::number(b.mean_a, 'f', 4), true));
    m_bins->setItem(r, 5, cell(QString::number(b.mean_b, 'f', 4), true));
    // An interval that excludes 0 is a difference the bootstrap supports.
    if (b.lo > 0 || b.hi < 0) m_bins->item(r, 1)->setFont([&] { QFont f = font(); f.setBold(true); return f; }());
  };
  add(QString(), c.overall);
  for (const auto& b : c.by_class) add(tr("class "), b);
  for (const auto& b : c.by_position) add(tr("positions "), b);
  fitBinsWidth();
}

void LensTokensTab::fitBinsWidth() {
  // The bins table gets the width of its columns up to a, b and the interval (no sideways
  // scroll for the answer); the text keeps the rest, at least its minimum.
  m_bins->resizeColumnsToContents();
  int need = 2 * m_bins->frameWidth() + m_bins->verticalScrollBar()->sizeHint().width() + 4;
  for (int c = 0; c < m_bins->columnCount(); ++c) need += m_bins->horizontalHeader()->sectionSize(c);
  const int total = m_split->width();
  if (total <= 0) return;
  const int text = std::max(m_split->widget(0)->minimumWidth(), total - need);
  m_split->setSizes({text, std::max(0, total - text)});
}

bool LensTokensTab::writeCsv(const QString& path, QString* error) const {
  if (m_comparison) return widgets::writeTextFile(path, QString::fromStdString(runtime::token_comparison_csv(*m_comparison)), error);
  if (m_tokens) return widgets::writeTextFile(path, QString::fromStdString(runtime::token_losses_csv(*m_tokens)), error);
  if (error) *error = tr("Nothing measured yet: press Run.");
  return false;
}

bool LensTokensTab::exportTo(const QString& path, QString* error) {
  if (QFileInfo(path).suffix().toLower() == "csv") return writeCsv(path, error);
  if (!m_tokens && !m_comparison) {
    if (error) *error = tr("Nothing measured yet: press Run.");
    return false;
  }
  return widgets::exportWidgetImage(m_view, path, error);
}

void LensTokensTab::exportAsked(const QString& format) {
  const QString ext = format.toLower();
  const QString name = m_comparison ? "lens-token-diff" : "lens-token-loss";
  const QString path = widgets::askExportPath(this, tr("Export tokens"), widgets::lastExportFolder() + "/" + name + "." + ext,
                                              {tr("%1 (*.%2)").arg(format, ext)});
  if (path.isEmpty()) return;
  widgets::rememberExportFolder(QFileInfo(path).absolutePath());
  QString error;
  if (!exportTo(path, &error) && QApplication::platformName() != "offscreen")
    QMessageBox::warning(this, tr("Export"), error);
}

}  // namespace pha::gui
