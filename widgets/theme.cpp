#include "widgets/theme.h"

#include <QApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMetaEnum>
#include <QStyle>
#include <QStyleFactory>
#include <memory>

namespace pha::widgets {

QPalette loadPalette(Theme theme) {
  // The factory hands over ownership (LeakSanitizer found this style never freed).
  const std::unique_ptr<QStyle> fusion(QStyleFactory::create("Fusion"));
  QPalette palette = fusion->standardPalette();
  QFile f(theme == Theme::Dark ? ":/pha/palettes/dark.json" : ":/pha/palettes/light.json");
  if (!f.open(QIODevice::ReadOnly)) return palette;
  const QJsonObject roles = QJsonDocument::fromJson(f.readAll()).object();
  const QMetaEnum meta = QMetaEnum::fromType<QPalette::ColorRole>();
  for (auto it = roles.begin(); it != roles.end(); ++it) {
    bool ok = false;
    int role = meta.keyToValue(it.key().toLatin1().constData(), &ok);
    if (!ok) continue;
    QColor c(it.value().toString());
    if (!c.isValid()) continue;
    palette.setColor(QPalette::All, static_cast<QPalette::ColorRole>(role), c);
  }
  const QColor disabled = palette.color(QPalette::PlaceholderText);
  palette.setColor(QPalette::Disabled, QPalette::Text, disabled);
  palette.setColor(QPalette::Disabled, QPalette::ButtonText, disabled);
  palette.setColor(QPalette::Disabled, QPalette::WindowText, disabled);
  return palette;
}

void applyTheme(Theme theme) {
  QApplication::setStyle(QStyleFactory::create("Fusion"));
  QApplication::setPalette(loadPalette(theme));
}

QString themeName(Theme theme) { return theme == Theme::Dark ? "dark" : "light"; }

Theme themeFromName(const QString& name) { return name == "dark" ? Theme::Dark : Theme::Light; }

}  // namespace pha::widgets
