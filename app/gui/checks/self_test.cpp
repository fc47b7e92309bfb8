#include "gui/checks/self_test.h"

#include <QFile>
#include <QIcon>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPixmap>
#include <cstdio>

#include "device/system_info.h"

namespace pha::gui {

namespace {
bool check(bool ok, const char* what, const QString& detail = {}) {
  std::printf("[%s] %s%s%s\n", ok ? "ok" : "FAIL", what, detail.isEmpty() ? "" : ": ",
              detail.toLocal8Bit().constData());
  return ok;
}
}  // namespace

int runSelfTest() {
  bool ok = true;
  const QPixmap icon = QIcon(":/pha/icons/pha-workbench.svg").pixmap(64, 64);
  // The icon must render (needs the Qt SVG image-format plugin), not merely exist.
  const bool rendered = !icon.isNull() && icon.toImage().pixelColor(32, 32).alpha() > 0;
  ok &= check(rendered, "application icon renders", rendered ? "64x64" : "missing SVG plugin or resource");
  for (const char* name : {":/pha/palettes/light.json", ":/pha/palettes/dark.json"}) {
    QFile f(name);
    const bool parsed = f.open(QIODevice::ReadOnly) && !QJsonDocument::fromJson(f.readAll()).object().isEmpty();
    ok &= check(parsed, "palette resource", name);
  }
  const device::SystemInfo info = device::collect_system_info(/*measure_gemm=*/false);
  ok &= check(!info.torch_version.empty(), "engine linked", QString("LibTorch %1").arg(info.torch_version.c_str()));
  return ok ? 0 : 1;
}

}  // namespace pha::gui
