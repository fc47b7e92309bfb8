// The Configuration dock's "Add to project as variant..." button, pressed as a user would on a
// copy of the quickstart project: the name dialog proposes a free name, the variant lands in
// project.json (through the engine's add_variant) and in the session's runs; a taken name is
// refused with the file left as it was.
#include <QApplication>
#include <QInputDialog>
#include <QPushButton>
#include <QTimer>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "gui/config/config_editor.h"
#include "engine/runtime/runtime_test_util.h"
#include "gui/main_window.h"
#include "gui/project/project_session.h"
#include "project/project_files.h"
#include "window_project.h"

using namespace pha::gui;
using nlohmann::json;

namespace {

using pha::test::writeQuickstartCopy;

std::string fileText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Presses the button and answers the name dialog with `name`; returns the name it proposed
// ("(no dialog)" when none opened).
QString pressAddVariant(MainWindow& w, const QString& name) {
  auto* button = w.findChild<QPushButton*>("addVariantButton");
  EXPECT_NE(button, nullptr);
  if (!button) return {};
  QString proposed = "(no dialog)";
  QTimer poll;
  QObject::connect(&poll, &QTimer::timeout, [&] {
    auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
    if (!dialog) return;
    poll.stop();
    proposed = dialog->textValue();
    dialog->setTextValue(name);
    dialog->accept();
  });
  poll.start(10);
  button->click();
  return proposed;
}

}  // namespace

TEST(AddVariant, TheButtonWritesTheEditedModelIntoProjectJsonAndTheSessionRunsIt) {
  pha::test::TempProject tp;
  writeQuickstartCopy(tp);
  MainWindow w;
  w.show();
  ASSERT_TRUE(w.openProject(QString::fromStdString(tp.dir().string()))) << w.lastError().toStdString();
  ASSERT_EQ(w.session()->runNames(), (QStringList{"pha-tiny", "transformerpp-tiny", "sequential-tiny"}));

  // The editor shows the first run's model (pha-tiny); make it wider.
  json model = w.configEditor()->configJson();
  ASSERT_EQ(model.value("name", std::string()), "pha-tiny");
  model["d_model"] = 96;
  w.configEditor()->setConfigJson(model);
  ASSERT_TRUE(w.configEditor()->isValid()) << w.configEditor()->errorText().toStdString();

  EXPECT_EQ(pressAddVariant(w, "pha-wide"), "pha-tiny-2") << "the dialog proposes a name the project does not use";
  EXPECT_EQ(w.session()->runNames(), (QStringList{"pha-tiny", "transformerpp-tiny", "sequential-tiny", "pha-wide"}))
      << w.lastError().toStdString();
  EXPECT_EQ(w.session()->runConfig("pha-wide")["model"]["d_model"], 96);

  std::ifstream in(tp.dir() / "project.json");
  const json written = json::parse(in);
  ASSERT_EQ(written["variants"].size(), 4u);
  EXPECT_EQ(written["variants"][3]["name"], "pha-wide");
  EXPECT_EQ(written["variants"][3]["model"]["d_model"], 96);
  EXPECT_EQ(written["variants"][3]["model"]["name"], "pha-wide") << "the model is named after its variant";
  EXPECT_EQ(w.session()->runConfig("pha-wide")["model"]["name"], "pha-wide");
  EXPECT_EQ(written["variants"][0], "pha-tiny") << "the rest of the file is kept";

  // The same name again: refused with a clear message, project.json untouched.
  const std::string before = fileText((tp.dir() / "project.json").string());
  pressAddVariant(w, "pha-wide");
  EXPECT_NE(w.lastError().indexOf("\"pha-wide\" is taken"), -1) << w.lastError().toStdString();
  EXPECT_EQ(fileText((tp.dir() / "project.json").string()), before);
  EXPECT_EQ(w.session()->runNames().size(), 4);
}
