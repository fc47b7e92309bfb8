// One error style in every section of a project file (model, data, tokenizer, task, training,
// profile, the top level, variants, grid): the field path, what was found, what is allowed,
// "did you mean" for unknown keys; and the documented limits on work (docs/project-format.md).
#include <gtest/gtest.h>

#include "core/error.h"
#include "error_message.h"
#include "core/limits.h"
#include "project/project.h"
#include "project/project_report.h"
#include "engine/runtime/runtime_test_util.h"

using nlohmann::json;
using pha::project::DataSpec;
using pha::project::ProfileSettings;
using pha::project::TrainingConfig;

using pha::test::error_message;

namespace {

// The message of parse_project for the test project with `patch` merged over it.
std::string project_error(const json& patch) {
  pha::test::TempProject p;
  json j = p.text_project();
  j.merge_patch(patch);
  return error_message([&] { pha::project::parse_project(j, p.dir().string(), "project.json"); });
}

std::string training_error(const json& section) { return error_message([&] { TrainingConfig::from_json(section); }); }

const json kMqar = {{"task", "mqar"}, {"seq_len", 32}, {"num_kv_pairs", 2}, {"vocab_size", 64}};

std::string task_error(const json& train_patch, const json& data_patch = json::object()) {
  json train = kMqar;
  train.merge_patch(train_patch);
  json data = {{"kind", "task"}, {"train", train}};
  data.merge_patch(data_patch);
  return error_message([&] { DataSpec::from_json(data); });
}

TEST(ConfigErrors, TrainingSection) {
  EXPECT_EQ(training_error({{"sweep_exampels", 10}}), "training.sweep_exampels: unknown key; did you mean \"sweep_examples\"?");
  EXPECT_EQ(training_error({{"lr", "fast"}}), "training.lr: expected a number, got a string (\"fast\")");
  EXPECT_EQ(training_error({{"batch_size", 0}}),
            "training.batch_size: 0 is out of range; allowed: 1 to 4096 (" + std::string(pha::core::limits::kNote) + ")");
  EXPECT_EQ(training_error({{"device", "tpu"}}), "training.device: \"tpu\" is not allowed; allowed: \"auto\", \"cpu\", \"cuda\"");
  EXPECT_EQ(training_error({{"steps", 10}, {"warmup_steps", 20}}),
            "training.warmup_steps: 20 is more than training.steps = 10; allowed: 0 to 10");
  EXPECT_EQ(training_error({{"precision", "fp16"}}),
            "training.precision: \"fp16\" is not allowed; allowed: \"auto\", \"fp32\", \"bf16\"");
}

// bf16 mixed precision trains on the CPU too (docs/project-format.md): a project may ask for it
// with device "cpu" (an earlier check refused that pairing from when only CUDA had a bf16 path).
TEST(ConfigErrors, Bf16OnTheCpuIsAccepted) {
  const TrainingConfig c = TrainingConfig::from_json({{"device", "cpu"}, {"precision", "bf16"}});
  EXPECT_EQ(c.device, "cpu");
  EXPECT_EQ(c.precision, "bf16");
}

TEST(ConfigErrors, ModelSectionInsideAVariantNamesTheNestedPath) {
  const json variant = {{"name", "mine"}, {"model", {{"attention", {{"kv_head", 1}}}}}};
  EXPECT_NE(project_error({{"variants", {"pha", variant}}})
                .find("variants[1].model.attention.kv_head: unknown key; did you mean \"kv_heads\"?"),
            std::string::npos);
  const json training = {{"name", "fast"}, {"training", {{"lr", -1}}}};
  EXPECT_NE(project_error({{"variants", {"pha", training}}})
                .find("variants[1].training.lr: -1 is out of range; allowed: >= 0 and <= 1e+12"),
            std::string::npos);
  EXPECT_NE(project_error({{"model", {{"d_model", "wide"}}}}).find("model.d_model: expected an integer, got a string (\"wide\")"),
            std::string::npos);
}

TEST(ConfigErrors, TopLevelVariantsAndGrid) {
  EXPECT_EQ(project_error({{"modle", json::object()}}), "modle: unknown key; did you mean \"model\"?");
  EXPECT_EQ(project_error({{"variants", {json{{"nme", "x"}}}}}), "variants[0].nme: unknown key; did you mean \"name\"?");
  const std::string unknown = project_error({{"variants", {"pha-7billion"}}});  // no name within two edits
  EXPECT_EQ(unknown.rfind("variants[0]: \"pha-7billion\" is neither a preset nor a variant name; allowed: a preset (\"pha-90m\"", 0), 0u)
      << unknown;
  EXPECT_NE(unknown.find("a variant (\"pha\""), std::string::npos) << unknown;
  EXPECT_EQ(project_error({{"variants", 3}}),
            "variants: expected a non-empty list of variant names or {\"name\", \"model\", \"training\"} objects, got an "
            "integer (3)");
  EXPECT_NE(project_error({{"grid", {{"lr", {0.1}}}}}).find("grid.lr: unknown key; allowed: \"model.<key>\""),
            std::string::npos);
}

// A misspelled variant name gets the nearest name, not only the list of forty (issue 36).
TEST(ConfigErrors, AMisspelledVariantNameSaysDidYouMean) {
  const std::string e = project_error({{"variants", {"pha-tinny"}}});
  EXPECT_EQ(e.rfind("variants[0]: \"pha-tinny\" is neither a preset nor a variant name; did you mean \"pha-tiny\"? "
                    "allowed: a preset (",
                    0),
            0u)
      << e;
  const std::string model = project_error({{"model", {{"variant", "transfomer"}}}});
  EXPECT_NE(model.find("did you mean \"transformer\"?"), std::string::npos) << model;
  const std::string preset = project_error({{"model", {{"preset", "pha-smal"}}}});
  EXPECT_NE(preset.find("did you mean \"pha-small\"?"), std::string::npos) << preset;
}

// A value the grid or "tune" replaces on every run is refused as it is without them: a typo in
// the file must not hide behind the axis that happens to override it (issue 36).
TEST(ConfigErrors, AValueTheTuneOrGridReplacesMustStillBeValid) {
  const std::string plain = project_error({{"training", {{"lr", "fast"}}}});
  EXPECT_EQ(plain, "training.lr: expected a number, got a string (\"fast\")");
  const std::string tuned =
      project_error({{"training", {{"lr", "fast"}}}, {"seeds", {0, 1, 2}}, {"tune", {{"training.lr", {0.001, 0.003}}}}});
  EXPECT_EQ(tuned.rfind(plain + " (\"tune\" sets training.lr on every run", 0), 0u) << tuned;
  const std::string grid = project_error({{"training", {{"lr", "fast"}}}, {"grid", {{"training.lr", {0.001, 0.003}}}}});
  EXPECT_EQ(grid.rfind(plain + " (\"grid\" sets training.lr on every run", 0), 0u) << grid;
  const std::string model = project_error({{"model", {{"d_model", "wide"}}}, {"grid", {{"model.d_model", {32, 64}}}}});
  EXPECT_EQ(model.rfind("model.d_model: expected an integer, got a string (\"wide\")", 0), 0u) << model;
  // A valid value that the axis replaces is no error, whatever it would make with the others.
  EXPECT_EQ(project_error({{"training", {{"lr", 0.5}}}, {"seeds", {0, 1, 2}}, {"tune", {{"training.lr", {0.001, 0.003}}}}}),
            "(no error)");
}

// Grid keys are dotted paths taken literally: a "~" or "/" in one (found by fuzz_project, where
// the key became a JSON pointer and its parse error escaped) is a key the run's section then
// refuses, and a path through a value that is not a section says which part it is.
TEST(ConfigErrors, GridKeysThatAreNotPathsIntoTheConfigSaySo) {
  EXPECT_NE(project_error({{"grid", {{"training.l~r", {0.1}}}}}).find("training.l~r: unknown key"), std::string::npos)
      << project_error({{"grid", {{"training.l~r", {0.1}}}}});
  EXPECT_NE(project_error({{"grid", {{"training.a/b", {0.1}}}}}).find("training.a/b: unknown key"), std::string::npos)
      << project_error({{"grid", {{"training.a/b", {0.1}}}}});
  EXPECT_EQ(project_error({{"grid", {{"training..lr", {0.1}}}}}),
            "grid.training..lr: has an empty part between dots; allowed: \"model.<key>\" or \"training.<key>\"");
  EXPECT_EQ(project_error({{"training", {{"lr", 0.01}}}, {"grid", {{"training.lr.max", {0.1}}}}}),
            "grid.training.lr.max: \"training.lr\" is a number (0.01) in the run's config, not a section that \"max\" "
            "could be set in");
}

TEST(ConfigErrors, TextDataAndTokenizer) {
  EXPECT_NE(project_error({{"data", {{"split", {{"vaild", 0.1}}}}}}).find("data.split.vaild: unknown key; did you mean \"valid\"?"),
            std::string::npos);
  EXPECT_NE(project_error({{"data", {{"cache", "yes"}}}}).find("data.cache: expected true or false, got a string (\"yes\")"),
            std::string::npos);
  EXPECT_NE(project_error({{"data", {{"kind", "txt"}}}}).find("data.kind: \"txt\" is not allowed; allowed: \"wikitext\""),
            std::string::npos);
  EXPECT_NE(project_error({{"data", {{"tokenizer", {{"kind", "gpt3"}}}}}})
                .find("data.tokenizer.kind: \"gpt3\" is not allowed; allowed: \"byte\", \"gpt2\", \"bpe\""),
            std::string::npos);
}

TEST(ConfigErrors, TaskData) {
  EXPECT_EQ(task_error({{"num_kv_pair", 2}}), "data.train.num_kv_pair: unknown key; did you mean \"num_kv_pairs\"?");
  EXPECT_EQ(task_error({{"power_a", "flat"}}), "data.train.power_a: expected a number, got a string (\"flat\")");
  EXPECT_EQ(task_error(json::object(), {{"sweeps", {"width"}}}),
            "data.sweeps[0]: \"width\" is not allowed; allowed: \"length\", \"ood\"");
}

TEST(ConfigErrors, ProfileSection) {
  EXPECT_EQ(error_message([] { ProfileSettings::from_json({{"repeat", 3}}); }),
            "profile.repeat: unknown key; did you mean \"repeats\"?");
  EXPECT_EQ(error_message([] { ProfileSettings::from_json({{"seq_lens", {64, 1.5}}}); }),
            "profile.seq_lens[1]: expected an integer, got a number (1.5)");
  EXPECT_EQ(error_message([] { ProfileSettings::from_json({{"device", "gpu"}}); }),
            "profile.device: \"gpu\" is not allowed; allowed: \"auto\", \"cpu\", \"cuda\"");
}

// The "report" section (docs/project-format.md, Report): how one report tests its claims together.
TEST(ConfigErrors, ReportSection) {
  EXPECT_EQ(project_error({{"report", {{"correction", "bonferroni"}}}}),
            "report.correction: \"bonferroni\" is not allowed; allowed: \"holm\", \"dunnett\", \"none\"");
  EXPECT_EQ(project_error({{"report", {{"corection", "holm"}}}}),
            "report.corection: unknown key; did you mean \"correction\"?");
  EXPECT_EQ(project_error({{"report", {{"alpha", 0}}}}), "report.alpha: 0 is out of range; allowed: > 0 and <= 0.5");
  EXPECT_EQ(project_error({{"report", {{"power", 1.2}}}}), "report.power: 1.2 is out of range; allowed: >= 0.5 and <= 0.999");
  EXPECT_EQ(project_error({{"report", {{"early_training_tokens_per_param", "many"}}}}),
            "report.early_training_tokens_per_param: expected a number, got a string (\"many\")");
  EXPECT_EQ(project_error({{"report", "holm"}}).rfind("report: ", 0), 0u) << project_error({{"report", "holm"}});
  EXPECT_EQ(project_error({{"report", {{"control", "test"}}}}),
            "report.control: names the control of Dunnett's comparisons; allowed only with \"correction\": "
            "\"dunnett\" (the correction here is \"holm\")");
  EXPECT_EQ(project_error({{"report", {{"correction", "dunnett"}, {"control", "pha"}}}}),
            "report.control: \"pha\" is not allowed; allowed: \"test\"");
}

TEST(ConfigErrors, AReportSectionReachesTheStudy) {
  pha::test::TempProject p;
  json j = p.text_project();
  const pha::project::Project defaults = pha::project::parse_project(j, p.dir().string(), "project.json");
  EXPECT_EQ(defaults.report.correction, pha::analysis::Correction::Holm);
  EXPECT_EQ(defaults.report.alpha, 0.05);
  EXPECT_EQ(defaults.report.power, 0.8);
  EXPECT_EQ(defaults.report.early_tokens_per_param, 20.0);
  j["report"] = {{"correction", "dunnett"}, {"alpha", 0.01}, {"power", 0.9}, {"early_training_tokens_per_param", 5},
                 {"control", "test"}};
  const pha::analysis::Study s =
      pha::project::study_of(pha::project::parse_project(j, p.dir().string(), "project.json"));
  EXPECT_EQ(s.settings.correction, pha::analysis::Correction::Dunnett);
  EXPECT_EQ(s.settings.alpha, 0.01);
  EXPECT_EQ(s.settings.power, 0.9);
  EXPECT_EQ(s.settings.early_tokens_per_param, 5.0);
  EXPECT_EQ(s.settings.control, "test");
}

// ---- limits on work -------------------------------------------------------------------------

TEST(WorkLimits, AbsurdTrainingAndEvaluationSizesAreRefusedWithTheAllowedRange) {
  const std::string note = std::string(" (") + pha::core::limits::kNote + ")";
  EXPECT_EQ(training_error({{"sweep_examples", 1e9}}),
            "training.sweep_examples: 1000000000.0 is out of range; allowed: 1 to 100000" + note);
  EXPECT_EQ(training_error({{"steps", 100000000}}), "training.steps: 100000000 is out of range; allowed: 1 to 10000000" + note);
  EXPECT_EQ(training_error({{"seq_len", 1 << 20}}), "training.seq_len: 1048576 is out of range; allowed: 2 to 131072" + note);
  EXPECT_EQ(training_error({{"grad_accum", 5000}}), "training.grad_accum: 5000 is out of range; allowed: 1 to 1024" + note);
  EXPECT_EQ(training_error({{"eval_examples", 1000000}}),
            "training.eval_examples: 1000000 is out of range; allowed: 1 to 100000" + note);
  EXPECT_EQ(training_error({{"final_eval_tokens", 1e12}}),
            "training.final_eval_tokens: 1000000000000.0 is out of range; allowed: 0 to 1073741824" + note);
  EXPECT_EQ(training_error({{"batch_size", 4096}, {"seq_len", 8192}}),
            "training.batch_size: batch_size x seq_len = 4096 x 8192 = 33554432 tokens per micro-batch is out of range; "
            "allowed: at most 16777216" + note);
  EXPECT_EQ(training_error({{"steps", 10000000}, {"batch_size", 64}, {"seq_len", 8192}}),
            "training.steps: steps x grad_accum x batch_size x seq_len = 10000000 x 1 x 64 x 8192 = 5.24288e+12 training "
            "tokens is out of range; allowed: at most 1e+11" + note);
}

TEST(WorkLimits, PaperScaleTrainingIsAccepted) {
  // pha-125m scale: 100k steps of 64 x 1024 tokens, and long context (T = 8192) with accumulation.
  EXPECT_EQ(TrainingConfig::from_json({{"steps", 100000}, {"batch_size", 64}, {"seq_len", 1024}}).steps, 100000);
  const auto long_t = TrainingConfig::from_json(
      {{"steps", 200000}, {"batch_size", 8}, {"seq_len", 8192}, {"grad_accum", 4}, {"sweep_examples", 10000}});
  EXPECT_EQ(long_t.seq_len, 8192);
  EXPECT_EQ(ProfileSettings::from_json({{"seq_lens", {1024, 2048, 4096, 8192}}, {"repeats", 10}}).seq_lens.back(), 8192);
}

TEST(WorkLimits, TaskSetsAndProfileSizes) {
  const std::string note = std::string(" (") + pha::core::limits::kNote + ")";
  EXPECT_EQ(task_error({{"seq_len", 1000000}}), "data.train.seq_len: 1000000 is out of range; allowed: 4 to 131072" + note);
  EXPECT_EQ(task_error(json::object(), {{"test", {json{{"name", "big"}, {"task", "mqar"}, {"seq_len", 32},
                                                       {"num_kv_pairs", 2}, {"vocab_size", 64}, {"num_examples", 1000000}}}}}),
            "data.test[0].num_examples: 1000000 is out of range; allowed: 1 to 100000 for a test set" + note);
  EXPECT_EQ(task_error({{"num_examples", int64_t{1} << 40}}), "(no error)")
      << "a training task's examples are drawn by index: its size costs nothing";
  EXPECT_EQ(error_message([] { ProfileSettings::from_json({{"repeats", 1000}}); }),
            "profile.repeats: 1000 is out of range; allowed: 1 to 100" + note);
  EXPECT_EQ(error_message([] { ProfileSettings::from_json({{"seq_lens", {128, 1 << 20}}}); }),
            "profile.seq_lens[1]: 1048576 is out of range; allowed: 2 to 131072" + note);
  EXPECT_EQ(error_message([] { ProfileSettings::from_json({{"seq_lens", std::vector<int>(33, 64)}}); }),
            "profile.seq_lens: has 33 entries; allowed: 1 to 32 integers, each from 2 to 131072");
}

TEST(WorkLimits, AGridOfTooManyRunsIsRefusedBeforeAnyIsResolved) {
  const json values = std::vector<int>(32, 1);
  EXPECT_EQ(project_error({{"grid", {{"training.seed", values}, {"training.steps", values}}}}),
            "grid: variants x grid points = 1024 runs is out of range; allowed: at most 1000 (" +
                std::string(pha::core::limits::kNote) + ")");
}

}  // namespace

// A number beyond double range makes nlohmann's parser throw out_of_range (406), not
// parse_error: it must still be a core::Error naming the file (found by fuzz_project).
TEST(ConfigErrors, ANumberBeyondDoubleRangeIsAnErrorNamingTheFile) {
  pha::test::TempProject p;
  p.write_raw(R"({"name": "x", "training": {"lr": 5e555}})");
  try {
    pha::project::load_project(p.dir().string());
    FAIL() << "no error";
  } catch (const pha::core::Error& e) {
    EXPECT_NE(e.where().find("project.json"), std::string::npos) << e.where();
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
  }
}

// The one patching rule (training_config.h): mixer_lr follows a patched lr while it was left at
// its default, and keeps a value of its own.
TEST(TrainingPatch, MixerLrFollowsAPatchedLrOnlyWhileItIsAtItsDefault) {
  json following = TrainingConfig::from_json(json{{"lr", 3e-3}}).used;
  ASSERT_DOUBLE_EQ(following.at("mixer_lr").get<double>(), 3e-3);
  pha::project::merge_training_patch(following, json{{"lr", 1e-2}});
  EXPECT_DOUBLE_EQ(TrainingConfig::from_json(following).mixer_lr, 1e-2) << "left at its default: it follows";

  json own = TrainingConfig::from_json(json{{"lr", 3e-3}, {"mixer_lr", 5e-2}}).used;
  pha::project::merge_training_patch(own, json{{"lr", 1e-2}});
  EXPECT_DOUBLE_EQ(TrainingConfig::from_json(own).mixer_lr, 5e-2) << "a value of its own stays";

  json both = TrainingConfig::from_json(json{{"lr", 3e-3}}).used;
  pha::project::merge_training_patch(both, json{{"lr", 1e-2}, {"mixer_lr", 2e-2}});
  EXPECT_DOUBLE_EQ(TrainingConfig::from_json(both).mixer_lr, 2e-2) << "the patch's own mixer_lr wins";
  EXPECT_DOUBLE_EQ(TrainingConfig::from_json(both).lr, 1e-2);
}
