// The one config reader: every message names the field path, what was found and what is
// allowed; unknown keys get the nearest known key.
#include "core/config_reader.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "error_message.h"

using nlohmann::json;
using pha::core::ConfigReader;

using pha::test::error_message;

namespace {

TEST(ConfigReader, ReadsValuesAndDefaultsAndRecordsThem) {
  pha::core::ConfigReader r(json{{"steps", 10}, {"lr", 0.5}, {"big", 1e5}, {"off", nullptr}}, "training");
  EXPECT_EQ(r.get_int("steps", 1, 1, 100), 10);
  EXPECT_DOUBLE_EQ(r.get_double("lr", 0.1, 0.0, 1.0), 0.5);
  EXPECT_EQ(r.get_int("big", 1, 1, 1000000), 100000) << "an integral float is an integer";
  EXPECT_EQ(r.get_int("off", 7, 1, 100), 7) << "null is the same as absent";
  EXPECT_EQ(r.get_string("device", "auto"), "auto");
  r.finish();
  EXPECT_EQ(r.used(), (json{{"steps", 10}, {"lr", 0.5}, {"big", 100000}, {"off", 7}, {"device", "auto"}}));
}

TEST(ConfigReader, UnknownKeySuggestsTheNearestOrListsTheKeys) {
  EXPECT_EQ(error_message([] {
              pha::core::ConfigReader r(json{{"sweep_exampels", 3}}, "training");
              r.get_int("sweep_examples", 1, 1, 10);
              r.get_int("eval_examples", 1, 1, 10);
              r.finish();
            }),
            "training.sweep_exampels: unknown key; did you mean \"sweep_examples\"?");
  EXPECT_EQ(error_message([] { pha::core::ConfigReader r(json{{"zzzzzzzz", 1}}, "model.ffn", {"d_ff", "aux_ratio"}); }),
            "model.ffn.zzzzzzzz: unknown key; allowed keys: \"d_ff\", \"aux_ratio\"");
  // A strict reader refuses the unknown key before reading any value.
  EXPECT_EQ(error_message([] {
              pha::core::ConfigReader r(json{{"d_modle", 1}, {"n_layers", 0}}, "model", {"d_model", "n_layers"});
              r.get_int("n_layers", 4, 1, 1024);
            }),
            "model.d_modle: unknown key; did you mean \"d_model\"?");
}

TEST(ConfigReader, WrongTypeSaysWhatWasFound) {
  pha::core::ConfigReader r(json{{"lr", "fast"}, {"steps", 2.5}, {"cache", 1}, {"kind", 3}, {"files", "a.txt"}}, "data");
  EXPECT_EQ(error_message([&] { r.get_double("lr", 0.1, 0, 1); }), "data.lr: expected a number, got a string (\"fast\")");
  EXPECT_EQ(error_message([&] { r.get_int("steps", 1, 1, 10); }), "data.steps: expected an integer, got a number (2.5)");
  EXPECT_EQ(error_message([&] { r.get_bool("cache", true); }), "data.cache: expected true or false, got an integer (1)");
  EXPECT_EQ(error_message([&] { r.get_choice("kind", "file", {"file", "folder"}); }),
            "data.kind: expected a string, got an integer (3); allowed: \"file\", \"folder\"");
  EXPECT_EQ(error_message([&] { r.get_string_list("files"); }),
            "data.files: expected a list of strings, got a string (\"a.txt\")");
  EXPECT_EQ(error_message([] { pha::core::ConfigReader r(json::array(), "model"); }), "model: expected an object, got an empty array");
}

TEST(ConfigReader, OutOfRangeSaysWhatIsAllowed) {
  pha::core::ConfigReader r(json{{"n", 0}, {"eps", 0.0}, {"huge", 1e30}, {"device", "tpu"}, {"u", 18446744073709551615ull}}, "m");
  EXPECT_EQ(error_message([&] { r.get_int("n", 1, 1, 1024); }), "m.n: 0 is out of range; allowed: 1 to 1024");
  EXPECT_EQ(error_message([&] { r.get_double("eps", 1e-6, 0.0, 0.1, true); }),
            "m.eps: 0.0 is out of range; allowed: > 0 and <= 0.1");
  EXPECT_EQ(error_message([&] { r.get_int("huge", 1, 1, 100, "a limit on work"); }),
            "m.huge: 1e+30 is out of range; allowed: 1 to 100 (a limit on work)");
  EXPECT_EQ(error_message([&] { r.get_int("u", 1, 1, 100); }),
            "m.u: 18446744073709551615 is out of range; allowed: 1 to 100");
  EXPECT_EQ(error_message([&] { r.get_choice("device", "auto", {"auto", "cpu", "cuda"}); }),
            "m.device: \"tpu\" is not allowed; allowed: \"auto\", \"cpu\", \"cuda\"");
  EXPECT_EQ(error_message([&] { r.get_int("absent", 3, 5, 16); }),
            "m.absent: 3 (the default) is out of range; allowed: 5 to 16");
}

TEST(ConfigReader, NestedObjectsAndListElementsNameTheirPath) {
  const json section = {{"attention", {{"heads", -1}}}, {"seq_lens", {64, "long"}}, {"phases", {"train", "back"}}};
  pha::core::ConfigReader r(section, "variants[1].model");
  EXPECT_EQ(error_message([&] {
              pha::core::ConfigReader a = r.object("attention", {"heads", "kv_heads"});
              a.get_int("heads", 8, 1, 1024);
            }),
            "variants[1].model.attention.heads: -1 is out of range; allowed: 1 to 1024");
  EXPECT_EQ(error_message([&] { r.get_int_list("seq_lens", {128}, 2, 4096, 1, 8); }),
            "variants[1].model.seq_lens[1]: expected an integer, got a string (\"long\")");
  EXPECT_EQ(error_message([&] { r.get_choice_list("phases", {"train"}, {"train", "forward"}); }),
            "variants[1].model.phases[1]: \"back\" is not allowed; allowed: \"train\", \"forward\"");
  pha::core::ConfigReader empty(json{{"seq_lens", json::array()}}, "profile");
  EXPECT_EQ(error_message([&] { empty.get_int_list("seq_lens", {128}, 2, 4096, 1, 8); }),
            "profile.seq_lens: has 0 entries; allowed: 1 to 8 integers, each from 2 to 4096");
}

TEST(ConfigReader, FormatsNumbersShortestFirst) {
  EXPECT_EQ(pha::core::format_number(0.1), "0.1");
  EXPECT_EQ(pha::core::format_number(1e-6), "1e-06");
  EXPECT_EQ(pha::core::format_number(1.0 / 3.0), "0.3333333333333333");
}

}  // namespace

// A long string value is shortened in messages without cutting a UTF-8 sequence: the message
// can later be written as JSON (the store), and nlohmann throws on invalid UTF-8 when dumping.
TEST(ConfigReader, ShortenedValuesStayValidUtf8) {
  std::string text = "a";  // then "é" x 30: with the opening quote, byte 37 is inside an "é"
  for (int i = 0; i < 30; ++i) text += "\xC3\xA9";
  const std::string described = pha::core::describe_json(nlohmann::json(text));
  EXPECT_NE(described.find("..."), std::string::npos) << described;
  EXPECT_NO_THROW((void)nlohmann::json(described).dump()) << described;
}
