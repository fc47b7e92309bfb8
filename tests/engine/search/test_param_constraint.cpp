// Equal parameters: the FFN width moves a model with more attention layers back to pha-tiny's
// count; what cannot be fitted says why.
#include "search/param_constraint.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "core/error.h"
#include "model/flops.h"
#include "model/model_config.h"
#include "model/presets.h"
#include "search/search_space.h"

using nlohmann::json;

namespace {

int64_t count(const json& model) {
  return pha::model::count_parameters(pha::model::model_config_from_json(model, "model")).total;
}

json tiny() { return pha::model::to_json(pha::model::preset("pha-tiny")); }

json with_layers(json model, const std::vector<std::string>& pattern) {
  model["variant"] = "pattern";
  model["n_layers"] = pattern.size();
  model["layers"] = pha::search::pattern_to_layers(pattern);
  return model;
}

TEST(FitParams, WithinToleranceIsUnchanged) {
  const json model = tiny();
  const auto fit = pha::search::fit_params(model, count(model), 0.03);
  EXPECT_TRUE(fit.ok);
  EXPECT_EQ(fit.model, model);
  EXPECT_EQ(fit.params, count(model));
  EXPECT_NE(fit.note.find("within 3%"), std::string::npos) << fit.note;
}

TEST(FitParams, MovesDffIntoTolerance) {
  const int64_t target = count(tiny());
  const json model = with_layers(tiny(), {"attn", "attn", "parallel", "attn", "attn", "gss"});
  const int64_t before = count(model);
  ASSERT_GT(std::llabs(before - target), target * 3 / 100) << "the pattern must start outside the tolerance";
  const auto fit = pha::search::fit_params(model, target, 0.03);
  EXPECT_TRUE(fit.ok) << fit.note;
  EXPECT_LE(std::llabs(fit.params - target), target * 3 / 100);
  EXPECT_EQ(fit.params, count(fit.model));
  const int d_ff = fit.model["ffn"]["d_ff"].get<int>();
  EXPECT_EQ(d_ff % 8, 0);
  EXPECT_NE(d_ff, 512);
  EXPECT_EQ(fit.note.rfind("d_ff 512 -> " + std::to_string(d_ff) + ": ", 0), 0u) << fit.note;
  EXPECT_NE(fit.note.find(" of " + pha::search::grouped(target) + ")"), std::string::npos) << fit.note;
  json rest = fit.model, original = model;
  rest.erase("ffn"), original.erase("ffn");
  EXPECT_EQ(rest, original) << "only ffn.d_ff changes";
  // The closest of all widths: one step of 8 either way is no closer.
  for (int other : {d_ff - 8, d_ff + 8}) {
    json m = fit.model;
    m["ffn"]["d_ff"] = other;
    EXPECT_GE(std::llabs(count(m) - target), std::llabs(fit.params - target)) << other;
  }
}

TEST(FitParams, SaysWhyItCannotFit) {
  const int64_t target = count(tiny());
  // "gss" and "attn" blocks carry an FFN sub-layer; a gss+attn mix does not.
  const json no_ffn = with_layers(tiny(), {"gss+attn", "gss+attn", "gss+attn", "gss+attn"});
  ASSERT_GT(std::llabs(count(no_ffn) - target), target * 3 / 100);
  auto fit = pha::search::fit_params(no_ffn, target, 0.03);
  EXPECT_FALSE(fit.ok);
  EXPECT_NE(fit.note.find("no FFN branch"), std::string::npos) << fit.note;
  EXPECT_EQ(fit.model, no_ffn);

  fit = pha::search::fit_params(tiny(), target * 10, 0.03);
  EXPECT_FALSE(fit.ok);
  EXPECT_EQ(fit.model["ffn"]["d_ff"], 16 * 128) << "the widest is the closest";
  EXPECT_EQ(fit.params, count(fit.model));
  EXPECT_NE(fit.note.find("is the closest; allowed: within 3%"), std::string::npos) << fit.note;

  EXPECT_THROW(pha::search::fit_params(tiny(), 0, 0.03), pha::core::Error);
  EXPECT_THROW(pha::search::fit_params(tiny(), target, 0.0), pha::core::Error);
  EXPECT_THROW(pha::search::fit_params(tiny(), target, 0.6), pha::core::Error);
}

TEST(FitParams, GroupsDigits) {
  EXPECT_EQ(pha::search::grouped(1286172), "1,286,172");
  EXPECT_EQ(pha::search::grouped(999), "999");
  EXPECT_EQ(pha::search::grouped(-1000), "-1,000");
  EXPECT_EQ(pha::search::grouped(0), "0");
}

}  // namespace
