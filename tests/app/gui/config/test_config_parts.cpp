// The configuration editor's parts on their own: number formatting, the JSON form's field
// lookup, the layer pattern text, undo merging, the narrow-dock layout and the training tab.
#include <QLineEdit>
#include <QSplitter>
#include <QTest>
#include <QUndoStack>
#include <gtest/gtest.h>

#include "gui/config/document_command.h"
#include "gui/config/model_fields.h"
#include "widgets/number_format.h"
#include "test_helpers.h"

using namespace pha::gui;
using namespace pha::gui::test;
using nlohmann::json;

TEST(NumberFormat, ThreeSignificantDigitsWithPrefixes) {
  EXPECT_EQ(pha::widgets::formatCount(950), "950");
  EXPECT_EQ(pha::widgets::formatCount(1234567), "1.23 M");
  EXPECT_EQ(pha::widgets::formatCount(124.6e6), "125 M");
  EXPECT_EQ(pha::widgets::formatCount(999999), "1 M");
  EXPECT_EQ(pha::widgets::formatCount(12500), "12.5 k");
  EXPECT_EQ(pha::widgets::formatFlops(4.5e9), "4.5 GFLOP");
  EXPECT_EQ(pha::widgets::formatFlops(0), "0 FLOP");
  EXPECT_EQ(pha::widgets::formatBytes(1288490188.8), "1.2 GiB");
  EXPECT_EQ(pha::widgets::formatBytes(512), "512 B");
}

TEST(JsonForm, ErrorPathsFindTheirField) {
  JsonForm form;
  populateModelForm(&form);
  EXPECT_EQ(form.fieldForPath("model.attention.kv_heads", "model"), "attention.kv_heads");
  EXPECT_EQ(form.fieldForPath("model.layers[2]", "model"), "layers");
  EXPECT_EQ(form.fieldForPath("model.layers[0].sublayers[1]", "model"), "layers");
  EXPECT_EQ(form.fieldForPath("model.attention.rope_theta", "model"), "");  // not in the form
  EXPECT_EQ(form.fieldForPath("model", "model"), "");
  EXPECT_EQ(form.fieldForPath("training.lr", "model"), "");
}

TEST(JsonForm, ShowsDocumentDefaultsAndLeavesWrongTypesAlone) {
  JsonForm form;
  populateModelForm(&form);
  int edits = 0;
  QObject::connect(&form, &JsonForm::fieldEdited, [&] { ++edits; });
  auto* d = qobject_cast<QSpinBox*>(form.fieldWidget("d_model"));
  auto* heads = qobject_cast<QSpinBox*>(form.fieldWidget("attention.heads"));
  auto* layers = qobject_cast<QSpinBox*>(form.fieldWidget("n_layers"));
  form.setDocument(json{{"attention", {{"heads", 4}}}}, modelDefaults(json::object()));
  EXPECT_EQ(heads->value(), 4);
  form.setDocument(json{{"d_model", 64}, {"attention", {{"heads", "four"}}}}, modelDefaults(json::object()));
  EXPECT_EQ(d->value(), 64);
  EXPECT_EQ(heads->value(), 4) << "\"four\" is not an integer: the field keeps its value";
  EXPECT_EQ(layers->value(), pha::model::ModelConfig{}.n_layers);
  EXPECT_EQ(edits, 0) << "showing a document is not an edit";
  d->setValue(96);
  EXPECT_EQ(edits, 1);
}

TEST(ModelFields, PatternTextRoundTrips) {
  EXPECT_EQ(patternFromText("gss, gss,attn"), json({"gss", "gss", "attn"}));
  EXPECT_EQ(patternFromText("gss, "), json({"gss"}));  // a trailing comma while typing
  EXPECT_EQ(patternFromText("gss,,attn"), json({"gss", "", "attn"}));
  EXPECT_EQ(patternToText(json({"parallel", "attn"})), "parallel, attn");
  const json custom = json::array({json{{"kind", "parallel"}, {"sublayers", {{"gss", "ffn"}}}}});
  EXPECT_EQ(patternToText(custom), "parallel*");
  EXPECT_FALSE(isPlainPattern(custom));
}

TEST(ModelFields, ParentThatIsNotAnObjectGivesWayToAFormEdit) {
  const json doc = applyModelEdit(json{{"attention", 5}}, "attention.heads", 4);
  EXPECT_EQ(doc["attention"]["heads"], 4);
}

TEST(DocumentCommand, EditsOfOneFieldMergeAndAReturnToTheStartDropsOut) {
  QUndoStack stack;
  json current = json{{"a", 1}};
  auto apply = [&](const json& d, bool) { current = d; };
  stack.push(new DocumentCommand("a", current, json{{"a", 2}}, apply, 7));
  stack.push(new DocumentCommand("a", current, json{{"a", 3}}, apply, 7));
  EXPECT_EQ(stack.count(), 1);
  stack.push(new DocumentCommand("b", current, json{{"a", 3}, {"b", 1}}, apply, 8));
  EXPECT_EQ(stack.count(), 2);
  stack.undo();
  stack.undo();
  EXPECT_EQ(current, json({{"a", 1}}));
  stack.redo();
  // Back to 1: merges with the first command, which then changes nothing and is dropped.
  stack.push(new DocumentCommand("a", current, json{{"a", 1}}, apply, 7));
  EXPECT_EQ(current, json({{"a", 1}}));
  EXPECT_EQ(stack.count(), 0);
}

TEST(ConfigEditorLayout, NarrowDockStacksFormAboveJson) {
  ConfigEditor e;
  e.resize(460, 900);
  e.show();
  QApplication::processEvents();
  EXPECT_EQ(e.modelEditor()->splitter()->orientation(), Qt::Vertical);
  e.resize(1200, 900);
  QApplication::processEvents();
  EXPECT_EQ(e.modelEditor()->splitter()->orientation(), Qt::Horizontal);
}

TEST(ConfigEditorTraining, TrainingTabValidatesWithTheRuntime) {
  ConfigEditor e;
  JsonForm* form = e.trainingEditor()->form();
  auto* steps = qobject_cast<QSpinBox*>(form->fieldWidget("steps"));
  auto* warmup = qobject_cast<QSpinBox*>(form->fieldWidget("warmup_steps"));
  ASSERT_NE(steps, nullptr);
  EXPECT_TRUE(e.isTrainingValid()) << e.trainingErrorText().toStdString();
  steps->setValue(20);  // warmup 30 > steps
  EXPECT_FALSE(e.isTrainingValid());
  EXPECT_TRUE(e.trainingErrorText().startsWith("training.warmup_steps")) << e.trainingErrorText().toStdString();
  EXPECT_TRUE(warmup->property("invalid").toBool());
  warmup->setValue(10);
  EXPECT_TRUE(e.isTrainingValid());
  EXPECT_EQ(e.trainingJson()["steps"], 20);
  EXPECT_EQ(e.trainingJson()["warmup_steps"], 10);

  auto* lr = qobject_cast<QLineEdit*>(form->fieldWidget("lr"));
  lr->setText("");
  QTest::keyClicks(lr, "3e-4");
  EXPECT_DOUBLE_EQ(e.trainingJson()["lr"].get<double>(), 3e-4);
  e.undoAction()->trigger();
  EXPECT_FALSE(e.trainingJson().contains("lr")) << "one step for the typed lr, back to the default";
}
