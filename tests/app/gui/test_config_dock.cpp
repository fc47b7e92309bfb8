// The Configuration dock at the window's default size (1600 x 1000): the model form gets the
// dock's height (the summary folds to one line, the form takes two thirds of the stack), so most
// of its fields are in view at once, not ~3 in a small scroll area.
#include <QApplication>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QTest>
#include <gtest/gtest.h>

#include "config_editor.h"
#include "config_summary.h"
#include "json_form.h"
#include "main_window.h"
#include "section_editor.h"

using namespace pha::gui;

TEST(ConfigDock, TheModelFormShowsMostOfItsFieldsAtTheDefaultWindowSize) {
  QSettings().clear();
  MainWindow w;
  w.resize(1600, 1000);
  w.show();
  QTest::qWait(100);  // the default dock sizes are applied on a timer after the first show
  SectionEditor* model = w.configEditor()->modelEditor();
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
