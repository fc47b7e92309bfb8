// Light and dark palettes, read from the compiled-in resources (:/pha/palettes/*.json).
#pragma once

#include <QPalette>
#include <QString>

namespace pha::widgets {

enum class Theme { Light, Dark };

// Palette for a theme; throws nothing: a broken resource falls back to Qt's default palette.
QPalette loadPalette(Theme theme);
void applyTheme(Theme theme);
QString themeName(Theme theme);
Theme themeFromName(const QString& name);  // "dark" -> Dark, anything else -> Light

}  // namespace pha::widgets
