// Claims are read with the config reader: each kind's keys, did-you-mean for a typo, the
// allowed values for a wrong kind, run, family or metric, and the data the project trains on.
#include <gtest/gtest.h>

#include "analysis/claims.h"
#include "error_message.h"

namespace pa = pha::analysis;
using nlohmann::json;
using pha::test::error_message;

namespace {

pa::ClaimContext task_context() {
  pa::ClaimContext c;
  c.runs = {"pha", "transformer", "gss-only", "pha/d_model=16"};
  c.is_task = true;
  c.first_test_set = "heldout";
  return c;
}

pa::ClaimContext text_context() {
  pa::ClaimContext c;
  c.runs = {"pha", "sequential"};
  return c;
}

std::string error_of(const json& claims, const pa::ClaimContext& ctx) {
  return error_message([&] { pa::read_claims(claims, "claims", ctx); });
}

}  // namespace

TEST(Claims, EveryKindIsReadWithItsDefaults) {
  const json claims = json::parse(R"([
    {"claim": "lower_is_better", "metric": "val/ppl", "better": "pha", "than": "sequential", "paper": "16.42 vs 16.46"},
    {"claim": "higher_is_better", "metric": "val/bpb", "better": "sequential", "than": "pha", "at": "best"},
    {"claim": "mixer_sandwich", "run": "pha", "title": "Sandwich"}
  ])");
  const auto c = pa::read_claims(claims, "claims", text_context());
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].kind, pa::ClaimKind::LowerIsBetter);
  EXPECT_EQ(c[0].metric.key, "val/ppl");
  EXPECT_FALSE(c[0].best);
  EXPECT_EQ(c[0].paper, "16.42 vs 16.46");
  EXPECT_EQ(c[0].where, "claims[0]");
  EXPECT_EQ(pa::statement(c[0]), "val/ppl (final): pha lower than sequential");
  EXPECT_TRUE(c[1].best);
  EXPECT_EQ(c[2].kind, pa::ClaimKind::MixerSandwich);
  EXPECT_EQ(c[2].edge_layers, 1);
  EXPECT_EQ(c[2].title, "Sandwich");

  const auto t = pa::read_claims(json::parse(R"([
    {"claim": "accuracy_at_params", "family": "hybrid", "max_params": 2000, "min_accuracy": 1.0},
    {"claim": "accuracy_at_params", "metric": "eval/length/accuracy@400", "family": "ssm", "max_params": 12000,
     "max_accuracy": 0.9},
    {"claim": "higher_is_better", "metric": "accuracy", "better": "pha/d_model=16", "than": "transformer"}
  ])"), "claims", task_context());
  EXPECT_EQ(t[0].metric.key, "test/heldout/accuracy") << "\"accuracy\" is the first held-out set's";
  EXPECT_TRUE(t[0].at_least);
  EXPECT_EQ(t[0].threshold, 1.0);
  EXPECT_EQ(t[0].max_params, 2000);
  EXPECT_EQ(t[1].metric.source, pa::MetricRef::Source::Eval);
  EXPECT_EQ(t[1].metric.set, "length");
  EXPECT_EQ(t[1].metric.metric, "accuracy");
  EXPECT_EQ(t[1].metric.seq_len, 400);
  EXPECT_FALSE(t[1].at_least);
  EXPECT_EQ(t[2].better, "pha/d_model=16");
}

TEST(Claims, ErrorsNameTheFieldWhatWasFoundAndWhatIsAllowed) {
  const auto text = text_context();
  EXPECT_EQ(error_of(json::parse(R"([{"claim": "lower_is_better", "metirc": "val/ppl"}])"), text),
            "claims[0].metirc: unknown key; did you mean \"metric\"?");
  EXPECT_EQ(error_of(json::parse(R"([{"claim": "better"}])"), text),
            "claims[0].claim: \"better\" is not allowed; allowed: \"lower_is_better\", \"higher_is_better\", "
            "\"mixer_sandwich\", \"accuracy_at_params\", \"knockout\", \"specialisation\", \"efficiency\"");
  EXPECT_EQ(error_of(json::parse(R"([{"metric": "val/ppl"}])"), text),
            "claims[0].claim: is required; allowed: \"lower_is_better\", \"higher_is_better\", \"mixer_sandwich\", "
            "\"accuracy_at_params\", \"knockout\", \"specialisation\", \"efficiency\"");
  EXPECT_EQ(error_of(json::parse(R"([{"claim": "lower_is_better", "metric": "val/ppl", "better": "phaa", "than": "pha"}])"),
                     text),
            "claims[0].better: \"phaa\" is not allowed; allowed: \"pha\", \"sequential\"");
  EXPECT_EQ(error_of(json::parse(R"([{"claim": "lower_is_better", "metric": "val/ppl", "better": "pha", "than": "pha"}])"),
                     text),
            "claims[0].than: \"pha\" is the run of \"better\"; allowed: another run");
  EXPECT_EQ(error_of(json::parse(R"({"claim": "mixer_sandwich"})"), text).substr(0, 30), "claims: expected a list of cla");
  EXPECT_EQ(error_of(json::parse(R"([{"claim": "mixer_sandwich", "run": "pha", "edge_layers": 0}])"), text),
            "claims[0].edge_layers: 0 is out of range; allowed: 1 to 512");
}

TEST(Claims, MetricsMustBeWhatTheProjectsRunsRecord) {
  const auto text = text_context(), task = task_context();
  const std::string e = error_of(json::parse(R"([{"claim": "higher_is_better", "metric": "accuracy", "better": "pha", "than": "sequential"}])"), text);
  EXPECT_NE(e.find("claims[0].metric: \"accuracy\" is the accuracy of task runs"), std::string::npos) << e;
  EXPECT_NE(e.find("allowed: a run metric key"), std::string::npos) << e;
  EXPECT_NE(error_of(json::parse(R"([{"claim": "lower_is_better", "metric": "val/ppl", "better": "pha", "than": "transformer"}])"), task)
                .find("is a text metric"),
            std::string::npos);
  EXPECT_NE(error_of(json::parse(R"([{"claim": "lower_is_better", "metric": "perplexity", "better": "pha", "than": "sequential"}])"), text)
                .find("\"perplexity\" is not a metric the runs record"),
            std::string::npos);
  EXPECT_NE(error_of(json::parse(R"([{"claim": "higher_is_better", "metric": "eval/length/acc@400", "better": "pha", "than": "transformer"}])"), task)
                .find("evaluation metric \"acc\" is not recorded; allowed: \"loss\""),
            std::string::npos);
  EXPECT_NE(error_of(json::parse(R"([{"claim": "higher_is_better", "metric": "eval/length/accuracy@x", "better": "pha", "than": "transformer"}])"), task)
                .find("not a positive integer"),
            std::string::npos);
  EXPECT_EQ(error_of(json::parse(R"([{"claim": "higher_is_better", "metric": "eval/length/accuracy@400", "better": "pha", "than": "transformer", "at": "best"}])"), task),
            "claims[0].at: \"best\" needs a metric series; \"eval/length/accuracy@400\" is an evaluation row (one value "
            "per step); allowed: \"final\"");
  EXPECT_NE(error_of(json::parse(R"([{"claim": "accuracy_at_params", "family": "hybrid", "max_params": 10}])"), text)
                .find("claims[0].claim: \"accuracy_at_params\" compares accuracies; this project's runs are text"),
            std::string::npos);
  EXPECT_EQ(error_of(json::parse(R"([{"claim": "accuracy_at_params", "family": "rnn", "max_params": 10, "min_accuracy": 1}])"), task),
            "claims[0].family: \"rnn\" is not allowed; allowed: \"ssm\", \"attention\", \"hybrid\"");
  EXPECT_NE(error_of(json::parse(R"([{"claim": "accuracy_at_params", "family": "ssm", "max_params": 10, "min_accuracy": 1, "max_accuracy": 0.5}])"), task)
                .find("claims[0].max_accuracy: is given with min_accuracy; allowed: exactly one of"),
            std::string::npos);
  EXPECT_NE(error_of(json::parse(R"([{"claim": "accuracy_at_params", "family": "ssm", "max_params": 10}])"), task)
                .find("claims[0].min_accuracy: is missing"),
            std::string::npos);
  EXPECT_EQ(error_of(json::parse(R"([{"claim": "accuracy_at_params", "family": "ssm", "max_params": 10, "min_accuracy": 1.5}])"), task),
            "claims[0].min_accuracy: 1.5 is out of range; allowed: >= 0 and <= 1");
}
