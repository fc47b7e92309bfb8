// The claims read from the hybrid lens's stored rows (store/lens_store.h) on synthetic stores:
// knockout and specialisation hold and do not hold as their per-replica differences say, a
// replica without rows is a problem that names the command to run, bad claim JSON names the
// field, and the sandwich is judged on effective shares when every replica has them (raw
// weights that say "does not hold" beside shares that say "holds").
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/report.h"
#include "analysis/report_document.h"
#include "core/error.h"
#include "engine/store/store_test_util.h"
#include "error_message.h"
#include "store/lens_store.h"
#include "store/run_writer.h"
#include "store/store.h"

namespace pa = pha::analysis;
namespace ps = pha::store;
using nlohmann::json;

namespace lens_claims_test {

// A finished replica with a train loss and, when given, a final mixer snapshot (L x 3).
int64_t write_run(ps::Store& store, const std::string& group, int64_t seed, const std::vector<float>& mixer = {}) {
  ps::NewRun nr;
  nr.project = "study";
  nr.name = group + "/seed=" + std::to_string(seed);
  nr.group = group;
  nr.seed = seed;
  nr.n_params = 5000;
  nr.config_json = R"({"training": {"steps": 100}})";
  const int64_t id = store.create_run(nr);
  ps::RunWriter w(store, id);
  w.metric("train/loss", 100, 0, 0, 1.0);
  if (!mixer.empty()) w.mixer({100, static_cast<int>(mixer.size() / 3), 3, mixer});
  w.finish(ps::RunStatus::Finished);
  return id;
}

ps::LensRow lens_row(const std::string& kind, int layer, const std::string& branch, const std::string& cls, double value) {
  return {kind, layer, branch, cls, 100, value, 4096, "valid:4096", 0};
}

// Knock-outs of one replica: (layer, branch, class) -> loss rise.
void write_knockouts(ps::Store& store, int64_t run, const std::vector<std::tuple<int, std::string, std::string, double>>& ko) {
  std::vector<ps::LensRow> rows = {lens_row("base_loss", -1, "", "", 2.0)};
  for (const auto& [layer, branch, cls, v] : ko) rows.push_back(lens_row("knockout", layer, branch, cls, v));
  ps::record_lens(store, run, rows);
}

// Effective shares of one replica, layer-major (L, 3).
void write_shares(ps::Store& store, int64_t run, const std::vector<float>& shares) {
  const char* names[] = {"gss", "attn", "ffn"};
  std::vector<ps::LensRow> rows;
  for (size_t i = 0; i < shares.size(); ++i)
    rows.push_back(lens_row("effective_share", static_cast<int>(i / 3), names[i % 3], "", shares[i]));
  ps::record_lens(store, run, rows);
}

pa::Study make_study(const std::vector<std::string>& groups, const json& claims, bool is_task = true) {
  pa::Study s;
  s.project = "study";
  s.is_task = is_task;
  s.test_sets = {"test"};
  for (const auto& group : groups)
    for (int64_t seed = 0; seed < 3; ++seed) {
      pa::StudyRun r;
      r.name = group + "/seed=" + std::to_string(seed);
      r.group = r.entry = r.variant = group;
      r.seed = seed;
      r.family = "hybrid";
      r.config = {{"training", {{"steps", 100}}}};
      s.runs.push_back(r);
    }
  pa::ClaimContext ctx;
  ctx.runs = groups;
  ctx.is_task = is_task;
  s.claims = pa::read_claims(claims, "claims", ctx);
  return s;
}

std::string claim_error(const json& claims, bool is_task = true) {
  pa::ClaimContext ctx;
  ctx.runs = {"pha", "sequential"};
  ctx.is_task = is_task;
  return pha::test::error_message([&] { pa::read_claims(claims, "claims", ctx); });
}

// GSS largest at both ends, attention largest in the middle (L = 4); `k` moves one weight.
std::vector<float> lens_sandwich(float k) {
  return {0.6f, 0.2f, 0.2f, 0.2f, 0.6f, 0.2f, 0.25f, 0.55f, 0.2f, 0.55f + k, 0.25f - k, 0.2f};
}
std::vector<float> lens_reversed(float k) {
  return {0.2f, 0.6f + k, 0.2f - k, 0.6f, 0.2f, 0.2f, 0.6f, 0.2f, 0.2f, 0.2f, 0.6f, 0.2f};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace lens_claims_test

using namespace lens_claims_test;

TEST(LensClaims, KnockoutHoldsAndItsReverseDoesNot) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  const double attn[] = {0.50, 0.47, 0.53}, gss[] = {0.10, 0.12, 0.09};
  for (int s = 0; s < 3; ++s)
    write_knockouts(store, write_run(store, "pha", s),
                    {{3, "attn", "", attn[s]}, {3, "gss", "", gss[s]}, {3, "ffn", "", 0.3}, {-1, "attn", "", 1.0 + s}});
  const pa::Study study = make_study({"pha"}, json::parse(R"([
    {"claim": "knockout", "run": "pha", "layer": 3, "branch": "attn", "hurts_more_than": "gss"},
    {"claim": "knockout", "run": "pha", "layer": 3, "branch": "gss", "hurts_more_than": "attn"}
  ])"));
  const pa::Report r = pa::build_report(study, store);
  const pa::ClaimRow& holds = r.claims.at(0).rows.at(0);
  EXPECT_EQ(r.claims[0].verdict, pa::Verdict::Holds) << holds.reason;
  EXPECT_NEAR(holds.effect, (0.40 + 0.35 + 0.44) / 3, 1e-12);
  EXPECT_GT(holds.effect_low, 0.0);
  EXPECT_EQ(holds.measured.size(), 2u);
  EXPECT_NEAR(holds.measured[0].stats.mean, 0.50, 1e-12);
  EXPECT_EQ(holds.test.text, "one-sample t of the per-replica difference, n=3");
  EXPECT_EQ(holds.adjustment, "Holm, m = 2");
  EXPECT_TRUE(std::isfinite(holds.mde)) << "a one-sample row gets its power like a comparison";
  EXPECT_TRUE(contains(holds.reason, "knock-outs measured on valid:4096")) << holds.reason;
  EXPECT_EQ(r.claims[1].verdict, pa::Verdict::DoesNotHold) << r.claims[1].rows[0].reason;
  EXPECT_NEAR(r.claims[1].rows[0].effect, -holds.effect, 1e-12);
  EXPECT_EQ(r.claims[0].statement, "pha: removing attn at layer 3 raises the loss more than removing gss");

  const std::string md = pa::render_report(r, "md");
  EXPECT_TRUE(contains(md, "attn - gss knock-out (nats/token)")) << md;
  EXPECT_TRUE(contains(md, "pha loss rise, attn removed at layer 3, all tokens")) << md;
  EXPECT_EQ(json::parse(pa::render_report(r, "json"))["claims"][0]["kind"], "knockout");
}

TEST(LensClaims, SpecialisationComparesTwoClassesOfOneKnockout) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  const double query[] = {2.1, 1.8, 2.4}, filler[] = {0.02, 0.05, 0.01};
  for (int s = 0; s < 3; ++s)
    write_knockouts(store, write_run(store, "pha", s),
                    {{-1, "attn", "", 0.9}, {-1, "attn", "query", query[s]}, {-1, "attn", "filler", filler[s]},
                     {-1, "gss", "query", 0.2 + 0.1 * s}, {-1, "gss", "filler", 0.2 + 0.1 * s}});
  const pa::Study study = make_study({"pha"}, json::parse(R"([
    {"claim": "specialisation", "run": "pha", "branch": "attn", "layer": "all", "class": "query", "than": "filler"},
    {"claim": "specialisation", "run": "pha", "branch": "attn", "class": "filler", "than": "query"},
    {"claim": "specialisation", "run": "pha", "branch": "gss", "class": "query", "than": "filler"}
  ])"));
  const pa::Report r = pa::build_report(study, store);
  EXPECT_EQ(r.claims[0].verdict, pa::Verdict::Holds) << r.claims[0].rows[0].reason;
  EXPECT_NEAR(r.claims[0].rows[0].effect, (2.08 + 1.75 + 2.39) / 3, 1e-12);
  EXPECT_EQ(r.claims[0].statement, "pha: removing attn in every layer raises the loss on query tokens more than on filler tokens");
  EXPECT_EQ(r.claims[1].verdict, pa::Verdict::DoesNotHold) << "\"layer\" defaults to all";
  // GSS: the same rise on both classes, no spread: not on either side.
  EXPECT_EQ(r.claims[2].verdict, pa::Verdict::Inconclusive) << r.claims[2].rows[0].reason;
  EXPECT_EQ(r.claims[2].rows[0].test.direction, 0);
}

TEST(LensClaims, AReplicaWithoutRowsIsAProblemThatNamesTheCommand) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::vector<int64_t> ids;
  for (int s = 0; s < 3; ++s) ids.push_back(write_run(store, "pha", s));
  write_knockouts(store, ids[0], {{3, "attn", "", 0.5}, {3, "gss", "", 0.1}});
  write_knockouts(store, ids[1], {{3, "attn", "", 0.5}});  // an older measurement without gss
  const pa::Study study = make_study({"pha"}, json::parse(R"([
    {"claim": "knockout", "run": "pha", "layer": 3, "branch": "attn", "hurts_more_than": "gss"}
  ])"));
  const pa::Report r = pa::build_report(study, store);
  const pa::ClaimRow& row = r.claims.at(0).rows.at(0);
  EXPECT_EQ(row.verdict, pa::Verdict::Inconclusive);
  EXPECT_TRUE(std::isnan(row.p)) << "not a test of the family";
  const std::string id1 = std::to_string(ids[1]), id2 = std::to_string(ids[2]);
  EXPECT_TRUE(contains(row.reason, "run " + id2 + " has no knock-out measurement: run \"pha lens knockout --run " + id2 +
                                       " --record\""))
      << row.reason;
  EXPECT_TRUE(contains(row.reason, "run " + id1 + "'s knock-out has no row for gss removed at layer 3, all tokens"))
      << row.reason;
  EXPECT_EQ(r.family_size, 1u) << "the designed row counts in m";
  EXPECT_EQ(r.family_tested, 0u) << "but has no p-value";
}

TEST(LensClaims, ClaimJsonErrorsNameTheField) {
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "knockout", "run": "pha", "layer": 3, "branch": "mamba",
                                        "hurts_more_than": "gss"}])")),
            "claims[0].branch: \"mamba\" is not allowed; allowed: \"gss\", \"attn\", \"ffn\"");
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "knockout", "run": "pha", "branch": "attn", "hurts_more_than": "attn"}])")),
            "claims[0].hurts_more_than: \"attn\" is the branch of \"branch\"; allowed: another branch");
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "knockout", "run": "pha", "branch": "attn"}])")),
            "claims[0].hurts_more_than: is required (the branch whose removal hurts less); allowed: \"gss\", \"attn\", "
            "\"ffn\"");
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "knockout", "run": "pha", "layer": "every", "branch": "attn",
                                        "hurts_more_than": "gss"}])")),
            "claims[0].layer: \"every\" is not allowed; allowed: a layer index (0 for the first layer) or \"all\" (the "
            "branch removed in every layer)");
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "knockout", "run": "pha", "layer": -1, "branch": "attn",
                                        "hurts_more_than": "gss"}])")),
            "claims[0].layer: -1 is out of range; allowed: 0 to 4095 (or \"all\": the branch removed in every layer)");
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "knockout", "run": "pha", "branch": "attn", "hurts_more_than": "gss",
                                        "class": "query"}])"),
                        /*is_task=*/false),
            "claims[0].class: \"query\" is not allowed; allowed: \"all\", \"copyable\", \"novel\"");
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "knockout", "run": "pha", "branch": "attn", "hurts_more": "gss"}])")),
            "claims[0].hurts_more: unknown key; did you mean \"hurts_more_than\"?");
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "knockout", "run": "phaa", "branch": "attn", "hurts_more_than": "gss"}])")),
            "claims[0].run: \"phaa\" is not allowed; allowed: \"pha\", \"sequential\"");
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "specialisation", "run": "pha", "branch": "attn", "class": "query"}])")),
            "claims[0].than: is required; allowed: \"key\", \"value\", \"query\", \"filler\", \"answer\", \"other\"");
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "specialisation", "run": "pha", "branch": "attn", "class": "query",
                                        "than": "query"}])")),
            "claims[0].than: \"query\" is the class of \"class\"; allowed: another class");
  EXPECT_EQ(claim_error(json::parse(R"([{"claim": "specialisation", "run": "pha", "branch": "attn", "class": "all",
                                        "than": "query"}])")),
            "claims[0].class: \"all\" is not allowed; allowed: \"key\", \"value\", \"query\", \"filler\", \"answer\", "
            "\"other\"");

  pa::ClaimContext text;
  text.runs = {"pha"};
  const auto c = pa::read_claims(json::parse(R"([
    {"claim": "knockout", "run": "pha", "branch": "ffn", "hurts_more_than": "gss", "class": "novel"},
    {"claim": "knockout", "run": "pha", "layer": 0, "branch": "gss", "hurts_more_than": "attn", "class": "all"}
  ])"), "claims", text);
  EXPECT_EQ(c[0].kind, pa::ClaimKind::Knockout);
  EXPECT_EQ(c[0].layer, -1);
  EXPECT_EQ(c[0].token_class, "novel");
  EXPECT_EQ(c[1].layer, 0);
  EXPECT_EQ(c[1].token_class, "") << "\"all\" is every counted token";
  EXPECT_EQ(c[1].other_branch, "attn");
}

TEST(LensClaims, SandwichIsJudgedOnEffectiveSharesWhenEveryReplicaHasThem) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  std::vector<int64_t> part;
  for (int s = 0; s < 3; ++s) {
    const float k = 0.01f * static_cast<float>(s);
    // Raw mixer weights reversed (GSS in the middle), the gains turn them into a sandwich.
    write_shares(store, write_run(store, "pha", s, lens_reversed(k)), lens_sandwich(k));
    write_run(store, "raw", s, lens_reversed(k));
    part.push_back(write_run(store, "part", s, lens_reversed(k)));
  }
  write_shares(store, part[0], lens_sandwich(0.0f));  // one of three replicas measured
  const pa::Study study = make_study({"pha", "raw", "part"}, json::parse(R"([
    {"claim": "mixer_sandwich", "run": "pha"},
    {"claim": "mixer_sandwich", "run": "raw"},
    {"claim": "mixer_sandwich", "run": "part"}
  ])"));
  const pa::Report r = pa::build_report(study, store);
  const pa::ClaimRow& eff = r.claims.at(0).rows.at(0);
  EXPECT_EQ(eff.verdict, pa::Verdict::Holds) << eff.reason;
  EXPECT_TRUE(contains(eff.reason, "judged on effective weights (mixer weight x gain RMS, \"pha lens weights\")")) << eff.reason;
  EXPECT_EQ(eff.measured[0].label, "GSS effective share, first/last minus middle layers");
  EXPECT_EQ(r.claims[1].verdict, pa::Verdict::DoesNotHold) << r.claims[1].rows[0].reason;
  EXPECT_TRUE(contains(r.claims[1].rows[0].reason, "judged on raw mixer weights: effective weights not measured for runs "))
      << r.claims[1].rows[0].reason;
  const pa::ClaimRow& mixed = r.claims.at(2).rows.at(0);
  EXPECT_EQ(mixed.verdict, pa::Verdict::DoesNotHold) << "two replicas unmeasured: raw weights decide";
  EXPECT_TRUE(contains(mixed.reason, "effective weights not measured for runs " + std::to_string(part[1]) + ", " +
                                         std::to_string(part[2]) + " (\"pha lens weights --run N --record\")"))
      << mixed.reason;

  // The raw weights stay in the table, the shares beside them.
  const auto& layers = r.claims[0].mixer;
  ASSERT_EQ(layers.size(), 4u);
  EXPECT_NEAR(layers[0].gss.mean, 0.2, 1e-6);
  EXPECT_NEAR(layers[0].gss_share.mean, 0.6, 1e-6);
  EXPECT_EQ(layers[0].gss_share.n, 3u);
  EXPECT_EQ(r.claims[1].mixer[0].gss_share.n, 0u);
  const std::string md = pa::render_report(r, "md");
  EXPECT_TRUE(contains(md, "| layer | gss | attn | ffn | gss share | attn share | ffn share |")) << md;
  EXPECT_TRUE(contains(md, "| layer | gss | attn | ffn |\n")) << "no share columns where none was measured";
  const json j = json::parse(pa::render_report(r, "json"));
  EXPECT_NEAR(j["claims"][0]["mixer"][0]["gss_share"]["mean"].get<double>(), 0.6, 1e-6);
  bool shares_chart = false;
  for (const auto& b : pa::report_document(r).blocks) shares_chart = shares_chart || b.id == "shares1";
  EXPECT_TRUE(shares_chart);
}
