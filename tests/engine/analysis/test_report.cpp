// The report on a synthetic store whose runs have known final values: each claim kind gives
// the verdict its rule says (holds, does not hold, inconclusive, too few replicas) after the
// report's Holm correction, the figures are the hand-computed ones, and the three formats parse
// (JSON as JSON, HTML as well-formed XHTML). The statistics themselves: test_report_stats.cpp.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>

#include "analysis/report.h"
#include "analysis/report_document.h"
#include "analysis/internal/report_internal.h"
#include "core/error.h"
#include "engine/store/store_test_util.h"
#include "store/run_writer.h"
#include "store/store.h"

namespace pa = pha::analysis;
namespace ps = pha::store;
using nlohmann::json;

namespace {

// One replica: a finished (or other) run with a final accuracy, a train loss, optional length
// sweep rows and mixer snapshots.
struct Fake {
  std::string group;
  int64_t seed;
  double accuracy;
  int64_t params = 5000;
  ps::RunStatus status = ps::RunStatus::Finished;
  std::vector<std::vector<float>> mixers{};  // per snapshot, L x 3 layer-major
};

void write(ps::Store& store, const Fake& f) {
  ps::NewRun nr;
  nr.project = "study";
  nr.name = f.group + "/seed=" + std::to_string(f.seed);
  nr.group = f.group;
  nr.seed = f.seed;
  nr.n_params = f.params;
  nr.config_json = R"({"training": {"steps": 100}})";
  const int64_t id = store.create_run(nr);
  ps::RunWriter w(store, id);
  w.metric("train/loss", 100, 0, 0, 1.0 - f.accuracy);
  w.metric("test/test/accuracy", 100, 0, 0, f.accuracy);
  w.eval({100, "length", 50, "accuracy", f.accuracy});
  w.eval({100, "length", 100, "accuracy", f.accuracy / 2});
  w.eval({100, "selective_copy_bits_p0.1", 50, "accuracy", f.accuracy * 0.9});
  w.eval({50, "length", 400, "accuracy", 0.0});  // an older evaluation: not the run's last
  for (size_t i = 0; i < f.mixers.size(); ++i)
    w.mixer({static_cast<int64_t>(10 * (i + 1)), static_cast<int>(f.mixers[i].size() / 3), 3, f.mixers[i]});
  w.finish(f.status);
}

// GSS largest at both ends, attention largest in the middle; `k` moves one weight a little.
std::vector<float> sandwich(float k) {
  return {0.6f, 0.2f, 0.2f, 0.2f, 0.6f, 0.2f, 0.25f, 0.55f, 0.2f, 0.55f + k, 0.25f - k, 0.2f};
}
std::vector<float> reversed() {
  return {0.2f, 0.6f, 0.2f, 0.6f, 0.2f, 0.2f, 0.6f, 0.2f, 0.2f, 0.2f, 0.6f, 0.2f};
}

pa::Study study(const std::vector<std::pair<std::string, std::string>>& groups_family, const json& claims) {
  pa::Study s;
  s.project = "study";
  s.is_task = true;
  s.test_sets = {"test"};
  std::vector<std::string> names;
  for (const auto& [group, family] : groups_family) {
    names.push_back(group);
    for (int64_t seed = 0; seed < 3; ++seed) {
      pa::StudyRun r;
      r.name = group + "/seed=" + std::to_string(seed);
      r.group = r.entry = group;
      r.seed = seed;
      r.family = family;
      r.variant = group;
      r.config = {{"training", {{"steps", 100}}}};
      s.runs.push_back(r);
    }
  }
  pa::ClaimContext ctx;
  ctx.runs = names;
  ctx.is_task = true;
  s.claims = pa::read_claims(claims, "claims", ctx);
  return s;
}

// Well-formed XHTML: every tag closed in order (void elements self-closed), attributes quoted,
// '&' only in entities; and self-contained: no script, no external reference.
void expect_well_formed(const std::string& html) {
  ASSERT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  std::vector<std::string> stack;
  const std::regex attr(R"re(^\s+[a-zA-Z0-9_:-]+="[^"<>]*")re");
  size_t i = html.find('>') + 1;  // after the doctype
  while (i < html.size()) {
    const size_t lt = html.find('<', i);
    const std::string text = html.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    for (size_t a = text.find('&'); a != std::string::npos; a = text.find('&', a + 1))
      EXPECT_TRUE(std::regex_search(text.substr(a), std::regex("^&(amp|lt|gt|quot|#39);"))) << text.substr(a, 20);
    if (lt == std::string::npos) break;
    const size_t gt = html.find('>', lt);
    ASSERT_NE(gt, std::string::npos) << "unterminated tag at " << lt;
    std::string tag = html.substr(lt + 1, gt - lt - 1);
    i = gt + 1;
    if (tag[0] == '/') {
      ASSERT_FALSE(stack.empty()) << "closing </" << tag << "> with nothing open";
      ASSERT_EQ(stack.back(), tag.substr(1)) << "at offset " << lt;
      stack.pop_back();
      continue;
    }
    if (stack.size() > 0 && stack.back() == "style") {  // CSS text may hold '>' only inside <style>
      FAIL() << "a tag inside <style>";
    }
    const bool self_closed = tag.back() == '/';
    if (self_closed) tag.pop_back();
    const size_t name_end = tag.find_first_of(" \n\t");
    const std::string name = tag.substr(0, name_end);
    std::string rest = name_end == std::string::npos ? "" : tag.substr(name_end);
    std::smatch m;
    while (!rest.empty() && rest.find_first_not_of(" ") != std::string::npos && std::regex_search(rest, m, attr))
      rest = m.suffix();
    EXPECT_EQ(rest.find_first_not_of(" "), std::string::npos) << "unquoted attribute in <" << tag << ">";
    bool is_void = false;
    for (const char* v : {"meta", "br", "hr", "img", "input", "link"}) is_void = is_void || name == v;
    if (is_void) {
      EXPECT_TRUE(self_closed) << "<" << name << "> is not closed";
    } else if (!self_closed) {
      stack.push_back(name);
    }
  }
  EXPECT_TRUE(stack.empty()) << "unclosed <" << (stack.empty() ? "" : stack.back()) << ">";
}

const pa::ClaimReport& claim(const pa::Report& r, size_t i) { return r.claims.at(i); }

}  // namespace

TEST(Report, ClaimVerdictsFollowTheirRules) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  for (int s = 0; s < 3; ++s) {
    write(store, {"pha", s, 0.90 + 0.02 * s, 5000, ps::RunStatus::Finished, {reversed(), sandwich(0.01f * s)}});
    write(store, {"transformer", s, std::vector<double>{0.50, 0.60, 0.55}[s]});
    write(store, {"tiny", s, 1.0, 1500});
  }
  write(store, {"gss-only", 0, 0.88});
  write(store, {"gss-only", 1, 0.10});  // seed 1 trained again below: the newest finished run counts
  write(store, {"gss-only", 1, 0.95});
  write(store, {"gss-only", 2, 0.91});
  write(store, {"single", 0, 0.99});
  write(store, {"single", 1, 0.2, 5000, ps::RunStatus::Failed});

  const pa::Study s = study({{"pha", "hybrid"}, {"transformer", "attention"}, {"gss-only", "ssm"}, {"tiny", "hybrid"},
                             {"single", "hybrid"}},
                            json::parse(R"([
    {"claim": "higher_is_better", "metric": "accuracy", "better": "pha", "than": "transformer", "paper": "pha wins"},
    {"claim": "higher_is_better", "metric": "accuracy", "better": "transformer", "than": "pha"},
    {"claim": "higher_is_better", "metric": "accuracy", "better": "pha", "than": "gss-only"},
    {"claim": "lower_is_better", "metric": "train/loss", "better": "single", "than": "pha"},
    {"claim": "mixer_sandwich", "run": "pha"},
    {"claim": "mixer_sandwich", "run": "transformer"},
    {"claim": "accuracy_at_params", "family": "hybrid", "max_params": 2000, "min_accuracy": 1.0},
    {"claim": "accuracy_at_params", "family": "ssm", "max_params": 10000, "max_accuracy": 0.4},
    {"claim": "accuracy_at_params", "family": "attention", "max_params": 100, "min_accuracy": 0.5},
    {"claim": "higher_is_better", "metric": "eval/length/accuracy@100", "better": "pha", "than": "transformer"}
  ])"));
  const pa::Report r = pa::build_report(s, store);

  // pha: 0.90, 0.92, 0.94 -> mean 0.92, std 0.02, interval 0.92 -+ 4.3027 * 0.02 / sqrt(3).
  const pa::GroupReport& pha = r.groups.at(0);
  EXPECT_EQ(pha.replicas.size(), 3u);
  const pa::Stats& acc = pha.metrics.at("test/test/accuracy");
  EXPECT_NEAR(acc.mean, 0.92, 1e-12);
  EXPECT_NEAR(acc.std, 0.02, 1e-12);
  EXPECT_NEAR(acc.ci_high - acc.mean, 4.30265272974946 * 0.02 / std::sqrt(3.0), 1e-9);

  EXPECT_EQ(claim(r, 0).verdict, pa::Verdict::Holds) << claim(r, 0).rows[0].reason;
  EXPECT_NEAR(claim(r, 0).rows[0].effect, 0.37, 1e-12);
  EXPECT_GT(claim(r, 0).rows[0].effect_low, 0);
  EXPECT_EQ(claim(r, 1).verdict, pa::Verdict::DoesNotHold);
  EXPECT_EQ(claim(r, 2).verdict, pa::Verdict::Inconclusive) << "0.92 vs 0.9133: the interval contains 0";
  EXPECT_EQ(claim(r, 2).rows[0].measured[1].stats.n, 3u);
  EXPECT_NEAR(claim(r, 2).rows[0].measured[1].stats.mean, (0.88 + 0.95 + 0.91) / 3, 1e-12) << "newest run of seed 1";
  EXPECT_EQ(claim(r, 3).verdict, pa::Verdict::TooFewReplicas) << "one seed decides nothing";
  EXPECT_NE(claim(r, 3).rows[0].reason.find("single has 1 replica"), std::string::npos) << claim(r, 3).rows[0].reason;
  EXPECT_EQ(claim(r, 4).verdict, pa::Verdict::Holds) << claim(r, 4).rows[0].reason;
  EXPECT_NE(claim(r, 4).rows[0].reason.find("in 3 of 3 replicas"), std::string::npos) << "the final snapshot counts";
  ASSERT_EQ(claim(r, 4).mixer.size(), 4u);
  EXPECT_NEAR(claim(r, 4).mixer[0].gss.mean, 0.6, 1e-6);
  EXPECT_EQ(claim(r, 5).verdict, pa::Verdict::Inconclusive);
  EXPECT_NE(claim(r, 5).rows[0].reason.find("no mixer snapshot"), std::string::npos) << claim(r, 5).rows[0].reason;
  // Accuracy thresholds count the seeds that reach them (Wilson): 3 of 3 gives [0.4385, 1], which
  // still contains 1/2, so three seeds at 1.0 do not yet show "reaches it in most seeds".
  EXPECT_EQ(claim(r, 6).verdict, pa::Verdict::Inconclusive) << claim(r, 6).rows[0].reason;
  EXPECT_EQ(claim(r, 6).rows[0].measured.at(0).successes, 3);
  EXPECT_NEAR(claim(r, 6).rows[0].measured.at(0).wilson_low, 0.438502968244954, 1e-9);
  EXPECT_EQ(claim(r, 7).verdict, pa::Verdict::Inconclusive) << "gss-only: 3 of 3 above 0.4 is not yet most seeds";
  EXPECT_EQ(claim(r, 7).rows[0].measured.at(0).successes, 3);
  EXPECT_EQ(claim(r, 8).verdict, pa::Verdict::Inconclusive);
  EXPECT_NE(claim(r, 8).rows[0].reason.find("no attention model with at most 100"), std::string::npos);
  EXPECT_EQ(claim(r, 9).verdict, pa::Verdict::Holds);
  EXPECT_NEAR(claim(r, 9).rows[0].measured[0].stats.mean, 0.46, 1e-12) << "length rows at T = 100";

  // Length sweep: the runs' last evaluation (T 50 and 100; the old T = 400 row is not), OOD by p.
  ASSERT_EQ(r.length.xs, (std::vector<double>{50, 100}));
  EXPECT_NEAR(r.length.cells[0][1].mean, 0.46, 1e-12);
  ASSERT_EQ(r.ood.xs, (std::vector<double>{0.1}));
  // The failed replica is a note, not a value.
  bool noted = false;
  for (const auto& n : r.notes) noted = noted || n.find("single: 1 of 3 replicas finished (seed 1: failed") == 0;
  EXPECT_TRUE(noted);
}

TEST(Report, GridClaimsCompareAtEachPointAndFormatsParse) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  for (int s = 0; s < 3; ++s) {
    write(store, {"pha/d=16", s, 0.8 + 0.01 * s});
    write(store, {"pha/d=32", s, 0.9 + 0.01 * s});
    write(store, {"transformer/d=16", s, 0.5 + 0.01 * s});
    write(store, {"transformer/d=32", s, 0.95 + 0.01 * s});
  }
  pa::Study s = study({{"pha/d=16", "hybrid"}, {"pha/d=32", "hybrid"}, {"transformer/d=16", "attention"},
                       {"transformer/d=32", "attention"}},
                      json::array());
  for (auto& run : s.runs) {
    run.entry = run.group.substr(0, run.group.find('/'));
    run.grid_point = run.group.substr(run.group.find('/') + 1);
  }
  pa::ClaimContext ctx;
  ctx.runs = {"pha", "transformer"};
  ctx.is_task = true;
  s.claims = pa::read_claims(json::parse(R"([{"claim": "higher_is_better", "metric": "accuracy", "better": "pha",
      "than": "transformer", "title": "A <b>&</b> \"B\""}])"), "claims", ctx);
  const pa::Report r = pa::build_report(s, store);
  ASSERT_EQ(r.claims[0].rows.size(), 2u);
  EXPECT_EQ(r.claims[0].rows[0].label, "d=16");
  EXPECT_EQ(r.claims[0].rows[0].verdict, pa::Verdict::Holds);
  EXPECT_EQ(r.claims[0].rows[1].verdict, pa::Verdict::DoesNotHold);
  EXPECT_EQ(r.claims[0].verdict, pa::Verdict::Mixed);
  EXPECT_EQ(r.claims[0].summary, "holds at 1 of 2 grid points; does not hold at 1 of 2 grid points");

  const json j = json::parse(pa::render_report(r, "json"));
  EXPECT_EQ(j["project"], "study");
  EXPECT_EQ(j["claims"][0]["verdict"], "mixed");
  EXPECT_EQ(j["claims"][0]["rows"][0]["verdict"], "holds");
  EXPECT_EQ(j["groups"].size(), 4u);
  EXPECT_EQ(j["groups"][0]["metrics"]["test/test/accuracy"]["n"], 3);
  EXPECT_TRUE(j["groups"][0]["metrics"]["train/loss"]["ci95_low"].is_number());
  EXPECT_EQ(j["length"]["xs"].size(), 2u);

  const std::string html = pa::render_report(r, "html");
  expect_well_formed(html);
  EXPECT_NE(html.find("A &lt;b&gt;&amp;&lt;/b&gt; &quot;B&quot;"), std::string::npos) << "the title is escaped";
  size_t svgs = 0;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) ++svgs;
  EXPECT_EQ(svgs, 3u) << "parameter efficiency, length and OOD plots";

  EXPECT_NE(html.find("where it has at least 3 replicas"), std::string::npos) << "three seeds: intervals shown";

  const std::string md = pa::render_report(r, "md");
  EXPECT_NE(md.find("| d=16 |"), std::string::npos) << md;
  EXPECT_NE(md.find("**verdict: holds at 1 of 2 grid points"), std::string::npos) << md;
  EXPECT_THROW(pa::render_report(r, "pdf"), pha::core::Error);
}

TEST(Report, StructuralCheckerRejectsBrokenHtml) {
  // The checker above must be able to fail: a mis-nested and an unquoted page.
  EXPECT_FATAL_FAILURE(expect_well_formed("<!DOCTYPE html>\n<html><body><p>x</body></html>"), "");
  EXPECT_NONFATAL_FAILURE(expect_well_formed("<!DOCTYPE html>\n<html><body><p a=b>x</p></body></html>"), "unquoted");
  EXPECT_NONFATAL_FAILURE(expect_well_formed("<!DOCTYPE html>\n<html><body><p>x & y</p></body></html>"), "& y");
  EXPECT_NONFATAL_FAILURE(expect_well_formed("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head></html>"),
                          "not closed");
}

// Numbers in the report's tables: a perplexity's spread to the mean's two decimals (the
// ablations report printed "11.19 ± 0.1800"), a parameter count without an exponent.
TEST(Report, NumbersKeepTheirMagnitudesDecimalsAndNeverAnExponent) {
  namespace d = pa::detail;
  EXPECT_EQ(d::num(3.48421), "3.4842");
  EXPECT_EQ(d::num(11.1937), "11.19");
  EXPECT_EQ(d::num(2345.67), "2345.7");
  EXPECT_EQ(d::num(1286172.0), "1286172");
  EXPECT_EQ(d::num(std::nan("")), "-");
  pa::Stats s;
  s.n = 3;
  s.mean = 11.1937;
  s.std = 0.18004;
  EXPECT_EQ(d::mean_std(s), "11.19 ± 0.18 (n=3)");
  s.mean = 3.48421;
  s.std = 0.02321;
  EXPECT_EQ(d::mean_std(s), "3.4842 ± 0.0232 (n=3)");
  s.n = 1;
  EXPECT_EQ(d::mean_std(s), "3.4842 (n=1)");
}

// The HTML said "the 95% interval from 3 replicas" whatever the groups had: with one replica
// each it says there is no spread or interval yet.
TEST(Report, TheGroupsTableSaysWhatItsNumbersAreForTheReplicasAtHand) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  write(store, {"pha/d=16", 0, 0.8});
  write(store, {"transformer/d=16", 0, 0.5});
  const pa::Report r = pa::build_report(study({{"pha/d=16", "hybrid"}, {"transformer/d=16", "attention"}}, json::array()), store);
  const std::string html = pa::render_report(r, "html");
  EXPECT_EQ(html.find("interval from 3 replicas"), std::string::npos);
  EXPECT_EQ(html.find("where it has at least"), std::string::npos);
  EXPECT_NE(html.find("at most one replica here, so no spread or interval is shown"), std::string::npos);
}

// Markdown and HTML render the one document (analysis/report_document.h): the same tables with
// the same rows, every span of every cell (the verdicts' reasons among them), the same headings,
// and a chart in HTML for each chart block. The mixer claim's per-layer table is in both (HTML
// had only its plot).
TEST(Report, MarkdownAndHtmlRenderEveryBlockOfTheOneDocument) {
  ps::test::TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  for (int s = 0; s < 3; ++s) {
    write(store, {"pha", s, 0.90 + 0.02 * s, 5000, ps::RunStatus::Finished, {sandwich(0.01f * s)}});
    write(store, {"transformer", s, std::vector<double>{0.50, 0.60, 0.55}[s]});
  }
  const pa::Study s = study({{"pha", "hybrid"}, {"transformer", "attention"}}, json::parse(R"([
    {"claim": "higher_is_better", "metric": "accuracy", "better": "pha", "than": "transformer"},
    {"claim": "mixer_sandwich", "run": "pha"}
  ])"));
  const pa::Report r = pa::build_report(s, store);
  const pa::ReportDocument d = pa::report_document(r);
  const std::string md = pa::render_markdown(r), html = pa::render_html(r);
  EXPECT_EQ(md, pa::render_markdown(d));
  EXPECT_EQ(html, pa::render_html(d));
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  size_t tables = 0, charts = 0;
  for (const pa::Block& b : d.blocks) {
    if (b.kind == pa::BlockKind::Heading) {
      EXPECT_NE(md.find(std::string(size_t(b.level), '#') + " " + pa::plain_text(b.text) + "\n"), std::string::npos);
    }
    if (b.kind == pa::BlockKind::Chart) ++charts;
    if (b.kind != pa::BlockKind::Table) continue;
    ++tables;
    std::string th;
    for (const auto& c : b.columns) th += "<th>" + pha::analysis::detail::html_escape(c) + "</th>";
    EXPECT_NE(html.find(th), std::string::npos) << b.id;
    for (const auto& row : b.rows) {
      ASSERT_EQ(row.size(), b.columns.size()) << b.id;
      for (const auto& cell : row)
        for (const auto& span : cell.spans)
          EXPECT_NE(html.find(pha::analysis::detail::html_escape(span.text)), std::string::npos) << b.id << ": " << span.text;
    }
  }
  EXPECT_EQ(count(md, "| --- |\n"), tables) << "a table of the document missing in Markdown";
  EXPECT_EQ(count(html, "<table>"), tables) << "a table of the document missing in HTML";
  EXPECT_EQ(count(html, "<svg"), charts);
  EXPECT_NE(html.find("<th>layer</th><th>gss</th><th>attn</th><th>ffn</th>"), std::string::npos) << "the mixer table";
  EXPECT_NE(md.find("| layer | gss | attn | ffn |"), std::string::npos);
  EXPECT_NE(html.find("in 3 of 3 replicas"), std::string::npos) << "the sandwich row's reason";
}
