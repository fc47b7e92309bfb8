// The Configuration dock at the window's default size (1600 x 1000): the model form gets the
// dock's height (the summary folds to one line, the form takes two thirds of the stack), so most
// of its fields are in view at once, not ~3 in a small scroll area.
#include <QApplication>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QTest>
#include <gtest/gtest.h>

#include "gui/config/config_editor.h"
#include "gui/config/config_summary.h"
#include "gui/config/json_form.h"
#include "gui/main_window.h"
#include "gui/config/section_editor.h"

using namespace pha::gui;

TEST(ConfigDock, TheModelFormShowsMostOfItsFieldsAtTheDefaultWindowSize) {
  QSettings().clear();
  MainWindow w;
  w.resize(1600, 1000);
  w.show();
  // The default dock sizes are applied on a timer after the first show, and the editor turns
  // its splitter on the resize that follows: on a loaded machine that takes more than one pass
  // of the event loop, so wait for the layout to settle (at most 5 s).
  SectionEditor* model = w.configEditor()->modelEditor();
  for (int waited = 0; waited < 5000 && model->splitter()->orientation() != Qt::Vertical; waited += 50)
    QTest::qWait(50);
  QTest::qWait(100);
  auto* scroll = qobject_cast<QScrollArea*>(model->splitter()->widget(0));
  ASSERT_NE(scroll, nullptr);
  ASSERT_EQ(model->splitter()->orientation(), Qt::Vertical) << "the default dock is narrow: form above JSON";
  int visible = 0;
  for (const QString& key : model->form()->keys()) {
    QWidget* field = model->form()->fieldWidget(key);
    const QRect r(field->mapTo(scroll->viewport(), QPoint(0, 0)), field->size());
    visible += scroll->viewport()->rect().contains(r) ? 1 : 0;
  }
  EXPECT_GE(visible, 7) << "fields fully in view of " << model->form()->keys().size();
  EXPECT_FALSE(w.configEditor()->summary()->isExpanded()) << "the per-branch table starts folded";
  EXPECT_TRUE(w.configEditor()->summary()->headlineText().contains("params")) << "the totals stay in view";
}
