// ConfigEditor as a user drives it: presets, form edits, typed JSON, errors, undo/redo and the
// live summary, each checked against the engine's own functions.
#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QTest>
#include <QUndoStack>
#include <gtest/gtest.h>

#include "gui/config/config_summary.h"
#include "model/flops.h"
#include "model/presets.h"
#include "widgets/number_format.h"
#include "test_helpers.h"

using namespace pha::gui;
using namespace pha::gui::test;
using nlohmann::json;
namespace pm = pha::model;

TEST(ConfigEditor, StartsWithAValidTinyConfig) {
  ConfigEditor e;
  EXPECT_TRUE(e.isValid());
  EXPECT_TRUE(e.errorText().isEmpty());
  EXPECT_EQ(e.configJson(), pm::to_json(pm::preset("pha-tiny")));
  EXPECT_EQ(e.undoStack()->count(), 0);
}

TEST(ConfigEditor, LoadingAPresetFillsTheFormAndTheJson) {
  ConfigEditor e;
  std::vector<json> changes;
  QObject::connect(&e, &ConfigEditor::configChanged, [&](const json& m) { changes.push_back(m); });
  choose(e.presetChooser(), "pha-125m");

  const json expected = pm::to_json(pm::preset("pha-125m"));
  EXPECT_EQ(spin(e, "d_model")->value(), 768);
  EXPECT_EQ(spin(e, "n_layers")->value(), 10);
  EXPECT_EQ(spin(e, "attention.kv_heads")->value(), 4);
  EXPECT_EQ(spin(e, "gss.expanded")->value(), 1536);
  EXPECT_EQ(spin(e, "vocab_size")->value(), pm::kGpt2VocabSize);
  EXPECT_EQ(combo(e, "variant")->currentText(), "pha");
  EXPECT_EQ(shownJson(e), expected);
  EXPECT_EQ(e.configJson(), expected);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0], expected);
  EXPECT_EQ(e.undoStack()->count(), 1);
  EXPECT_EQ(e.summary()->params().total, pm::count_parameters(pm::preset("pha-125m")).total);
  EXPECT_FALSE(e.loadPreset("no-such-preset"));
  EXPECT_EQ(e.undoStack()->count(), 1);
}

TEST(ConfigEditor, TypingDModelUpdatesJsonAndParameterCountInOneUndoStep) {
  ConfigEditor e;
  QSpinBox* d = spin(e, "d_model");
  d->setFocus();
  d->selectAll();
  QTest::keyClicks(d, "256");  // passes through 2 and 25 (invalid: heads = 4 must divide d_model)
  EXPECT_EQ(d->value(), 256);
  EXPECT_TRUE(e.isValid()) << e.errorText().toStdString();
  EXPECT_EQ(shownJson(e)["d_model"], 256);

  pm::ModelConfig expected = pm::preset("pha-tiny");
  expected.d_model = 256;
  EXPECT_EQ(e.config().d_model, 256);
  EXPECT_EQ(e.summary()->params().total, pm::count_parameters(expected).total);
  EXPECT_EQ(e.summary()->cellText(ConfigSummary::Total, ConfigSummary::Params),
            pha::widgets::formatCount(double(pm::count_parameters(expected).total)));
  EXPECT_EQ(e.undoStack()->count(), 1) << "keystrokes in one field merge into one step";
  // The step says what was typed in the end, not its first keystroke ("Set d_model to 2").
  EXPECT_EQ(e.undoStack()->undoText(), "Set d_model to 256");
}

TEST(ConfigEditor, JsonSyntaxErrorIsShownAndTheLastValidConfigStays) {
  ConfigEditor e;
  const json before = e.configJson();
  typeJson(e, "{ \"d_model\": 256, ");
  EXPECT_FALSE(e.isValid());
  EXPECT_TRUE(e.errorText().startsWith("JSON syntax")) << e.errorText().toStdString();
  EXPECT_TRUE(e.errorText().contains("line 1")) << e.errorText().toStdString();
  auto* label = modelPane(e)->findChild<QLabel*>("jsonError");
  ASSERT_NE(label, nullptr);
  EXPECT_FALSE(label->isHidden());
  EXPECT_EQ(e.configJson(), before);
  EXPECT_EQ(spin(e, "d_model")->value(), 128);
  EXPECT_EQ(e.undoStack()->count(), 0) << "text that does not parse is not an edit";

  // Fixing the text takes it in and clears the error.
  typeJson(e, QString::fromStdString(before.dump()).replace("\"d_model\":128", "\"d_model\":192"));
  EXPECT_TRUE(e.isValid()) << e.errorText().toStdString();
  EXPECT_TRUE(label->isHidden());
  EXPECT_EQ(spin(e, "d_model")->value(), 192);
  EXPECT_EQ(e.configJson()["d_model"], 192);
}

TEST(ConfigEditor, AJsonSyntaxErrorIsSaidPlainlyWithItsLineAndColumn) {
  ConfigEditor e;
  typeJson(e, "{\n  \"d_model\": 256\n  \"n_layers\": 2\n}");
  EXPECT_EQ(e.errorText(), "JSON syntax error, line 3, column 3: expected ',' or '}'");
  auto* label = modelPane(e)->findChild<QLabel*>("jsonError");
  ASSERT_NE(label, nullptr);
  EXPECT_FALSE(label->text().contains("json.exception")) << label->text().toStdString();
  EXPECT_TRUE(label->text().contains("line 3, column 3")) << label->text().toStdString();
  const auto marks = modelPane(e)->editor()->extraSelections();
  ASSERT_EQ(marks.size(), 1);
  EXPECT_EQ(marks.front().cursor.blockNumber(), 2) << "the third line is tinted";
}

TEST(ConfigEditor, EveryFieldSaysWhatItMeans) {
  ConfigEditor e;
  std::vector<JsonForm*> forms = {e.modelEditor()->form(), e.trainingEditor()->form()};
  for (JsonForm* form : forms) {
    for (const QString& key : form->keys()) {
      EXPECT_FALSE(form->help(key).isEmpty()) << key.toStdString();
      EXPECT_TRUE(form->fieldWidget(key)->toolTip().startsWith(form->help(key))) << key.toStdString();
      EXPECT_TRUE(form->fieldWidget(key)->toolTip().contains(key)) << "the JSON key follows: " << key.toStdString();
    }
  }
  // An invalid field shows its error, then its help again once fixed.
  QSpinBox* kv = spin(e, "attention.kv_heads");
  kv->setValue(3);
  EXPECT_TRUE(kv->toolTip().startsWith("model.attention.kv_heads")) << kv->toolTip().toStdString();
  kv->setValue(2);
  EXPECT_TRUE(kv->toolTip().startsWith(modelForm(e)->help("attention.kv_heads"))) << kv->toolTip().toStdString();
}

TEST(ConfigEditor, KvHeadsThatDoNotDivideHeadsNameTheFieldAndOutlineIt) {
  ConfigEditor e;
  const json before = e.configJson();
  QSpinBox* kv = spin(e, "attention.kv_heads");
  kv->setValue(3);  // heads = 4
  EXPECT_FALSE(e.isValid());
  EXPECT_TRUE(e.errorText().startsWith("model.attention.kv_heads")) << e.errorText().toStdString();
  EXPECT_TRUE(e.errorText().contains("1, 2, 4")) << e.errorText().toStdString();
  EXPECT_TRUE(kv->property("invalid").toBool());
  QWidget* outline = modelForm(e)->invalidOutline();
  EXPECT_FALSE(outline->isHidden());
  EXPECT_TRUE(outline->geometry().contains(kv->geometry())) << "the red frame surrounds the field";
  EXPECT_FALSE(spin(e, "d_model")->property("invalid").toBool());
  EXPECT_EQ(shownJson(e)["attention"]["kv_heads"], 3) << "the JSON shows what the user typed";
  EXPECT_EQ(e.configJson(), before) << "the last valid config stays in effect";
  EXPECT_EQ(e.summary()->params().total, pm::count_parameters(pm::preset("pha-tiny")).total);

  kv->setValue(4);
  EXPECT_TRUE(e.isValid());
  EXPECT_FALSE(kv->property("invalid").toBool());
  EXPECT_TRUE(outline->isHidden());
  EXPECT_EQ(e.configJson()["attention"]["kv_heads"], 4);
}

TEST(ConfigEditor, AnErrorTypedInTheJsonOutlinesTheFormField) {
  ConfigEditor e;
  json doc = e.configJson();
  doc["gss"]["state"] = 0;
  typeJson(e, QString::fromStdString(doc.dump(2)));
  EXPECT_FALSE(e.isValid());
  EXPECT_TRUE(e.errorText().startsWith("model.gss.state")) << e.errorText().toStdString();
  EXPECT_TRUE(spin(e, "gss.state")->property("invalid").toBool());
  EXPECT_EQ(e.modelEditor()->form()->invalidField(), "gss.state");
}

TEST(ConfigEditor, UndoRestoresFormAndJsonRedoReappliesThem) {
  ConfigEditor e;
  spin(e, "d_model")->setValue(192);
  spin(e, "n_layers")->setValue(6);
  ASSERT_EQ(e.undoStack()->count(), 2);

  e.undoAction()->trigger();
  EXPECT_EQ(spin(e, "n_layers")->value(), 4);
  EXPECT_EQ(shownJson(e)["n_layers"], 4);
  EXPECT_EQ(spin(e, "d_model")->value(), 192);
  e.undoAction()->trigger();
  EXPECT_EQ(spin(e, "d_model")->value(), 128);
  EXPECT_EQ(shownJson(e)["d_model"], 128);
  EXPECT_EQ(e.configJson()["d_model"], 128);
  EXPECT_FALSE(e.undoAction()->isEnabled());

  e.redoAction()->trigger();
  EXPECT_EQ(spin(e, "d_model")->value(), 192);
  EXPECT_EQ(shownJson(e)["d_model"], 192);
  EXPECT_EQ(e.configJson()["d_model"], 192);
  EXPECT_EQ(e.undoAction()->shortcut(), QKeySequence(QKeySequence::Undo));
  EXPECT_EQ(e.redoAction()->shortcut(), QKeySequence(QKeySequence::Redo));
}

TEST(ConfigEditor, TypedJsonIsOneUndoStepAndCtrlZInTheEditorUndoesIt) {
  ConfigEditor e;
  json doc = e.configJson();
  doc["d_model"] = 96;
  doc["attention"]["heads"] = 2;
  doc["attention"]["kv_heads"] = 1;
  modelPane(e)->editor()->setPlainText(QString::fromStdString(doc.dump(2)));
  // The debounce takes the text in after a pause.
  QTRY_COMPARE_WITH_TIMEOUT(spin(e, "d_model")->value(), 96, 2000);
  EXPECT_EQ(spin(e, "attention.heads")->value(), 2);
  EXPECT_EQ(e.undoStack()->count(), 1);
  EXPECT_TRUE(e.isValid()) << e.errorText().toStdString();

  QTest::keySequence(modelPane(e)->editor(), QKeySequence::Undo);
  EXPECT_EQ(spin(e, "d_model")->value(), 128);
  EXPECT_EQ(shownJson(e)["d_model"], 128);
  QTest::keySequence(modelPane(e)->editor(), QKeySequence::Redo);
  EXPECT_EQ(spin(e, "d_model")->value(), 96);
}

TEST(ConfigEditor, BranchFlopsEqualEstimateFlops) {
  ConfigEditor e;
  e.loadPreset("pha-90m");
  ConfigSummary* s = e.summary();
  EXPECT_EQ(s->seqLen(), 1024) << "T follows the config's context";
  const pm::ModelConfig cfg = pm::preset("pha-90m");
  auto check = [&](int t, int b) {
    const pm::FlopsEstimate f = pm::estimate_flops(cfg, t, b);
    EXPECT_DOUBLE_EQ(s->flops().forward.gss(), f.forward.gss());
    EXPECT_DOUBLE_EQ(s->flops().forward.attention(), f.forward.attention());
    EXPECT_DOUBLE_EQ(s->flops().training.ffn, f.training.ffn);
    EXPECT_EQ(s->cellText(ConfigSummary::Gss, ConfigSummary::Forward), pha::widgets::formatFlops(f.forward.gss()));
    EXPECT_EQ(s->cellText(ConfigSummary::Attention, ConfigSummary::Training), pha::widgets::formatFlops(f.training.attention()));
    EXPECT_EQ(s->cellText(ConfigSummary::Total, ConfigSummary::Forward), pha::widgets::formatFlops(f.forward.total()));
    EXPECT_EQ(s->trainingMemory().total(), pm::estimate_memory(cfg, b, t, true).total());
  };
  check(1024, 8);
  s->setSeqLen(8192);  // attention scores grow with T, the GSS matmuls do not
  s->setBatch(2);
  check(8192, 2);
  EXPECT_GT(s->flops().forward.attn_scores, pm::estimate_flops(cfg, 1024, 2).forward.attn_scores);
}

TEST(ConfigEditor, PatternVariantEditsTheLayerList) {
  ConfigEditor e;
  auto* pattern = qobject_cast<QLineEdit*>(modelForm(e)->fieldWidget("layers"));
  ASSERT_NE(pattern, nullptr);
  EXPECT_FALSE(pattern->isEnabled()) << "the variant sets the layers";
  choose(combo(e, "variant"), "pattern");
  EXPECT_TRUE(pattern->isEnabled());
  EXPECT_EQ(pattern->text(), "parallel, parallel, parallel, parallel");
  EXPECT_FALSE(spin(e, "n_layers")->isEnabled());
  EXPECT_TRUE(e.isValid()) << e.errorText().toStdString();

  pattern->setFocus();
  pattern->selectAll();
  QTest::keyClicks(pattern, "gss, gss, attn");
  EXPECT_TRUE(e.isValid()) << e.errorText().toStdString();
  EXPECT_EQ(spin(e, "n_layers")->value(), 3);
  EXPECT_EQ(e.config().layers.size(), 3u);
  EXPECT_EQ(e.config().layers[2].kind, pm::BlockKind::Transformer);
  EXPECT_EQ(shownJson(e)["layers"], json({"gss", "gss", "attn"}));

  QTest::keyClicks(pattern, ", ssm");
  EXPECT_FALSE(e.isValid());
  EXPECT_TRUE(e.errorText().startsWith("model.layers[3]")) << e.errorText().toStdString();
  EXPECT_TRUE(pattern->property("invalid").toBool());

  choose(combo(e, "variant"), "pha-uniform");
  EXPECT_TRUE(e.isValid()) << e.errorText().toStdString();
  EXPECT_EQ(combo(e, "mixer")->currentText(), "uniform");
  EXPECT_FALSE(shownJson(e).contains("layers"));
}

TEST(ConfigEditor, CtrlZInAFormFieldUndoesTheSharedHistory) {
  ConfigEditor e;
  e.show();
  spin(e, "n_layers")->setValue(6);
  QSpinBox* d = spin(e, "d_model");
  d->setValue(192);
  ASSERT_EQ(e.undoStack()->count(), 2);
  d->setFocus();
  QTest::keySequence(d, QKeySequence::Undo);
  EXPECT_EQ(d->value(), 128);
  QTest::keySequence(d, QKeySequence::Undo);
  EXPECT_EQ(spin(e, "n_layers")->value(), 4) << "the other field's edit is undone from here too";
  QTest::keySequence(d, QKeySequence::Redo);
  EXPECT_EQ(spin(e, "n_layers")->value(), 6);
  EXPECT_EQ(e.undoStack()->index(), 1);
}

TEST(ConfigEditor, ASectionThatIsNotAnObjectIsAnErrorNotACrash) {
  ConfigEditor e;
  const json before = e.configJson();
  e.setConfigJson(json::array({1, 2}));
  EXPECT_FALSE(e.isValid());
  EXPECT_TRUE(e.errorText().startsWith("model: expected an object")) << e.errorText().toStdString();
  EXPECT_EQ(e.configJson(), before);
  spin(e, "d_model")->setValue(256);  // a form edit starts a new object
  EXPECT_EQ(shownJson(e), json({{"d_model", 256}}));
  EXPECT_TRUE(e.isValid()) << e.errorText().toStdString();
  EXPECT_EQ(e.configJson()["d_model"], 256);
}
