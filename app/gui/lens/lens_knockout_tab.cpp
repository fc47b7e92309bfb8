#include "gui/lens/lens_knockout_tab.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "widgets/csv_file.h"
#include "widgets/export_menu.h"
#include "widgets/matrix_heatmap.h"

namespace pha::gui {

namespace {
const QStringList kBranchNames = {"GSS", "Attention", "FFN"};
QString signedNats(double v) { return std::isfinite(v) ? QString::asprintf("%+.4f", v) : QStringLiteral("-"); }
}  // namespace

LensKnockoutTab::LensKnockoutTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Tokens"), this));
  m_class = new QComboBox(this);
  m_class->setObjectName("lensKnockoutClass");
  m_class->setToolTip(tr("All counted tokens, or one class of them (text: copyable = the next token continues a "
                         "repeat seen earlier in the window, novel = the rest; tasks: the example's parts)"));
  row->addWidget(m_class);
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  row->addWidget(m_summary, 1);
  m_heatmap = new widgets::MatrixHeatmap(this);
  m_heatmap->setObjectName("lensKnockoutHeatmap");
  row->addWidget(widgets::makeExportButton(m_heatmap->plot(), "lens-knockouts",
                                           [this](const QString& p, QString* e) { return writeCsv(p, e); }, this));
  layout->addLayout(row);
  m_rule = new QLabel(tr("Knock-out rule: the branch's output is %1. Colour: loss increase in nats/token when the "
                         "branch is removed (red: the model needs it; blue: it does better without).")
                          .arg(runtime::KnockoutResult::kRule),
                      this);
  m_rule->setObjectName("lensKnockoutRule");
  m_rule->setWordWrap(true);
  layout->addWidget(m_rule);
  m_heatmap->setScale(widgets::MatrixHeatmap::Scale::Diverging, 0, 0);
  m_heatmap->setCellLabels(true, 3);
  m_heatmap->setColorLabel(tr("delta loss (nats/token)"));
  m_heatmap->setAxisLabels(tr("branch removed"), tr("layer"));
  m_heatmap->setToolTipProvider([this](int r, int c) { return tip(r, c); });
  layout->addWidget(m_heatmap, 1);
  connect(m_class, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  clear(tr("Pick a run and press Run."));
}

void LensKnockoutTab::setKnockouts(const runtime::KnockoutResult& k,
                                   std::map<std::tuple<std::string, int, int>, SeedSpread> spread, int spreadRuns) {
  m_k = k;
  m_spread = std::move(spread);
  m_spreadRuns = spreadRuns;
  const QString was = m_class->currentText();
  QSignalBlocker block(m_class);
  m_class->clear();
  m_class->addItem(tr("all tokens (%1)").arg(k.tokens));
  for (size_t i = 0; i < k.class_names.size(); ++i)
    m_class->addItem(QString("%1 (%2)").arg(QString::fromStdString(k.class_names[i]))
                         .arg(i < k.class_tokens.size() ? k.class_tokens[i] : 0));
  const int keep = m_class->findText(was);
  m_class->setCurrentIndex(keep >= 0 ? keep : 0);
  refresh();
}

void LensKnockoutTab::clear(const QString& message) {
  m_k.reset();
  m_spread.clear();
  m_class->clear();
  m_summary->clear();
  m_heatmap->clear(message);
}

void LensKnockoutTab::setClassIndex(int index) { m_class->setCurrentIndex(index); }
QString LensKnockoutTab::ruleText() const { return m_rule->text(); }
QString LensKnockoutTab::summary() const { return m_summary->text(); }

void LensKnockoutTab::refresh() {
  if (!m_k) return;
  const int ci = m_class->currentIndex() - 1;
  const bool byClass = ci >= 0 && ci < static_cast<int>(m_k->delta_by_class.size());
  const model::FloatMatrix& d = byClass ? m_k->delta_by_class[static_cast<size_t>(ci)] : m_k->delta;
  QStringList rows;
  for (int l = 0; l < m_k->layers; ++l) rows << tr("layer %1").arg(l);
  rows << tr("all layers");
  m_heatmap->setMatrix(d.rows, d.cols, d.values, rows, kBranchNames);
  const double base = byClass && ci < static_cast<int>(m_k->base_by_class.size()) ? m_k->base_by_class[ci] : m_k->base_loss;
  QString text = tr("base loss %1 nats/token on %2 tokens; %3 passes, %4 s")
                     .arg(base, 0, 'f', 4)
                     .arg(byClass ? m_k->class_tokens[static_cast<size_t>(ci)] : m_k->tokens)
                     .arg(m_k->passes)
                     .arg(m_k->seconds, 0, 'f', 2);
  if (m_spreadRuns >= 2) text += tr("; %1 seeded replicas stored knock-outs (hover a cell)").arg(m_spreadRuns);
  m_summary->setText(text);
}

QString LensKnockoutTab::tip(int row, int col) const {
  if (!m_k) return {};
  const int ci = m_class->currentIndex() - 1;
  const std::string cls = ci >= 0 && ci < static_cast<int>(m_k->class_names.size()) ? m_k->class_names[ci] : "";
  const int layer = row < m_k->layers ? row : -1;
  QString t = tr("%1 removed in %2%3: %4 nats/token")
                  .arg(kBranchNames.value(col), layer < 0 ? tr("every layer") : tr("layer %1").arg(layer),
                       cls.empty() ? QString() : tr(" (%1 tokens)").arg(QString::fromStdString(cls)),
                       signedNats(m_heatmap->cellValue(row, col)));
  auto it = m_spread.find({cls, layer, col});
  if (it != m_spread.end() && it->second.seeds >= 2)
    t += tr("\nover %1 seeds (stored): mean %2, sd %3").arg(it->second.seeds).arg(signedNats(it->second.mean))
             .arg(it->second.sd, 0, 'f', 4);
  return t;
}

bool LensKnockoutTab::writeCsv(const QString& path, QString* error) const {
  if (!m_k) {
    if (error) *error = tr("Nothing measured yet: press Run.");
    return false;
  }
  const runtime::KnockoutResult& k = *m_k;
  return widgets::writeCsvFile(path, "class,layer,branch,delta_nats,base_loss,tokens", [&](QTextStream& out) {
    auto write = [&](const std::string& cls, const model::FloatMatrix& d, double base, int64_t tokens) {
      for (int r = 0; r < d.rows; ++r)
        for (int b = 0; b < d.cols; ++b)
          out << widgets::csvField(QString::fromStdString(cls)) << ',' << (r < k.layers ? r : -1) << ','
              << branchKey(b) << ',' << widgets::csvNumber(d.at(r, b)) << ',' << widgets::csvNumber(base) << ','
              << tokens << '\n';
    };
    write("", k.delta, k.base_loss, k.tokens);
    for (size_t c = 0; c < k.delta_by_class.size() && c < k.class_names.size(); ++c)
      write(k.class_names[c], k.delta_by_class[c], c < k.base_by_class.size() ? k.base_by_class[c] : NAN,
            c < k.class_tokens.size() ? k.class_tokens[c] : 0);
  }, error);
}

}  // namespace pha::gui
